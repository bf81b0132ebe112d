import { assert, layer } from "@effect/vitest"
import { Executor } from "@tool-search/agent"
import { Effect, Layer, Stream } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { TestClock } from "effect/testing"
import { Audit, AuditRecorder, Migrations, StoreError, WriteBehind } from "../src/index.js"
import { acceptTestClock, describeEngines, driveUntil, freshDatabase, itLosesDatabase } from "./engines.js"
import { agentInMemory, user } from "./fixtures.js"

/** Writes what the store holds (the audit is written behind). */
const flush = Effect.flatMap(Effect.service(WriteBehind.WriteBehind), (w) => w.flush)

let sessions = 0
const newSession = () => `session-${sessions++}`

/** Runs one turn, recording its events. */
const turn = (sessionId: string, text: string) =>
  Effect.gen(function*() {
    const executor = yield* Executor.Executor
    yield* Stream.runDrain(AuditRecorder.tap(executor.stream({ sessionId, prompt: user(text) })))
  })

const entriesOf = (sessionId: string) =>
  Effect.gen(function*() {
    const audit = yield* Audit.Audit
    return yield* audit.entries({ sessionId })
  })

/** Runs `effect` with an audit (on the database in context) and the test agent. */
const withAudit = (options: Audit.Options = {}) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.provide(Layer.merge(Audit.Audit.layer(options), agentInMemory())))

describeEngines("Audit", (engine) => {
  layer(freshDatabase(engine), { timeout: 60_000 })((it) => {
    it.effect("a turn's reveals and calls: session, unit, query, found, activated, tool id, source, outcome", () =>
      withAudit()(Effect.gen(function*() {
        const session = newSession()
        yield* turn(session, "tell #ops the deploy is done")
        yield* turn(session, "run the broken tool")
        const entries = yield* entriesOf(session)
        const reveals = entries.filter((e) => e._tag === "Reveal")
        const calls = entries.filter((e) => e._tag === "Call")
        assert.deepStrictEqual(reveals.map((r) => [r.tool, r.query, r.activated, r.path]), [
          ["ToolSearch", "send chat message", ["chat_send_message"], []],
          ["ToolSearch", "fails", ["broken_tool"], []]
        ])
        assert.include(reveals[0]!.found, "chat_send_message")
        assert.deepStrictEqual(
          calls.map((c) => [c.toolName, c.toolId, c.source, c.outcome]),
          [
            ["ToolSearch", null, null, "ok"],
            ["chat_send_message", "chat_send_message", "chat", "ok"],
            ["ToolSearch", null, null, "ok"],
            ["broken_tool", "broken_tool", "broken", "failed"]
          ]
        )
        for (const e of [...reveals, ...calls]) assert.strictEqual(e.sessionId, session)
        // two turns, two turn ids; no payloads by default
        assert.strictEqual(new Set(calls.map((c) => c.turnId)).size, 2)
        for (const c of calls) {
          assert.isAtLeast(c.durationMs, 0)
          assert.notProperty(c, "arguments")
          assert.notProperty(c, "result")
        }
      })))

    it.effect("a fork's entries carry its unit path and its turn's session", () =>
      withAudit()(Effect.gen(function*() {
        const session = newSession()
        yield* turn(session, "ask a helper")
        const calls = (yield* entriesOf(session)).filter((e) => e._tag === "Call")
        const forked = calls.filter((c) => c.path.length > 0)
        assert.isAbove(forked.length, 0)
        for (const c of forked) assert.deepStrictEqual(c.path, ["fork-1"])
        assert.include(calls.map((c) => c.toolName), "delegate_task")
        assert.strictEqual(new Set(calls.map((c) => c.turnId)).size, 1)
      })))

    it.effect("payloads only when on; bounded; NUL from a tool or a model is stored, not fatal", () =>
      Effect.gen(function*() {
        const without = newSession()
        yield* withAudit()(turn(without, "echo a big secret"))
        const session = newSession()
        yield* withAudit({ payloads: true })(Effect.gen(function*() {
          yield* turn(session, "echo a big secret")
          yield* turn(session, "echo a NUL")
        }))
        yield* withAudit()(Effect.gen(function*() {
          const plain = (yield* entriesOf(without)).filter((e) => e._tag === "Call" && e.toolName === "echo_back")
          assert.notProperty(plain[0], "arguments")
          const calls = (yield* entriesOf(session)).flatMap((e) =>
            e._tag === "Call" && e.toolName === "echo_back" ? [e] : []
          )
          assert.strictEqual(calls.length, 2)
          const big = calls[0]!
          assert.deepInclude(big.arguments as object, { truncated: true })
          assert.isBelow(JSON.stringify(big.arguments).length, Audit.MAX_PAYLOAD)
          assert.deepStrictEqual(calls[1]!.arguments, { text: "a\ufffdb" })
          const nulSearch = (yield* entriesOf(session)).find((e) => e._tag === "Reveal" && e.query.startsWith("echo"))
          const query = nulSearch?._tag === "Reveal" ? nulSearch.query : ""
          assert.match(query, /^echo\ufffd? text$/u)
        }))
      }))

    it.effect("append-only: the database refuses to change, delete, truncate or backdate an entry", () =>
      withAudit()(Effect.gen(function*() {
        const session = newSession()
        yield* turn(session, "open a ticket for the outage")
        yield* flush
        const sql = yield* SqlClient
        const refused = (statement: Effect.Effect<unknown, SqlError>) =>
          Effect.map(Effect.flip(statement), StoreError.describeSqlError)
        // a row in each table (the row triggers fire per row), dated before anything else here (retention takes them)
        const past = new Date("1960-01-01T00:00:00Z")
        yield* sql`INSERT INTO tool_search_audit_gaps (at, lost_from, lost_until, entries, reason)
          VALUES (${past}, ${past}, ${past}, 1, 'a test gap')`
        yield* sql`INSERT INTO tool_search_audit_intents (entry_id, at, turn_id, unit_path, call_id, tool_name)
          VALUES (${`intent-${session}`}, ${past}, 'intent', '', 'c', 'x')`
        for (const table of Migrations.AUDIT_TABLES) {
          assert.match(
            yield* refused(sql`UPDATE ${sql(table)} SET at = at`),
            /the audit trail is append-only: UPDATE/
          )
          assert.match(yield* refused(sql`DELETE FROM ${sql(table)}`), /the audit trail is append-only: DELETE/)
          assert.match(yield* refused(sql`TRUNCATE ${sql(table)}`), /the audit trail is append-only: TRUNCATE/)
        }
        // dated before the policy allows (the tests' policy is wide, for the test clock): refused
        yield* sql`UPDATE tool_search_audit_policy SET max_backdate = interval '7 days'`
        const forged = yield* refused(sql`INSERT INTO tool_search_audit_calls
          (at, turn_id, session_id, unit_path, call_id, tool_name, outcome, duration_ms)
          VALUES (now() - interval '30 days', 'forged', ${session}, '', 'x', 'rm_rf', 'ok', 1)`)
        assert.match(forged, /the audit trail refuses an entry dated/)
        yield* acceptTestClock
        // a row cannot choose its place or its recording time
        yield* sql`INSERT INTO tool_search_audit_calls
          (id, at, recorded_at, turn_id, session_id, unit_path, call_id, tool_name, outcome, duration_ms)
          VALUES (1, ${past}, ${past}, 'placed', ${session}, '', 'y', 'placed', 'ok', 1)`
        const [placed] = yield* sql<{ readonly id: string; readonly late: boolean }>`
          SELECT id::text AS id, recorded_at > now() - interval '1 hour' AS late
          FROM tool_search_audit_calls WHERE turn_id = 'placed'`
        assert.notStrictEqual(placed?.id, "1")
        assert.isTrue(placed?.late)
        const outcomes = (yield* entriesOf(session)).flatMap((e) => e._tag === "Call" && e.at >= 0 ? [e.outcome] : [])
        assert.deepStrictEqual(outcomes, ["ok", "ok"])
      })))

    it.effect("retention deletes what is older; filters by session and time", () =>
      Effect.gen(function*() {
        const old = newSession()
        const recent = newSession()
        yield* withAudit({ retention: "1 hour" })(Effect.gen(function*() {
          yield* turn(old, "open a ticket for the outage")
          yield* TestClock.adjust("2 hours")
          const since = yield* Effect.clockWith((c) => c.currentTimeMillis)
          yield* turn(recent, "what is the weather in Oslo")
          const audit = yield* Audit.Audit
          assert.isAbove((yield* audit.entries({ since })).length, 0)
          assert.isTrue((yield* audit.entries({ since })).every((e) => e.at >= since))
          // the hourly retention may have run already as the clock moved: either way the old turn is gone
          yield* audit.prune
          assert.deepStrictEqual(yield* audit.entries({ sessionId: old }), [])
          assert.strictEqual((yield* audit.entries({ sessionId: recent })).length, 3)
          assert.strictEqual((yield* audit.entries({ sessionId: recent, limit: 1 })).length, 1)
        }))
      }))
  })

  itLosesDatabase(
    engine,
    "the database lost mid-run: entries are held by bytes and written in order; what did not fit is a gap",
    (plug) =>
      Effect.gen(function*() {
        const audit = yield* Audit.Audit
        const session = newSession()
        yield* turn(session, "tell #ops the deploy is done") // 1 reveal, 2 calls
        yield* audit.flush
        plug.unplug()
        yield* turn(session, "open a ticket for the outage") // 3 entries held
        yield* turn(session, "what is the weather in Oslo") // 3 more: over the memory's bytes
        const held = yield* audit.pending
        assert.isAbove(held, 0)
        assert.isBelow(held, 6)
        plug.replug()
        yield* driveUntil(Effect.map(audit.pending, (n) => n === 0))
        yield* audit.flush
        const entries = yield* audit.entries()
        const mine = entries.flatMap((e) => e._tag !== "Gap" && e.sessionId === session ? [e] : [])
        const gaps = entries.flatMap((e) => e._tag === "Gap" ? [e] : [])
        // every entry is there or counted in the gap, none twice
        assert.deepStrictEqual(gaps.map((g) => g.entries), [6 - held])
        assert.strictEqual(mine.length, 3 + held)
        assert.strictEqual(new Set(mine.map((e) => e.id)).size, mine.length)
      }).pipe(
        Effect.provide(Layer.merge(Audit.Audit.layer(), agentInMemory()))
      ),
    { writeBehind: { heldBytes: 1500 } }
  )
})
