// kill -9 of a process in the middle of its turns: what it had committed is all there, nothing is
// half-written, and the database opens again (the embedded one takes over the dead process's lock).
import { assert, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { Audit, Database, Sessions } from "../src/index.js"
import { describeEngines, type Engine } from "./engines.js"
import { tools } from "./fixtures.js"

// The compiled fixture (npm test builds it first; alone: npx tsc -b packages/store).
const script = fileURLToPath(new URL("../dist/test/fixtures/turnLoop.js", import.meta.url))

interface Committed {
  readonly turn: number
  readonly activated: ReadonlyArray<string>
  readonly calls: number
}

/** Runs the turn loop on `database` and kills it with SIGKILL once `turns` turns have committed. */
const runAndKill = (database: string, turns: number, env: Record<string, string> = {}) =>
  new Promise<ReadonlyArray<Committed>>((resolve, reject) => {
    if (!Fs.existsSync(script)) return reject(new Error(`${script} is missing: build first (npx tsc -b)`))
    // The compiled fixtures import other packages' test kits, exported only under this condition.
    const child = spawn(process.execPath, ["--conditions=@tool-search/test-kit", script], {
      env: { ...process.env, TOOL_SEARCH_DATABASE: database, ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    const committed: Array<Committed> = []
    let out = ""
    let err = ""
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()))
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const lines = out.split("\n")
      out = lines.pop() ?? ""
      for (const line of lines) committed.push(JSON.parse(line) as Committed)
      // the loop goes straight on with the next turn: the kill lands in the middle of it
      if (committed.length >= turns) child.kill("SIGKILL")
    })
    child.once("exit", (code, signal) =>
      signal === "SIGKILL"
        ? resolve(committed)
        : reject(new Error(`the turn loop exited by itself (${code}): ${err}`)))
  })

/** A temporary directory, removed with the scope. */
const tempDir = (prefix: string) =>
  Effect.acquireRelease(
    Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), prefix))),
    (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  )

/**
 * A fresh database: on the embedded engine a new directory, created (and migrated) here, so that
 * the process killed only opens it — this test's subject is the kill, not the creation (which
 * Database.test.ts covers), and the embedded database of this process starts from the test
 * template (`vitest.pglite.ts`) where a new process would run initdb.
 */
const freshLocation = (engine: Engine) =>
  engine.name === "embedded"
    ? Effect.gen(function*() {
      const location: Database.Location = {
        _tag: "Embedded",
        path: Path.join(yield* tempDir("tool-search-crash-"), "db")
      }
      yield* Effect.orDie(Effect.scoped(Layer.build(Database.layer(location))))
      return location
    })
    : engine.fresh

const written = (location: Database.Location) =>
  location._tag === "Postgres" ? Redacted.value(location.url) : location._tag === "Embedded" ? location.path : "memory"

describeEngines("kill -9 mid-turn", (engine) => {
  it.live("killed inside a transaction: none of it is there, and the rest is", () =>
    Effect.gen(function*() {
      const location = yield* freshLocation(engine)
      const journal = yield* tempDir("tool-search-crash-journal-")
      const committed = yield* Effect.promise(() =>
        runAndKill(written(location), 1_000, { CRASH_IN_TRANSACTION: "2", TOOL_SEARCH_JOURNAL: journal })
      )
      assert.strictEqual(committed.length, 2)
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient
        const half = yield* sql<{ readonly n: number }>`
          SELECT (SELECT count(*) FROM tool_search_sessions WHERE session_id = 'half')
               + (SELECT count(*) FROM tool_search_audit_calls WHERE turn_id = 'half') AS n`
        assert.strictEqual(Number(half[0]?.n), 0)
        const sessions = yield* Sessions.make()
        const state = Option.getOrThrow(yield* sessions.get("crash"))
        for (const id of committed.flatMap((c) => c.activated)) assert.include(state.accumulated, id)
      }).pipe(Effect.provide(Database.layer(location)))
    }), 180_000)

  it.live(
    "what was committed is all there; nothing is half-written; the database opens again",
    () =>
      Effect.gen(function*() {
        const location = yield* freshLocation(engine)
        const url = location._tag === "Postgres"
          ? Redacted.value(location.url)
          : location._tag === "Embedded"
          ? location.path
          : ""
        // the audit is written behind, and kept in a journal until written: the next process writes it
        const journal = yield* tempDir("tool-search-crash-journal-")
        const committed = yield* Effect.promise(() => runAndKill(url, 4, { TOOL_SEARCH_JOURNAL: journal }))
        assert.isAtLeast(committed.length, 4)

        yield* Effect.gen(function*() {
          const sessions = yield* Sessions.make()
          const state = Option.getOrThrow(yield* sessions.get("crash"))
          const known = new Set(tools.map((t) => t.id))
          // everything the committed turns activated is there, once, and nothing that no turn could have
          const expected = new Set(committed.flatMap((c) => c.activated))
          for (const id of expected) assert.include(state.accumulated, id)
          assert.strictEqual(new Set(state.accumulated).size, state.accumulated.length)
          for (const id of state.accumulated) assert.isTrue(known.has(id), id)

          // the audit: every committed turn's calls; every row whole
          const audit = yield* Audit.make({ retention: "3650 days" })
          const entries = yield* audit.entries({ sessionId: "crash", limit: 100_000 })
          const calls = entries.filter((e) => e._tag === "Call")
          assert.isAtLeast(calls.length, committed.reduce((n, c) => n + c.calls, 0))
          assert.isAtLeast(new Set(calls.map((c) => c.turnId)).size, committed.length)
          for (const c of calls) {
            assert.isTrue(c.toolName !== "" && c.outcome !== "" && c.turnId !== "" && c.durationMs >= 0)
          }
          const sql = yield* SqlClient
          const [check] = yield* sql<{ readonly reveals: number; readonly broken: number }>`
          SELECT count(*)::int AS reveals,
                 count(*) FILTER (WHERE cardinality(found) < cardinality(activated))::int AS broken
          FROM tool_search_audit_reveals`
          assert.isAbove(check!.reveals, 0)
          assert.strictEqual(check!.broken, 0)
        }).pipe(Effect.provide(Database.layer(location, { writeBehind: { journal } })))
      }),
    180_000
  )
})
