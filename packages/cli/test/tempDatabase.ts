// An embedded database of its own for a test, in a temporary directory removed when the test ends.
import { Database } from "@tool-search/store"
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** Runs `use` with the path of an embedded database in a new temporary directory, removed after `use` ends. */
export const withTempDatabase = <A, E, R>(use: (path: string) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "tool-search-db-"))),
    (dir) => use(join(dir, "db")),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

/**
 * Creates (and migrates) the embedded database at `path` in this process, where a new one starts from
 * the test template (`vitest.pglite.ts`): a process the test starts on it then only opens it instead
 * of running initdb, most of a new embedded database's start (15 s and more on a loaded machine).
 */
export const createDatabase = (path: string): Effect.Effect<void> =>
  Effect.asVoid(Effect.orDie(Effect.scoped(Layer.build(Database.layer({ _tag: "Embedded", path })))))
