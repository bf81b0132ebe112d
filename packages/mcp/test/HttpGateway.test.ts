// The gateway over Streamable HTTP, attacked as a network server would be: foreign origins and
// hosts, missing or wrong credentials, a session id used with another credential, sessions that
// pile up or are left idle, bodies too large. Each attack is a test; the official SDK client is
// the legitimate client.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Gateway, HttpGateway, SessionRegistry } from "@tool-search/mcp"
import { Duration, Effect, Option, Redacted } from "effect"
import { TestClock } from "effect/testing"
import * as Fake from "./fixtures/FakeServer.js"
import { initialize, post } from "./fixtures/Http.js"
import { servers, upstreams } from "./fixtures/Sessions.js"

const get = (url: string, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const response = await fetch(url, { headers })
    return { status: response.status, body: (await response.json()) as unknown }
  })

/** The gateway over one fake upstream, listening on a free loopback port in the test's scope. */
const start = (options: Partial<HttpGateway.Options> = {}) =>
  Effect.gen(function*() {
    const { files } = servers()
    const context = yield* upstreams([{ name: "files", transport: files.transport }])
    const address = yield* HttpGateway.serve({ port: 0, ...options }).pipe(
      Gateway.withSources,
      Effect.provideContext(context)
    )
    return { address, files }
  })

/** The official SDK client over HTTP, with optional headers. */
const client = (url: string, headers: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const c = new Client({ name: "http-test", version: "1" })
      const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })
      await c.connect(transport)
      return { client: c, transport }
    }),
    ({ client }) => Effect.promise(() => client.close().catch(() => undefined))
  )

const names = (c: Client) => Effect.promise(async () => (await c.listTools()).tools.map((t) => t.name))

describe("HttpGateway: who may connect", () => {
  it.effect("a request from a foreign Origin is refused and opens no session; an allowed one is served", () =>
    Effect.gen(function*() {
      const { address } = yield* start({ allowedOrigins: ["https://app.example.com"] })
      const evil = yield* post(address.url, initialize, { origin: "http://evil.com" })
      assert.strictEqual(evil.status, 403)
      assert.match(evil.text, /Origin \\"http:\/\/evil.com\\" is not allowed \(allowedOrigins\)/)
      assert.isUndefined(evil.session)
      const good = yield* post(address.url, initialize, { origin: "https://app.example.com" })
      assert.strictEqual(good.status, 200)
      assert.isString(good.session)
    }))

  it.effect("a request for another Host (DNS rebinding) is refused", () =>
    Effect.gen(function*() {
      const { address } = yield* start()
      const rebound = yield* post(address.url, initialize, { host: "attacker.example:80" })
      assert.strictEqual(rebound.status, 403)
      assert.match(rebound.text, /Host .* is not allowed \(allowedHosts\)/)
    }))

  it.effect("a non-loopback address without authentication is refused before listening", () =>
    Effect.gen(function*() {
      const { files } = servers()
      const context = yield* upstreams([{ name: "files", transport: files.transport }])
      const error = yield* Effect.flip(
        HttpGateway.serve({ port: 0, host: "0.0.0.0" }).pipe(Effect.provideContext(context))
      )
      assert.match(error.message, /refusing to listen on 0\.0\.0\.0 without authentication/)
    }))

  it.effect("with tokens: no or a wrong token gets 401; a session is bound to the token that opened it", () =>
    Effect.gen(function*() {
      const { address } = yield* start({ tokens: [Redacted.make("alice-secret"), Redacted.make("bob-secret")] })
      assert.strictEqual((yield* post(address.url, initialize)).status, 401)
      assert.strictEqual((yield* post(address.url, initialize, { authorization: "Bearer guess" })).status, 401)
      const alice = yield* client(address.url, { authorization: "Bearer alice-secret" })
      assert.deepStrictEqual(yield* names(alice.client), ["ToolSearch", "call_tool"])
      // Bob knows Alice's session id, and has a valid token of his own: not enough
      const stolen = yield* post(address.url, { jsonrpc: "2.0", id: 2, method: "tools/list" }, {
        authorization: "Bearer bob-secret",
        "mcp-session-id": alice.transport.sessionId ?? "",
        "mcp-protocol-version": "2025-06-18"
      })
      assert.strictEqual(stolen.status, 404)
      assert.match(stolen.text, /Session not found/)
      // and Alice's session is untouched
      assert.deepStrictEqual(yield* names(alice.client), ["ToolSearch", "call_tool"])
    }))
})

describe("HttpGateway: sessions", () => {
  it.effect("an idle session expires; its client gets 'Session not found' and can initialize again", () =>
    Effect.gen(function*() {
      const { address } = yield* start({ sessionIdleTimeout: "10 minutes" })
      const first = yield* client(address.url)
      yield* names(first.client)
      yield* TestClock.adjust(Duration.minutes(13))
      const error = yield* Effect.flip(Effect.tryPromise(() => first.client.listTools()))
      assert.match(String(error.cause), /Session not found/)
      const second = yield* client(address.url)
      assert.deepStrictEqual(yield* names(second.client), ["ToolSearch", "call_tool"])
    }))

  it.effect("past maxSessions the session idle the longest is evicted; the others keep working", () =>
    Effect.gen(function*() {
      const { address } = yield* start({ maxSessions: 2 })
      const a = yield* client(address.url)
      yield* TestClock.adjust("1 second")
      const b = yield* client(address.url)
      yield* TestClock.adjust("1 second")
      yield* names(a.client) // a is used again: b is now the one idle the longest
      yield* TestClock.adjust("1 second")
      const c = yield* client(address.url)
      const evicted = yield* Effect.flip(Effect.tryPromise(() => b.client.listTools()))
      assert.match(String(evicted.cause), /Session not found/)
      assert.deepStrictEqual(yield* names(a.client), ["ToolSearch", "call_tool"])
      assert.deepStrictEqual(yield* names(c.client), ["ToolSearch", "call_tool"])
    }))

  it.effect("a body over maxMessageBytes is refused with 413", () =>
    Effect.gen(function*() {
      const { address } = yield* start({ maxMessageBytes: 2000 })
      const big = yield* post(address.url, { ...initialize, params: { ...initialize.params, pad: "x".repeat(5000) } })
      assert.strictEqual(big.status, 413)
    }))

  it("the in-memory registry: LRU eviction, expiry, binding", () =>
    Effect.runSync(Effect.gen(function*() {
      const registry = SessionRegistry.makeMemory({ maxSessions: 2, idleTimeout: "1 minute" })
      assert.deepStrictEqual(yield* registry.open("a", "p"), [])
      assert.deepStrictEqual(yield* registry.open("b", "p"), [])
      assert.isTrue(Option.isSome(yield* registry.touch("a", "p")))
      assert.isTrue(Option.isNone(yield* registry.touch("a", "other")))
      assert.deepStrictEqual(yield* registry.open("c", "p"), ["b"])
      assert.strictEqual(yield* registry.size, 2)
    })))
})

describe("HttpGateway: operations", () => {
  it.effect("/health is liveness; /ready lists every upstream and is 503 while one is starting", () =>
    Effect.gen(function*() {
      const hung = Fake.make([Fake.echoTool("x")])
      hung.startup = "hang"
      const { files } = servers()
      const context = yield* upstreams([
        { name: "files", transport: files.transport },
        { name: "slow", transport: hung.transport, connectTimeout: "1 minute" }
      ], { start: "background" })
      const address = yield* HttpGateway.serve({ port: 0 }).pipe(Gateway.withSources, Effect.provideContext(context))
      const base = address.url.replace(/\/mcp$/, "")
      assert.deepStrictEqual(yield* get(`${base}/health`), { status: 200, body: { status: "ok" } })
      const starting = yield* get(`${base}/ready`)
      assert.strictEqual(starting.status, 503)
      assert.deepInclude((starting.body as { servers: Array<unknown> }).servers, {
        name: "slow",
        state: "starting",
        tools: 0
      })
      yield* TestClock.adjust("1 minute")
      const ready = yield* get(`${base}/ready`)
      assert.strictEqual(ready.status, 200)
      const slow = (ready.body as { servers: Array<{ name: string; state: string; error?: string }> }).servers
        .find((s) => s.name === "slow")
      assert.strictEqual(slow?.state, "reconnecting")
      assert.match(slow?.error ?? "", /did not answer initialize within 60000 ms/)
    }))
})
