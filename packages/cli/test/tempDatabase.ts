// An embedded database of its own for a test, in a temporary directory removed when the test ends.
import { Effect } from "effect"
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
