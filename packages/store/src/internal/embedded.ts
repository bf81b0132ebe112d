/**
 * The embedded engine: PGlite in a directory (locked to this process) or in memory, opened with the
 * scope and closed with it.
 *
 * @internal
 */
import { Effect } from "effect"
import * as Fs from "node:fs"
import type { DatabaseUnavailable, Location } from "../Database.js"
import * as LockFile from "./lockFile.js"
import * as WireBridge from "./wireBridge.js"

export type Unavailable = (reason: string, hint: string) => DatabaseUnavailable

/** Opens PGlite (in a locked directory, or in memory); closes it and releases the lock with the scope. */
export const open = (location: Exclude<Location, { _tag: "Postgres" }>, unavailable: Unavailable) =>
  Effect.gen(function*() {
    if (location._tag === "Embedded") {
      yield* checkDirectory(location.path, unavailable)
      yield* Effect.acquireRelease(
        Effect.suspend(() => {
          const lock = LockFile.acquire(location.path)
          if ("release" in lock) return Effect.succeed(lock)
          return Effect.fail(
            lock._tag === "Held"
              ? unavailable(
                `it is in use by process ${lock.pid} (lock file ${lock.path})`,
                "An embedded database serves one process at a time: stop that process, or use a PostgreSQL " +
                  "server (TOOL_SEARCH_DATABASE=postgres://…) for several"
              )
              : unavailable(`its lock file ${lock.path} cannot be written: ${lock.message}`, "Check the permissions")
          )
        }),
        (lock) => Effect.sync(() => lock.release())
      )
    }
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const { PGlite } = await import("@electric-sql/pglite")
          return PGlite.create(location._tag === "Embedded" ? { dataDir: location.path } : {})
        },
        catch: (e) =>
          unavailable(
            `the embedded PostgreSQL could not start: ${e instanceof Error ? e.message : String(e)}`,
            "Check that the directory holds a tool-search database and is writable; TOOL_SEARCH_DATABASE " +
              "(or --database) chooses another"
          )
      }),
      (db) => Effect.promise(() => db.close().catch(() => undefined))
    )
    return WireBridge.backend(db)
  })

/** Refuses a path that is a file, or a non-empty directory that is not a PostgreSQL data directory. */
const checkDirectory = (path: string, unavailable: Unavailable) =>
  Effect.suspend(() => {
    let entries: ReadonlyArray<string>
    try {
      if (!Fs.statSync(path).isDirectory()) {
        return Effect.fail(unavailable("it is a file, not a directory", "The embedded database is a directory"))
      }
      entries = Fs.readdirSync(path)
    } catch {
      return Effect.void // missing: created by the lock
    }
    const foreign = entries.length > 0 && !entries.includes("PG_VERSION") &&
      entries.some((e) => e !== LockFile.LOCK_FILE)
    return foreign
      ? Effect.fail(
        unavailable(
          "the directory is not empty and holds no database",
          "Choose an empty or new directory for TOOL_SEARCH_DATABASE (or --database)"
        )
      )
      : Effect.void
  })
