// `tool-search serve --database`: MCP sessions that outlive the gateway serving them. The official
// SDK client over Streamable HTTP initializes a session and loads a tool on one gateway; that
// gateway stops; a new one on the same database serves the client's next request — same
// `mcp-session-id`, no new `initialize`, no new search. On PostgreSQL, two gateways at once serve
// one session. Another credential presenting the session id is refused; the database lost
// mid-run does not stop a session (its writes are held and written back); `tool-search audit
// --session <id>` shows the gateway's reveals and calls.
import { assert, describe, it } from "@effect/vitest"
import { Audit, Database, GatewayStore, WriteBehind } from "@tool-search/store"
import { Context, Effect, Exit, Layer, Option, Redacted, Scope } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { TestClock, TestConsole } from "effect/testing"
import { Duplex } from "node:stream"
import { alice, bob, call, connect, gateway, names, secret, steal, until, upstream } from "./databaseGateway.js"
import { runCli } from "./runCli.js"
import { withTempDatabase } from "./tempDatabase.js"

const postgres = process.env.TOOL_SEARCH_TEST_POSTGRES || undefined
const skipped = " (skipped: no PostgreSQL server; TOOL_SEARCH_TEST_POSTGRES is not set, bash .ci/run starts one)"
if (postgres === undefined) console.warn(`serve --database on PostgreSQL is not tested here${skipped}`)

/** A database connection that the test can cut (the database gone) and restore. */
const cuttable = () => {
  let cut = false
  const open = new Set<Duplex>()
  return {
    wrap: (connect: () => Duplex): Duplex => {
      if (!cut) {
        const stream = connect()
        open.add(stream)
        stream.once("close", () => open.delete(stream))
        return stream
      }
      const refused = new Duplex({ read() {}, write: (_c, _e, done) => done(new Error("connection refused (cut)")) })
      process.nextTick(() => refused.destroy(new Error("connection refused (cut)")))
      return refused
    },
    cut: () => {
      cut = true
      for (const stream of open) stream.destroy(new Error("connection lost (cut)"))
    },
    restore: () => {
      cut = false
    }
  }
}

/** Client 1 loads `send_email` on one gateway; the gateway stops; a new one serves its session. */
const restartStory = (location: Database.Location) =>
  Effect.gen(function*() {
    const work = upstream()
    const first = yield* Scope.make()
    const a = yield* gateway(Database.layer(location), work, first)
    const client1 = yield* connect(a.url, alice)
    assert.deepStrictEqual(yield* names(client1.client), ["ToolSearch", "call_tool"])
    const found = yield* call(client1.client, "ToolSearch", { query: "send an email message" })
    assert.match(found.text, /Loaded: send_email/)
    const loaded = yield* names(client1.client)
    yield* Scope.close(first, Exit.void) // the gateway (and its database) stop; the client stays

    const second = yield* Scope.make()
    const b = yield* gateway(Database.layer(location), work, second)
    // another credential with the stolen id: the store holds the session for Alice's token only
    assert.strictEqual(yield* steal(b.url, client1.id, bob), 404)
    const client2 = yield* connect(b.url, alice, client1.id)
    // what the session had loaded, in its order
    assert.deepStrictEqual(yield* names(client2.client), loaded)
    const sent = yield* call(client2.client, "send_email", { to: "ops" })
    assert.deepStrictEqual(sent, { text: "send_email done", isError: false })
    assert.deepStrictEqual(work.calls, ["send_email"])
    // now live on this gateway: still refused to Bob
    assert.strictEqual(yield* steal(b.url, client1.id, bob), 404)
    // the client ends its session: it is gone from the store too
    yield* Effect.promise(() => client2.transport.terminateSession())
    assert.strictEqual(yield* steal(b.url, client1.id, alice), 404)
    yield* Scope.close(second, Exit.void)
    return { id: client1.id, loaded }
  })

describe("tool-search serve --database", () => {
  it.live(
    "embedded: a gateway restarted on the same database resumes the client's session and its loaded tool",
    () =>
      withTempDatabase(Effect.fn(function*(dir: string) {
        const { id, loaded } = yield* restartStory({ _tag: "Embedded", path: dir })
        // the gateway's audit: the reveal and the call of that session, read as any session's
        const audit = yield* runCli(["audit", "--json", "--session", id], { TOOL_SEARCH_DATABASE: dir }).pipe(
          Effect.provide(TestConsole.layer)
        )
        assert.isTrue(Exit.isSuccess(audit.exit), audit.err)
        const entries = audit.out.split("\n").map((l) => JSON.parse(l))
        assert.deepStrictEqual(
          entries.map((e) => e.type === "reveal" ? `reveal ${e.query} -> ${e.activated}` : `${e.type} ${e.tool}`),
          [`reveal send an email message -> ${loaded.slice(2).join(",")}`, "call send_email"]
        )
        assert.strictEqual(entries[1].source, "work")
        assert.strictEqual(entries[1].outcome, "ok")
        assert.notProperty(entries[1], "arguments")
      })),
    { timeout: 60_000 }
  )

  it.live(
    "the database lost mid-run: the session goes on, and its writes reach the database when it is back",
    () =>
      Effect.gen(function*() {
        const work = upstream()
        const plug = cuttable()
        // one in-memory database for both gateways: it lives as long as the test
        const store = yield* Layer.build(Database.layer({ _tag: "Memory" }, { wrapConnection: plug.wrap }))
        const db = Layer.succeedContext(store)
        const first = yield* Scope.make()
        const a = yield* gateway(db, work, first)
        const client1 = yield* connect(a.url, alice)
        plug.cut()
        const found = yield* call(client1.client, "ToolSearch", { query: "create an issue in the bug tracker" })
        assert.match(found.text, /Loaded: create_issue/)
        assert.deepStrictEqual(yield* call(client1.client, "create_issue"), {
          text: "create_issue done",
          isError: false
        })
        plug.restore()
        yield* Scope.close(first, Exit.void)
        // A gateway process closes its store with it, and closing the store writes what was held. Here
        // both gateways share the test's database and its writer, which outlives the first: it is
        // closed as that process's would be (what it held written before the next gateway starts).
        // Without this, the next gateway raced the writer's retry and could resume the session from
        // a database without its `create_issue` yet.
        yield* Context.get(store, WriteBehind.WriteBehind).flush.pipe(
          Effect.retry({ while: (e) => e.retryable, times: 3 }), // a pooled connection the cut left behind
          Effect.orDie
        )
        const b = yield* gateway(db, work, yield* Scope.make())
        const client2 = yield* connect(b.url, alice, client1.id)
        assert.include(yield* names(client2.client), "create_issue")
        // the audit entries were held too
        const entries = yield* Effect.flatMap(
          Effect.service(Audit.Audit),
          (audit) => Effect.orDie(audit.entries({ sessionId: client1.id }))
        ).pipe(Effect.provide(Audit.Audit.layer().pipe(Layer.provide(db))))
        assert.deepStrictEqual(entries.map((e) => e._tag), ["Reveal", "Call"])
        // with the database back, a search whose hit the client then calls is search feedback there
        yield* call(client2.client, "ToolSearch", { query: "read a file from disk" })
        yield* call(client2.client, "read_file")
        const feedback = yield* Effect.gen(function*() {
          yield* (yield* WriteBehind.WriteBehind).flush // feedback is written behind
          const sql = yield* SqlClient
          return yield* sql<{ readonly tool_id: string; readonly query: string }>`
            SELECT tool_id, query FROM tool_search_feedback ORDER BY tool_id`
        }).pipe(Effect.orDie, Effect.provide(db))
        // the evidence of the call made during the outage was held too
        assert.deepStrictEqual(feedback.map((r) => `${r.tool_id}: ${r.query}`), [
          "work/create_issue: create an issue in the bug tracker",
          "work/read_file: read a file from disk"
        ])
      }),
    { timeout: 60_000 }
  )

  it.effect(
    "the session limits hold in the store: an evicted session is gone from it, an idle one expires there",
    () =>
      Effect.gen(function*() {
        const db = Layer.succeedContext(yield* Layer.build(Database.layer({ _tag: "Memory" })))
        const limits = { maxSessions: 1, sessionIdleTimeout: 60 }
        const a = yield* gateway(db, upstream(), yield* Scope.make(), limits)
        const first = yield* connect(a.url, alice)
        const second = yield* connect(a.url, alice) // one session at most: the first is evicted
        assert.strictEqual(yield* steal(a.url, first.id, alice), 404)
        // another gateway on the database resumes the second, not the evicted first
        const b = yield* gateway(db, upstream(), yield* Scope.make(), limits)
        assert.strictEqual(yield* steal(b.url, first.id, alice), 404)
        assert.strictEqual(yield* steal(b.url, second.id, alice), 200)
        yield* TestClock.adjust("61 seconds") // the second one idles past the timeout
        const c = yield* gateway(db, upstream(), yield* Scope.make(), limits)
        assert.strictEqual(yield* steal(c.url, second.id, alice), 404)
      }),
    { timeout: 60_000 }
  )

  describe.skipIf(postgres === undefined)(`on PostgreSQL${postgres === undefined ? skipped : ""}`, () => {
    it.live(
      "a gateway restarted on the server resumes the session",
      () => Effect.asVoid(restartStory({ _tag: "Postgres", url: Redacted.make(postgres ?? "") })),
      { timeout: 60_000 }
    )

    it.live("two gateways at once serve one session: what one loads, the other serves", () =>
      Effect.gen(function*() {
        const location: Database.Location = { _tag: "Postgres", url: Redacted.make(postgres ?? "") }
        const work = upstream()
        const a = yield* gateway(Database.layer(location), work, yield* Scope.make())
        const b = yield* gateway(Database.layer(location), work, yield* Scope.make())
        const onA = yield* connect(a.url, alice)
        yield* call(onA.client, "ToolSearch", { query: "send an email message" })
        const listed = yield* names(onA.client)
        const onB = yield* connect(b.url, alice, onA.id)
        assert.deepStrictEqual(yield* call(onB.client, "send_email"), { text: "send_email done", isError: false })
        yield* call(onB.client, "ToolSearch", { query: "read a file from disk" })
        // A's live copy follows what B loaded (B announced it), and A tells its client
        yield* Effect.promise(() => until(() => onA.listChanged() > 0))
        assert.includeMembers(yield* names(onA.client), ["send_email", "read_file"])
        assert.includeMembers(yield* names(onA.client), listed)
        assert.strictEqual(yield* steal(b.url, onA.id, bob), 404)
        const stored = yield* GatewayStore.sessions({ maxSessions: 100, idleTimeout: "1 hour", secret }).pipe(
          Effect.flatMap((s) => s.load(onA.id, "")),
          Effect.provide(Database.layer(location)),
          Effect.scoped
        )
        assert.isTrue(Option.isNone(stored)) // no session under an empty credential
      }), { timeout: 60_000 })
  })
})
