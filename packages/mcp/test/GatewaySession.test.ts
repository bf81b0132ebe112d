// One gateway session under pressure: bad and oversized calls (the attack is the test), loaded
// sets that would only grow, results too long for a model, list changes in bursts,
// servers that are not up yet, and the log line each search and call leaves.
import { assert, describe, it } from "@effect/vitest"
import { type McpError as SdkMcpError, ResultSchema } from "@modelcontextprotocol/sdk/types.js"
import { CatalogTool, Regex, SearchStrategy, ToolCatalog } from "@tool-search/core"
import { Gateway, McpSources } from "@tool-search/mcp"
import { Effect, Fiber, Layer, Logger, Queue, References } from "effect"
import { TestClock } from "effect/testing"
import * as Fake from "./fixtures/FakeServer.js"
import { call, connect, servers, type Session, text, upstreams } from "./fixtures/Sessions.js"

/** A raw `tools/call` the SDK client would not send: the JSON-RPC error it gets. */
const rawCall = (session: Session, params: unknown) =>
  Effect.flip(
    Effect.tryPromise({
      try: () => session.client.request({ method: "tools/call", params } as never, ResultSchema),
      catch: (e) => e as SdkMcpError
    })
  )

const nested = (depth: number): unknown => {
  let value: unknown = "leaf"
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}

describe("Gateway session: hostile calls", () => {
  it.effect("arguments nested 5,000 levels deep are refused with -32602 before anything runs; the session goes on", () =>
    Effect.gen(function*() {
      const { files } = servers()
      const context = yield* upstreams([{ name: "files", transport: files.transport }])
      const attacker = yield* connect(context)
      const other = yield* connect(context)
      yield* call(attacker, "ToolSearch", { query: "select:read_file" })
      yield* call(other, "ToolSearch", { query: "select:read_file" })
      const error = yield* rawCall(attacker, { name: "read_file", arguments: { text: nested(5000) } })
      assert.strictEqual(error.code, -32602)
      assert.strictEqual(
        error.message,
        "MCP error -32602: tools/call: \"arguments\" nest deeper than 64 levels (maxArgumentDepth)"
      )
      // through call_tool too
      const wrapped = yield* rawCall(attacker, {
        name: "call_tool",
        arguments: { name: "read_file", arguments: nested(100) }
      })
      assert.match(wrapped.message, /maxArgumentDepth/)
      // nothing reached the upstream, which was never restarted; both sessions still work
      assert.deepStrictEqual(files.calls, [])
      assert.strictEqual(files.connections(), 1)
      assert.strictEqual(text(yield* call(attacker, "read_file", { text: "a" })), "read_file:a")
      assert.strictEqual(text(yield* call(other, "read_file", { text: "b" })), "read_file:b")
    }))

  it.effect("arguments over maxArgumentBytes are refused with -32602 naming the limit", () =>
    Effect.gen(function*() {
      const { files } = servers()
      const context = yield* upstreams([{ name: "files", transport: files.transport }])
      const session = yield* connect(context, { limits: { ...Gateway.defaults.limits, maxArgumentBytes: 1000 } })
      yield* call(session, "ToolSearch", { query: "select:read_file" })
      const error = yield* rawCall(session, { name: "read_file", arguments: { text: "x".repeat(2000) } })
      assert.strictEqual(error.code, -32602)
      assert.match(error.message, /"arguments" are larger than 1000 bytes \(maxArgumentBytes\)$/)
      assert.deepStrictEqual(files.calls, [])
    }))

  it.effect("bad tools/call params get -32602 and one line", () =>
    Effect.gen(function*() {
      const { files } = servers()
      const session = yield* connect(yield* upstreams([{ name: "files", transport: files.transport }]))
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [{}, "tools/call: \"name\" must be a non-empty string"],
        [{ name: 5 }, "tools/call: \"name\" must be a non-empty string"],
        [{ name: "read_file", arguments: [1] }, "tools/call: \"arguments\" must be a JSON object, not an array"],
        [{ name: "read_file", arguments: "x" }, "tools/call: \"arguments\" must be a JSON object, not string"]
      ]
      for (const [params, message] of cases) {
        const error = yield* rawCall(session, params)
        assert.strictEqual(error.code, -32602)
        assert.strictEqual(error.message, `MCP error -32602: ${message}`)
      }
    }))

  it.effect("a result longer than maxResultChars is cut, with a note saying how much and which setting", () =>
    Effect.gen(function*() {
      const { files } = servers()
      files.onCall = async () => ({ content: [{ type: "text", text: "y".repeat(5000) }], structuredContent: { n: 1 } })
      const session = yield* connect(yield* upstreams([{ name: "files", transport: files.transport }]), {
        limits: { ...Gateway.defaults.limits, maxResultChars: 1000 }
      })
      yield* call(session, "ToolSearch", { query: "select:read_file" })
      const result = yield* call(session, "read_file", {})
      const blocks = result.content as ReadonlyArray<{ text: string }>
      assert.strictEqual(blocks[0]?.text.length, 1000)
      assert.strictEqual(
        blocks[1]?.text,
        "[tool-search: the result had 5007 characters, over the limit of 1000 (maxResultChars): it was cut; " +
          "structuredContent was left out.]"
      )
      assert.strictEqual(result.structuredContent, undefined)
    }))
})

describe("Gateway session: what gets loaded", () => {
  it.effect("the loaded set is capped: loading past maxLoadedTools unloads the least recently used, and says so", () =>
    Effect.gen(function*() {
      const files = Fake.make(["alpha", "beta", "gamma"].map((n) => Fake.echoTool(n, `The ${n} tool`)))
      const session = yield* connect(yield* upstreams([{ name: "files", transport: files.transport }]), {
        maxLoadedTools: 2
      })
      yield* call(session, "ToolSearch", { query: "select:alpha,beta" })
      assert.deepStrictEqual(yield* Effect.promise(session.names), ["ToolSearch", "call_tool", "alpha", "beta"])
      yield* call(session, "alpha", {}) // alpha is used: beta is now the least recently used
      const found = yield* call(session, "ToolSearch", { query: "select:gamma" })
      assert.match(text(found), /Unloaded to keep at most 2 tools loaded: beta\./)
      yield* Queue.take(session.notified)
      assert.deepStrictEqual(yield* Effect.promise(session.names), ["ToolSearch", "call_tool", "alpha", "gamma"])
      assert.match(text(yield* call(session, "beta", {})), /not loaded yet/)
    }))

  it.effect("a search about a server that is still starting says so instead of loading unrelated tools", () =>
    Effect.gen(function*() {
      const github = Fake.make([Fake.echoTool("create_issue", "Create an issue")])
      github.startup = "hang"
      const files = Fake.make([Fake.echoTool("create_file", "Create a file")])
      const context = yield* upstreams([
        { name: "github", transport: github.transport },
        { name: "files", transport: files.transport }
      ], { start: "background" })
      const session = yield* connect(context)
      yield* McpSources.awaitStatus("files", (s) => s.state === "ready").pipe(Effect.provideContext(context))
      // answers at once: the hung server does not hold up initialize or a search
      const found = yield* call(session, "ToolSearch", { query: "github create issue" })
      assert.deepStrictEqual(JSON.parse(text(found)), {
        functions: [],
        note: "Not searched: github: still starting."
      })
      const other = yield* call(session, "ToolSearch", { query: "create file" })
      assert.match(text(other), /"name":"create_file"/)
    }))
})

describe("Gateway session: an expensive search", () => {
  it.live("a regex search past its budget answers 'too expensive'; while one runs, another session is answered", () =>
    Effect.gen(function*() {
      const started = yield* Queue.unbounded<void>()
      const order: Array<string> = []
      // the regex strategy, telling the test when a search has started and when it has finished
      const Signalling = Layer.effect(
        SearchStrategy.SearchStrategy,
        Effect.gen(function*() {
          const regex = yield* SearchStrategy.SearchStrategy
          return {
            name: regex.name,
            makeIndex: Effect.map(regex.makeIndex, (index) => ({
              ...index,
              search: (request: SearchStrategy.SearchRequest) =>
                Effect.andThen(Queue.offer(started, undefined), index.search(request)).pipe(
                  Effect.ensuring(Effect.sync(() => order.push("search finished")))
                )
            }))
          }
        })
      ).pipe(Layer.provide(Regex.layerWith({ maxSteps: 20_000_000 })))
      const context = yield* Layer.build(
        ToolCatalog.layerWithTools(
          Array.from({ length: 20_000 }, (_, i) => CatalogTool.make({ name: `tool_${i}_send_message_to_channel` }))
        ).pipe(Layer.provide(Signalling), Layer.orDie)
      )
      const a = yield* connect(context)
      const b = yield* connect(context)
      const expensive = yield* call(a, "ToolSearch", { query: "(.{0,30}){10}x" })
      yield* Queue.take(started)
      assert.match(
        text(expensive),
        /too expensive for this catalog: .* stopped after \d+ steps \(the limit is 20000000\)/
      )
      // a search within the budget, and a ping from another session sent once it has started: the
      // ping is answered while the search still runs (it yields), not after it
      order.length = 0
      const search = yield* Effect.forkChild(call(a, "ToolSearch", { query: "send.*channel" }))
      yield* Queue.take(started)
      yield* Effect.promise(() => b.client.ping())
      order.push("ping answered")
      assert.match(text(yield* Fiber.join(search)), /tool_/)
      assert.deepStrictEqual(order, ["ping answered", "search finished"])
    }))
})

describe("Gateway session: notifications and logs", () => {
  it.effect("a burst of list changes reaches the client as one notification per window", () =>
    Effect.gen(function*() {
      const { files } = servers()
      const context = yield* upstreams([{ name: "files", transport: files.transport }])
      const catalog = yield* ToolCatalog.ToolCatalog.pipe(Effect.provideContext(context))
      const local = (description: string) =>
        CatalogTool.make({ id: "local/notes", name: "notes", description, source: "local" })
      yield* catalog.register(local("v0"))
      const session = yield* connect(context, { listChangedDelay: "1 second" })
      yield* call(session, "ToolSearch", { query: "select:notes" })
      yield* Effect.promise(session.names)
      yield* catalog.register(local("v1"), { replace: true })
      yield* Queue.take(session.notified) // the first change is announced at once
      for (let i = 2; i <= 50; i++) yield* catalog.register(local(`v${i}`), { replace: true })
      yield* TestClock.adjust("1 second")
      yield* Queue.take(session.notified) // the 49 others: one notification
      const listed = yield* Effect.promise(() => session.client.listTools())
      assert.strictEqual(listed.tools.find((t) => t.name === "notes")?.description, "v50")
      assert.strictEqual(yield* Queue.size(session.notified), 0)
      assert.strictEqual(session.changes(), 2)
    }))

  it.effect("every search and call leaves one structured log line: session, query or tool, outcome, duration", () =>
    Effect.gen(function*() {
      const { files } = servers()
      const lines: Array<{ message: unknown; annotations: Record<string, unknown> }> = []
      const collect = Logger.make((options) => {
        lines.push({ message: options.message, annotations: options.fiber.getRef(References.CurrentLogAnnotations) })
      })
      const session = yield* connect(yield* upstreams([{ name: "files", transport: files.transport }]), {}, [collect])
      yield* call(session, "ToolSearch", { query: "read file", max_results: 1 })
      yield* call(session, "read_file", { text: "x" })
      yield* call(session, "nope", {})
      const entries = lines.map((l) => [String(l.message), l.annotations])
      assert.deepStrictEqual(entries, [
        ["gateway search", { session: "stdio", query: "read file", results: 1, loaded: 1, ms: 0 }],
        ["gateway call", { session: "stdio", tool: "read_file", outcome: "ok", ms: 0 }],
        ["gateway call", { session: "stdio", tool: "nope", outcome: "tool_error", ms: 0 }]
      ])
    }))
})
