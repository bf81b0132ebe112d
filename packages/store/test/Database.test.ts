import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { execFileSync, spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { Database, Migrations, StoreError } from "../src/index.js"
import { describeEngines } from "./engines.js"

const tempDir = () => Fs.mkdtempSync(Path.join(Os.tmpdir(), "tool-search-db-"))

const embeddedAt = (path: string): Database.Location => ({ _tag: "Embedded", path })

/** What opening `location` fails with. */
const openFailure = (location: Database.Location) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(Effect.scoped(Layer.build(Database.layer(location, { timeout: "5 seconds" }))))
    assert(Exit.isFailure(exit), "the database opened")
    const error = yield* Effect.flip(exit)
    return error
  })

const count = (table: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient
    const rows = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM ${sql(table)}`
    return rows[0]?.n ?? -1
  })

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = Net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

describe("Database locations", () => {
  it("reads memory, PostgreSQL URLs and directories; refuses other schemes", () => {
    assert.deepStrictEqual(Database.parse("memory"), { _tag: "Memory" })
    const pg = Database.parse("postgres://tool:s3cret@db.internal:5433/agents")
    assert(typeof pg !== "string" && pg._tag === "Postgres")
    assert.strictEqual(Redacted.value(pg.url), "postgres://tool:s3cret@db.internal:5433/agents")
    assert.strictEqual(Database.describe(pg), "'postgres://tool:***@db.internal:5433/agents'")
    assert.notInclude(String(pg.url), "s3cret")
    assert.deepStrictEqual(Database.parse("data/db"), embeddedAt(Path.resolve("data/db")))
    assert.deepStrictEqual(Database.parse("~/x"), embeddedAt(Path.join(Os.homedir(), "x")))
    assert.match(String(Database.parse("mysql://h/db")), /only postgres:\/\/ URLs/)
    assert.match(String(Database.parse("postgres://")), /host|valid/)
    assert.match(String(Database.parse("  ")), /expected/)
    assert.strictEqual(
      Database.defaultPath({ XDG_DATA_HOME: "/data" }, "linux"),
      Path.join("/data", "tool-search", "database")
    )
  })
})

describe("Database (embedded)", () => {
  it.effect(
    "a directory: migrated at start, kept across opens, released for the next process",
    () =>
      Effect.gen(function*() {
        const path = Path.join(tempDir(), "db")
        const location = embeddedAt(path)
        const version = yield* Effect.gen(function*() {
          const sql = yield* SqlClient
          yield* sql`INSERT INTO tool_search_feedback ${
            sql.insert({ catalog: "c", query: "q", tool_id: "t", count: 1, last_seen: new Date(0), seq: 1 })
          }`
          return yield* Migrations.current
        }).pipe(Effect.provide(Database.layer(location)))
        assert.strictEqual(version, Migrations.latest)
        assert.strictEqual(yield* count("tool_search_feedback").pipe(Effect.provide(Database.layer(location))), 1)
        // a damaged copy: named so, with the way out (PGlite itself says "Aborted()" or "failed to initialize")
        const copy = Path.join(tempDir(), "copy")
        Fs.cpSync(path, copy, { recursive: true })
        Fs.rmSync(Path.join(copy, "journal"), { recursive: true, force: true })
        const control = Path.join(copy, "global", "pg_control")
        Fs.writeFileSync(control, Buffer.alloc(Fs.statSync(control).size, 0x5a))
        const damaged = yield* openFailure(embeddedAt(copy))
        assert.match(damaged.message, /its files could not be read: they are damaged/)
        assert.match(damaged.message, /Restore the directory from a backup; or move it aside/)
      }),
    120_000
  )

  it.effect(
    "a full disk is named, with the free space and what to do (a small tmpfs, where one can be mounted)",
    () =>
      Effect.gen(function*() {
        const dir = tempDir()
        try {
          execFileSync("mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", dir], { stdio: "ignore" })
        } catch {
          console.warn("a full disk is not tested here: no tmpfs can be mounted (not root, or no CAP_SYS_ADMIN)")
          return
        }
        try {
          const error = yield* openFailure(embeddedAt(Path.join(dir, "db")))
          assert.match(
            error.message,
            /the disk holding .* is full \([\d.]+ MiB free; the embedded PostgreSQL needs at least/
          )
          assert.match(error.message, /Free space on that disk/)
        } finally {
          execFileSync("umount", ["-l", dir]) // lazily: the failed engine may still hold a file open
        }
      }),
    60_000
  )

  it.effect("in use by a live process: refused, naming the process and what to do", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      Fs.writeFileSync(Path.join(dir, "tool-search.lock"), `${process.ppid}\n`)
      const error = yield* openFailure(embeddedAt(dir))
      assert.strictEqual(error._tag, "DatabaseUnavailable")
      assert.include(error.message, `in use by process ${process.ppid}`)
      assert.include(error.message, "postgres://")
    }))

  it.effect("a lock left by a killed process is taken over", () =>
    Effect.gen(function*() {
      const dir = Path.join(tempDir(), "db")
      yield* count("tool_search_sessions").pipe(Effect.provide(Database.layer(embeddedAt(dir))))
      const dead = spawnSync(process.execPath, ["-e", ""]).pid
      Fs.writeFileSync(Path.join(dir, "tool-search.lock"), `${dead}\n`)
      assert.strictEqual(yield* count("tool_search_sessions").pipe(Effect.provide(Database.layer(embeddedAt(dir)))), 0)
      assert.isFalse(Fs.existsSync(Path.join(dir, "tool-search.lock")))
    }), 60_000)

  it.effect("a file, or a directory holding something else, is refused and left untouched", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = Path.join(dir, "tool-search.db")
      Fs.writeFileSync(file, "not a database")
      assert.include((yield* openFailure(embeddedAt(file))).message, "it is a file, not a directory")
      const home = Path.join(dir, "home")
      Fs.mkdirSync(home)
      Fs.writeFileSync(Path.join(home, "notes.txt"), "mine")
      assert.include((yield* openFailure(embeddedAt(home))).message, "not empty and holds no database")
      assert.deepStrictEqual(Fs.readdirSync(home), ["notes.txt"])
    }))

  it.live(
    "a failed statement or an interrupted transaction leaves the connection clean",
    () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient
        assert.match(StoreError.describeSqlError(yield* Effect.flip(sql`SELECT 1/0`)), /division by zero/)
        yield* sql.withTransaction(Effect.andThen(
          sql`INSERT INTO tool_search_feedback ${
            sql.insert({ catalog: "c", query: "q", tool_id: "half", count: 1, last_seen: new Date(0), seq: 1 })
          }`,
          Effect.never
        )).pipe(Effect.timeout("50 millis"), Effect.ignore)
        assert.strictEqual(yield* count("tool_search_feedback"), 0)
        assert.deepStrictEqual(yield* sql`SELECT 2 AS two`, [{ two: 2 }])
      }).pipe(Effect.provide(Database.layer({ _tag: "Memory" }))),
    60_000
  )
})

describe("Database (postgresql, down)", () => {
  it.effect("no server at the URL: a clear error naming the database (no password) and what to do", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(freePort)
      const error = yield* openFailure({
        _tag: "Postgres",
        url: Redacted.make(`postgres://tool:s3cret@127.0.0.1:${port}/agents`)
      })
      assert.strictEqual(error._tag, "DatabaseUnavailable")
      assert.include(error.message, `Cannot open the database 'postgres://tool:***@127.0.0.1:${port}/agents'`)
      assert.include(error.message, "Is the server running and reachable")
      assert.notInclude(error.message, "s3cret")
    }))
})

describeEngines("Database", (engine) => {
  it.effect("a schema newer than this code is refused", () =>
    Effect.gen(function*() {
      const location = yield* engine.fresh
      if (location._tag === "Memory") {
        // an in-memory database ends with its layer: check the rule on one layer's client
        const error = yield* Effect.gen(function*() {
          const sql = yield* SqlClient
          yield* sql`INSERT INTO tool_search_migrations (migration_id, name) VALUES (${
            Migrations.latest + 1
          }, 'future')`
          return yield* Effect.flip(Migrations.run)
        }).pipe(Effect.provide(Database.layer(location)))
        assert.strictEqual(error._tag, "SchemaTooNew")
        return
      }
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient
        yield* sql`INSERT INTO tool_search_migrations (migration_id, name) VALUES (${Migrations.latest + 1}, 'future')`
      }).pipe(Effect.provide(Database.layer(location)))
      const error = yield* openFailure(location)
      assert.include(error.message, `newer than this tool-search knows (${Migrations.latest})`)
      assert.include(error.message, "Upgrade tool-search")
    }), 60_000)

  it.effect("instances starting at once migrate once", () =>
    Effect.gen(function*() {
      const location = yield* engine.fresh
      if (location._tag === "Memory") return // one process, one in-memory database: nothing to race
      const versions = yield* Effect.all(
        Array.from({ length: 4 }, () => Migrations.current.pipe(Effect.provide(Database.layer(location)))),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(versions, [Migrations.latest, Migrations.latest, Migrations.latest, Migrations.latest])
    }), 60_000)
})
