import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Database, Migrations } from "../src/index.js"

const tempDir = () => Fs.mkdtempSync(Path.join(Os.tmpdir(), "tool-search-db-"))

describe("Database", () => {
  it.effect(
    "an embedded database in a directory: migrated at start, data kept across opens",
    () =>
      Effect.gen(function*() {
        const dir = Path.join(tempDir(), "db")
        const location = Database.parse(dir)
        assert(typeof location !== "string")
        const first = yield* Effect.gen(function*() {
          const sql = yield* SqlClient
          yield* sql`INSERT INTO tool_search_feedback ${
            sql.insert({ catalog: "c", query: "q", tool_id: "t", count: 1, last_seen: new Date(0) })
          }`
          return yield* Migrations.current
        }).pipe(Effect.provide(Database.layer(location)))
        assert.strictEqual(first, Migrations.latest)
        const rows = yield* Effect.gen(function*() {
          const sql = yield* SqlClient
          return yield* sql<{ count: number }>`SELECT count(*)::int AS count FROM tool_search_feedback`
        }).pipe(Effect.provide(Database.layer(location)))
        assert.deepStrictEqual(rows, [{ count: 1 }])
      }),
    60_000
  )
})
