/**
 * The embedded engine: PGlite in a directory (locked to this process) or in memory, opened with the
 * scope and closed with it.
 *
 * - **The lock** (`ProcessLock`) names the holding process by id, start time and boot, so a
 *   restarted container's PID 1 does not take its dead predecessor's lock for its own.
 * - **A new directory** is created (initdb) by a first PGlite, which is then closed and the
 *   directory opened again: the WebAssembly memory initdb grew is never given back while its
 *   instance lives (~860 MB resident, against ~300 MB for an existing directory).
 * - **Errors say what is wrong and what to do**: a full disk (PGlite says only "ErrnoError" or
 *   "failed to initialize") is named with the free space, a directory it cannot read is called
 *   damaged, with the way out.
 *
 * @internal
 */
import { Effect, Schedule } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import type { DatabaseUnavailable, Location } from "../Database.js"
import * as ProcessLock from "./processLock.js"
import * as WireBridge from "./wireBridge.js"

export type Unavailable = (reason: string, hint: string) => DatabaseUnavailable

/** The lock file's name inside the database directory. */
export const LOCK_FILE = "tool-search.lock"

/** Below this much free space the embedded PostgreSQL may not start (it writes 16 MB WAL segments). */
const MIN_FREE_BYTES = 64 * 1024 * 1024

/** The embedded engine, open: its backend, and its lock (none in memory). */
export interface Opened {
  readonly backend: WireBridge.Backend
  readonly lock: ProcessLock.Lock | undefined
}

/** Opens PGlite (in a locked directory, or in memory); closes it and releases the lock with the scope. */
export const open = (location: Exclude<Location, { _tag: "Postgres" }>, unavailable: Unavailable) =>
  Effect.gen(function*() {
    let lock: ProcessLock.Lock | undefined
    if (location._tag === "Embedded") {
      yield* checkDirectory(location.path, unavailable)
      const path = Path.join(location.path, LOCK_FILE)
      lock = yield* Effect.acquireRelease(
        Effect.suspend(() => {
          const taken = ProcessLock.acquire(path)
          if ("release" in taken) return Effect.succeed(taken)
          return Effect.fail(
            taken._tag === "Held"
              ? unavailable(
                `it is in use by process ${taken.owner.pid} (lock file ${taken.path})`,
                "An embedded database serves one process at a time: stop that process, or use a PostgreSQL " +
                  "server (TOOL_SEARCH_DATABASE=postgres://…) for several. `tool-search audit` reads it through " +
                  "the process that holds it"
              )
              : fileError(location.path, `its lock file ${taken.path} cannot be written`, taken, unavailable)
          )
        }).pipe(
          // a lock of another namespace (a restarted container) whose heartbeat is still fresh: wait for it to go stale
          Effect.retry({
            while: () => {
              const owner = ProcessLock.holder(path)
              return owner !== undefined && ProcessLock.liveness(owner, modifiedAt(path)) === "unknown"
            },
            schedule: Schedule.spaced(ProcessLock.HEARTBEAT / 2),
            times: Math.ceil((2 * ProcessLock.STALE_AFTER) / ProcessLock.HEARTBEAT)
          })
        ),
        (lock) => Effect.sync(() => lock.release())
      )
    }
    const fresh = location._tag === "Embedded" && !Fs.existsSync(Path.join(location.path, "PG_VERSION"))
    const start = Effect.tryPromise({
      try: async () => {
        const { PGlite } = await import("@electric-sql/pglite")
        return PGlite.create(location._tag === "Embedded" ? { dataDir: location.path } : {})
      },
      catch: (e) => startError(location, fresh, e, unavailable)
    })
    if (fresh) {
      // initdb's memory stays with the instance that ran it: close it, and open the directory anew
      const first = yield* start
      yield* Effect.promise(() => first.close().catch(() => undefined))
    }
    const db = yield* Effect.acquireRelease(start, (db) => Effect.promise(() => db.close().catch(() => undefined)))
    return { backend: WireBridge.backend(db), lock } satisfies Opened
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
    const ours = new Set([LOCK_FILE, JOURNAL_DIRECTORY])
    const foreign = entries.length > 0 && !entries.includes("PG_VERSION") &&
      entries.some((e) => !ours.has(e) && !e.startsWith(`${LOCK_FILE}.`))
    return foreign
      ? Effect.fail(
        unavailable(
          "the directory is not empty and holds no database",
          "Choose an empty or new directory for TOOL_SEARCH_DATABASE (or --database)"
        )
      )
      : Effect.void
  })

const modifiedAt = (path: string): number => {
  try {
    return Fs.statSync(path).mtimeMs
  } catch {
    return 0
  }
}

/** The embedded engine's journal, by default: a directory inside the database's. */
export const JOURNAL_DIRECTORY = "journal"

/** Free bytes on the file system holding `path` (or its nearest existing parent), when known. */
export const freeBytes = (path: string): number | undefined => {
  for (let dir = path;; dir = Path.dirname(dir)) {
    try {
      const stats = Fs.statfsSync(dir)
      return stats.bavail * stats.bsize
    } catch {
      if (Path.dirname(dir) === dir) return undefined
    }
  }
}

const mebibytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`

/** Emscripten's errno for "no space left on device", as PGlite's file system reports it. */
const EMSCRIPTEN_ENOSPC = 51

/** Whether `e` is an out-of-space error, from Node or from PGlite's file system. */
const isNoSpace = (e: unknown): boolean =>
  ProcessLock.isCode(e, "ENOSPC") ||
  (typeof e === "object" && e !== null && "errno" in e && e.errno === EMSCRIPTEN_ENOSPC) ||
  (e instanceof Error && /no space left on device/i.test(e.message))

const describe = (e: unknown): string => {
  if (e instanceof Error && e.message !== "" && e.message !== "[object Object]") return e.message
  if (typeof e === "object" && e !== null && "name" in e && typeof e.name === "string") {
    return "errno" in e ? `${e.name} (errno ${String(e.errno)})` : e.name
  }
  return String(e)
}

/** Why PGlite did not start, in words that say what to do. */
const startError = (
  location: Exclude<Location, { _tag: "Postgres" }>,
  fresh: boolean,
  e: unknown,
  unavailable: Unavailable
): DatabaseUnavailable => {
  if (location._tag === "Memory") {
    return unavailable(`the embedded PostgreSQL could not start: ${describe(e)}`, "Check the memory available")
  }
  const free = freeBytes(location.path)
  if (isNoSpace(e) || (free !== undefined && free < MIN_FREE_BYTES)) {
    return unavailable(
      `the disk holding ${location.path} is full (${free === undefined ? "no" : mebibytes(free)} free; ` +
        `the embedded PostgreSQL needs at least ${mebibytes(MIN_FREE_BYTES)} to start): ${describe(e)}`,
      "Free space on that disk (or give it more), then start again; nothing in the directory is lost by waiting"
    )
  }
  if (fresh) {
    return unavailable(
      `a new embedded database could not be created there: ${describe(e)}`,
      "Check that the directory is writable, or choose another with TOOL_SEARCH_DATABASE (or --database)"
    )
  }
  return unavailable(
    `its files could not be read: they are damaged, or were not written by the embedded PostgreSQL of this ` +
      `tool-search (${describe(e)})`,
    `Restore the directory from a backup; or move it aside (its sessions, audit trail and feedback stay in the ` +
      `moved copy) and start again to create a new one`
  )
}

/** A file-system error of the directory (its lock, its journal), in words that say what to do. */
export const fileError = (
  directory: string,
  what: string,
  refusal: { readonly message: string; readonly code: string | undefined },
  unavailable: Unavailable
): DatabaseUnavailable =>
  refusal.code === "ENOSPC"
    ? unavailable(`${what}: the disk is full (${refusal.message})`, "Free space on the disk holding " + directory)
    : refusal.code === "EACCES" || refusal.code === "EPERM" || refusal.code === "EROFS"
    ? unavailable(
      `${what}: ${refusal.message}`,
      "Check that this user may write the directory (and that its file system is not read-only)"
    )
    : unavailable(`${what}: ${refusal.message}`, "Check the directory")
