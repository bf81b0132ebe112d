// The HTTP gateway shared by several clients, each attacking the others: a batch too large, a
// principal opening session after session, a principal reaching for servers its policy leaves out,
// another token racing a client for its session after a restart. Each attack is a test; the
// official SDK client is the legitimate client.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { SearchFeedback } from "@tool-search/core"
import { Gateway, GatewayAudit, HttpGateway, Principal, SessionState } from "@tool-search/mcp"
import { Deferred, Effect, Fiber, Option, Redacted, Stream } from "effect"
import { TestClock } from "effect/testing"
import { initialize, post } from "./fixtures/Http.js"
import { filesAndMail, text } from "./fixtures/Sessions.js"

const ALICE = "alice-token-0123456789"
const BOB = "bob-token-0123456789ab"

const alice = (policy: Principal.Policy = {}) => Principal.make("alice", [Redacted.make(ALICE)], policy)
const bob = Principal.make("bob", [Redacted.make(BOB)])

/** The gateway over the fake `files` and `mail` servers, on a free loopback port, in the test's scope. */
const start = (options: Partial<HttpGateway.Options> = {}) =>
  Effect.gen(function*() {
    const { context, files, mail } = yield* filesAndMail
    const address = yield* HttpGateway.serve({ port: 0, ...options }).pipe(
      Gateway.withSources,
      Effect.provideContext(context)
    )
    return { address, files, mail }
  })

/** The official SDK client, with a bearer token. */
const client = (url: string, token?: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const c = new Client({ name: "tenant-test", version: "1" })
      const headers = token === undefined ? {} : { authorization: `Bearer ${token}` }
      const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })
      await c.connect(transport)
      return { client: c, transport }
    }),
    ({ client }) => Effect.promise(() => client.close().catch(() => undefined))
  )

const names = (c: Client) => Effect.promise(async () => (await c.listTools()).tools.map((t) => t.name))
const search = (c: Client, query: string) =>
  Effect.promise(() => c.callTool({ name: "ToolSearch", arguments: { query } }).then(text))
const alive = (c: Client) => Effect.promise(() => c.listTools().then(() => true, () => false))

describe("HttpGateway: requests", () => {
  it.effect("a JSON-RPC batch over maxBatchSize is refused whole: nothing of it reaches a server", () =>
    Effect.gen(function*() {
      const { address, files } = yield* start({ maxBatchSize: 4 })
      const opened = yield* post(address.url, initialize)
      const session = { "mcp-session-id": opened.session ?? "", "mcp-protocol-version": "2025-06-18" }
      const batch = Array.from({ length: 100 }, (_, i) => ({
        jsonrpc: "2.0",
        id: i + 2,
        method: "tools/call",
        params: { name: "call_tool", arguments: { name: "read_file", arguments: { path: "/big" } } }
      }))
      const refused = yield* post(address.url, batch, session)
      assert.strictEqual(refused.status, 400)
      assert.match(refused.text, /a batch of 100 messages is over the limit of 4 \(maxBatchSize\): nothing of it ran/)
      assert.strictEqual(files.calls.length, 0)
    }))

  it.effect("the gateway's own loopback origins are accepted; a foreign origin still gets 403", () =>
    Effect.gen(function*() {
      const { address } = yield* start()
      for (const own of [`http://127.0.0.1:${address.port}`, `http://localhost:${address.port}`]) {
        assert.strictEqual((yield* post(address.url, initialize, { origin: own })).status, 200)
      }
      assert.strictEqual((yield* post(address.url, initialize, { origin: "http://127.0.0.1:1" })).status, 403)
      assert.strictEqual((yield* post(address.url, initialize, { origin: "http://evil.example" })).status, 403)
    }))
})

describe("HttpGateway: principals", () => {
  it.effect("a principal opening sessions past its quota evicts its own; another principal's session stays", () =>
    Effect.gen(function*() {
      const { address } = yield* start({ principals: [alice({ maxSessions: 2 }), bob], maxSessions: 3 })
      const victim = yield* client(address.url, BOB)
      yield* TestClock.adjust("1 second")
      const flood: Array<Client> = []
      for (let i = 0; i < 6; i++) {
        flood.push((yield* client(address.url, ALICE)).client)
        yield* TestClock.adjust("1 second")
      }
      // Bob's session is the one idle the longest, and it is still served
      assert.isTrue(yield* alive(victim.client))
      assert.deepStrictEqual(yield* Effect.forEach(flood, alive), [false, false, false, false, true, true])
    }))

  it.effect("past maxSessions, the principal holding the most sessions gives one up, not the one holding fewer", () =>
    Effect.gen(function*() {
      const { address } = yield* start({ principals: [alice(), bob], maxSessions: 3 })
      const victim = yield* client(address.url, BOB)
      yield* TestClock.adjust("1 second")
      for (let i = 0; i < 5; i++) {
        yield* client(address.url, ALICE)
        yield* TestClock.adjust("1 second")
      }
      assert.isTrue(yield* alive(victim.client))
    }))

  it.effect("a principal's policy: servers it may not use do not exist for it; another principal sees them", () =>
    Effect.gen(function*() {
      const { address, mail } = yield* start({
        principals: [alice({ servers: ["files"], deny: ["write_*"] }), bob]
      })
      const a = yield* client(address.url, ALICE)
      const answer = yield* search(a.client, "select:send_email,write_file,read_file")
      assert.notInclude(answer, "\"send_email\"")
      assert.notInclude(answer, "\"write_file\"")
      assert.deepStrictEqual(yield* names(a.client), ["ToolSearch", "call_tool", "read_file"])
      const call = yield* Effect.promise(() =>
        a.client.callTool({ name: "call_tool", arguments: { name: "send_email", arguments: {} } }).then(text)
      )
      assert.notInclude(call, "send_email:")
      assert.strictEqual(mail.calls.length, 0)
      // Bob has no policy: he sees and uses both servers
      const b = yield* client(address.url, BOB)
      yield* search(b.client, "select:send_email")
      assert.include(yield* names(b.client), "send_email")
    }))

  it.effect("every audit entry of a principal's session names the principal", () =>
    Effect.gen(function*() {
      const entries: Array<GatewayAudit.Call | GatewayAudit.Reveal | GatewayAudit.Intent> = []
      const recorder: GatewayAudit.Recorder = {
        reveal: (e) => Effect.sync(() => void entries.push(e)),
        intent: (e) => Effect.sync(() => void entries.push(e)),
        call: (e) => Effect.sync(() => void entries.push(e)),
        payloads: false
      }
      const { address } = yield* start({ principals: [alice(), bob] }).pipe(
        Effect.provideService(GatewayAudit.GatewayAudit, Option.some(recorder))
      )
      const a = yield* client(address.url, ALICE)
      yield* search(a.client, "select:read_file")
      yield* Effect.promise(() => a.client.callTool({ name: "read_file", arguments: { text: "x" } }))
      assert.isAbove(entries.length, 1)
      assert.deepStrictEqual([...new Set(entries.map((e) => e.principal))], ["alice"])
    }))

  it.effect("search feedback is kept per principal: one principal's calls never move another's ranking", () =>
    Effect.gen(function*() {
      const recorded: Array<string> = []
      const spy: SearchFeedback.Service = {
        ...SearchFeedback.none,
        record: (evidence) => Effect.sync(() => void recorded.push(evidence.catalog))
      }
      const run = (shareFeedback: boolean) =>
        Effect.scoped(Effect.gen(function*() {
          const { address } = yield* start({ principals: [alice(), bob], shareFeedback }).pipe(
            Effect.provideService(SearchFeedback.SearchFeedback, spy)
          )
          const a = yield* client(address.url, ALICE)
          for (let i = 0; i < 3; i++) {
            yield* search(a.client, "read a file from disk")
            yield* Effect.promise(() => a.client.callTool({ name: "read_file", arguments: { text: "x" } }))
          }
        }))
      yield* run(false)
      assert.isAbove(recorded.length, 0)
      assert.deepStrictEqual([...new Set(recorded)], ["default@alice"])
      recorded.length = 0
      yield* run(true)
      assert.deepStrictEqual([...new Set(recorded)], ["default"])
    }))
})

describe("HttpGateway: resuming a stored session", () => {
  it.effect("another token asking for a client's session id just before it, after a restart, cannot make it 404", () =>
    Effect.gen(function*() {
      // a store where looking up a session for the wrong credential is slow (as a database can be)
      const stored = new Map<string, { readonly principal: string; readonly tools: ReadonlyArray<string> }>()
      const slow = yield* Deferred.make<void>()
      const state = SessionState.SessionState.of({
        load: (id, principal) =>
          Effect.suspend(() => {
            const session = stored.get(id)
            if (session !== undefined && session.principal === principal) return Effect.succeedSome(session.tools)
            return Effect.as(Deferred.await(slow), Option.none())
          }),
        open: (id, principal) => Effect.sync(() => void stored.set(id, { principal, tools: [] })),
        change: (id, principal, change) =>
          Effect.sync(() => {
            const session = stored.get(id)
            if (session === undefined || session.principal !== principal) return
            const tools = [...session.tools.filter((t) => !change.unloaded.includes(t)), ...change.loaded]
            stored.set(id, { principal, tools: [...new Set(tools)] })
          }),
        touch: () => Effect.void,
        remove: (id) => Effect.sync(() => void stored.delete(id)),
        changes: Stream.never
      })
      const options = { principals: [alice(), bob] }
      const headers = (token: string, id: string) => ({
        authorization: `Bearer ${token}`,
        "mcp-session-id": id,
        "mcp-protocol-version": "2025-06-18"
      })
      const list = { jsonrpc: "2.0", id: 2, method: "tools/list" }
      // Alice opens a session on a gateway that then stops
      const id = yield* Effect.scoped(Effect.gen(function*() {
        const { address } = yield* start(options).pipe(Effect.provideService(SessionState.SessionState, state))
        const opened = yield* post(address.url, initialize, { authorization: `Bearer ${ALICE}` })
        return opened.session ?? ""
      }))
      // a new gateway on the same store: Bob's request for her id comes first, and waits on the store
      const { address } = yield* start(options).pipe(Effect.provideService(SessionState.SessionState, state))
      const stolen = yield* Effect.forkChild(post(address.url, list, headers(BOB, id)))
      yield* Effect.yieldNow
      const own = yield* post(address.url, list, headers(ALICE, id))
      assert.strictEqual(own.status, 200)
      yield* Deferred.succeed(slow, undefined)
      assert.strictEqual((yield* Fiber.join(stolen)).status, 404)
    }))
})
