// `tool-search serve --database`: MCP sessions that outlive the gateway serving them. The official
// SDK client over Streamable HTTP initializes a session and loads a tool on one gateway; that
// gateway stops; a new one on the same database serves the client's next request — same
// `mcp-session-id`, no new `initialize`, no new search. On PostgreSQL, two gateways at once serve
// one session. Another credential presenting the session id is refused; the database lost
// mid-run does not stop a session (its writes are held and written back); `tool-search audit
// --session <id>` shows the gateway's reveals and calls.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Keyword, ToolCatalog } from "@tool-search/core"
import { deferAlways } from "@tool-search/core/test-kit"
import { Gateway, HttpGateway, McpSources, type Upstream } from "@tool-search/mcp"
import { Audit, Database, GatewayStore } from "@tool-search/store"
import { Duration, Effect, Exit, Layer, Logger, Option, Redacted, Scope } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { TestClock, TestConsole } from "effect/testing"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Duplex } from "node:stream"
import * as GatewayDatabase from "../src/GatewayDatabase.js"
import { runCli } from "./runCli.js"

const postgres = process.env.TOOL_SEARCH_TEST_POSTGRES || undefined
const skipped = " (skipped: no PostgreSQL server; TOOL_SEARCH_TEST_POSTGRES is not set, bash .ci/run starts one)"
if (postgres === undefined) console.warn(`serve --database on PostgreSQL is not tested here${skipped}`)

const tokens = [Redacted.make("alice-secret"), Redacted.make("bob-secret")]
const alice = { authorization: "Bearer alice-secret" }
const bob = { authorization: "Bearer bob-secret" }

const store: GatewayDatabase.Settings = {
  database: { _tag: "Memory" },
  databaseTimeout: Duration.seconds(5),
  auditPayloads: false,
  auditRetention: Duration.days(90)
}

/** An upstream MCP server with three tools, in this process; it counts the calls it gets. */
const upstream = () => {
  const calls: Array<string> = []
  const tools = [
    ["send_email", "Send an email message to a recipient"],
    ["create_issue", "Create an issue in the bug tracker"],
    ["read_file", "Read a file from disk"]
  ].map(([name, description]) => ({ name, description, inputSchema: { type: "object", properties: {} } }))
  const transport: Upstream.Custom = {
    _tag: "Custom",
    make: Effect.promise(async () => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      const server = new Server({ name: "work", version: "1" }, { capabilities: { tools: {} } })
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }))
      server.setRequestHandler(CallToolRequestSchema, (request) => {
        calls.push(request.params.name)
        return { content: [{ type: "text", text: `${request.params.name} done` }] }
      })
      await server.connect(serverSide)
      return clientSide
    })
  }
  return { calls, transport }
}

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

/**
 * A gateway on `db` over `work`, listening on a free port until `scope` closes: one gateway
 * process (a database layer is opened with it and closed with it).
 */
const gateway = (
  db: Layer.Layer<Database.Database | SqlClient, Database.DatabaseUnavailable>,
  work: ReturnType<typeof upstream>,
  scope: Scope.Scope,
  limits = { maxSessions: 100, sessionIdleTimeout: 3600 }
) =>
  Effect.gen(function*() {
    const context = yield* Effect.orDie(Layer.build(
      McpSources.layer([{ name: "work", transport: work.transport }]).pipe(
        Layer.provideMerge(ToolCatalog.layer.pipe(Layer.provide(Keyword.layer))),
        Layer.provideMerge(deferAlways), // the fake server's few tools: defer anyway
        Layer.provideMerge(
          GatewayDatabase.layerOn(store, limits, { feedback: true })
        ),
        Layer.provide(db),
        Layer.provide(Logger.layer([]))
      )
    ))
    return yield* Effect.orDie(
      HttpGateway.serve({
        port: 0,
        tokens,
        maxSessions: limits.maxSessions,
        sessionIdleTimeout: Duration.seconds(limits.sessionIdleTimeout)
      }).pipe(Gateway.withSources, Effect.provideContext(context))
    )
  }).pipe(Scope.provide(scope), Effect.provide(Logger.layer([])))

/** The official client on `url`: a new session, or with `sessionId` the client reconnecting to its own. */
const connect = (url: string, headers: Record<string, string>, sessionId?: string) =>
  Effect.promise(async () => {
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers },
      ...(sessionId === undefined ? {} : { sessionId })
    })
    const client = new Client({ name: "db-test", version: "1" })
    await client.connect(transport)
    return { client, transport, id: transport.sessionId ?? "" }
  })

const names = (client: Client) => Effect.promise(async () => (await client.listTools()).tools.map((t) => t.name))
const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  Effect.promise(async () => {
    const result = await client.callTool({ name, arguments: args })
    const content = result.content as ReadonlyArray<{ readonly text?: string }>
    return { text: content.map((c) => c.text ?? "").join("\n"), isError: result.isError === true }
  })

/** A raw `tools/list` with a session id, as an attacker who learnt it sends it. */
const steal = (url: string, id: string, headers: Record<string, string>) =>
  Effect.promise(async () =>
    (await fetch(url, {
      method: "POST",
      headers: {
        ...headers,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": id
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" })
    })).status
  )

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
      Effect.gen(function*() {
        const dir = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "tool-search-serve-db-")), "db")
        try {
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
        } finally {
          Fs.rmSync(Path.dirname(dir), { recursive: true, force: true })
        }
      }),
    { timeout: 60_000 }
  )

  it.live(
    "the database lost mid-run: the session goes on, and its writes reach the database when it is back",
    () =>
      Effect.gen(function*() {
        const work = upstream()
        const plug = cuttable()
        // one in-memory database for both gateways: it lives as long as the test
        const db = Layer.succeedContext(
          yield* Layer.build(Database.layer({ _tag: "Memory" }, { wrapConnection: plug.wrap }))
        )
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
        yield* Scope.close(first, Exit.void) // closing writes what was held
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
        const feedback = yield* Effect.flatMap(
          Effect.service(SqlClient),
          (sql) =>
            sql<{ readonly tool_id: string; readonly query: string }>`SELECT tool_id, query FROM tool_search_feedback`
        ).pipe(Effect.orDie, Effect.provide(db))
        assert.deepStrictEqual(feedback.map((r) => `${r.tool_id}: ${r.query}`), [
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
        const onB = yield* connect(b.url, alice, onA.id)
        assert.deepStrictEqual(yield* call(onB.client, "send_email"), { text: "send_email done", isError: false })
        yield* call(onB.client, "ToolSearch", { query: "read a file from disk" })
        // A learns what B loaded at its next request
        assert.includeMembers(yield* names(onA.client), ["send_email", "read_file"])
        assert.strictEqual(yield* steal(b.url, onA.id, bob), 404)
        const stored = yield* GatewayStore.sessions({ maxSessions: 100, idleTimeout: "1 hour" }).pipe(
          Effect.flatMap((s) => s.load(onA.id, "")),
          Effect.provide(Database.layer(location)),
          Effect.scoped
        )
        assert.isTrue(Option.isNone(stored)) // no session under an empty credential
      }), { timeout: 60_000 })
  })
})
