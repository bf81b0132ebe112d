import { assert, describe, it } from "@effect/vitest"
import { CatalogTool, Keyword, ToolCatalog, Unit, Visibility } from "@tool-search/core"
import { McpSources, type Upstream } from "@tool-search/mcp"
import { Context, Effect, Fiber, Layer, Logger, Schedule, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as Fake from "./fixtures/FakeServer.js"
import { adjustUntil, turn } from "./fixtures/TestTime.js"

const Catalog = ToolCatalog.layer.pipe(Layer.provide(Keyword.layer))
const Quiet = Logger.layer([])

/** Builds the sources over a fresh catalog, in the test's scope. */
const start = (servers: ReadonlyArray<Upstream.Input>) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      McpSources.layer(servers).pipe(Layer.provideMerge(Catalog), Layer.provide(Quiet))
    )
    return {
      sources: Context.get(context, McpSources.McpSources),
      catalog: Context.get(context, ToolCatalog.ToolCatalog)
    }
  })

/**
 * Starts server `name` (its settings, `settings`), whose calls hang, and calls its `tool` in a fiber:
 * returns once the server received the call, with `call` the fiber of its failure.
 */
const hungCall = (name: string, tool: string, settings: Partial<Upstream.Input>) =>
  Effect.gen(function*() {
    const server = Fake.make([Fake.echoTool(tool)])
    server.onCall = Fake.hang
    const { sources } = yield* start([{ name, transport: server.transport, ...settings }])
    const call = yield* Effect.forkChild(Effect.flip(sources.call(name, tool, {})))
    yield* Effect.promise(() => server.received(1))
    return { call, server, sources }
  })

const statusOf = (sources: McpSources.Service, name: string) =>
  Effect.map(sources.status, (all) => {
    const s = all.find((x) => x.name === name)
    if (s === undefined) throw new Error(`no status for ${name}`)
    return s
  })

describe("McpSources: import", () => {
  it.effect("registers each server as one source: sanitized names, ids, annotations, category, all pages", () =>
    Effect.gen(function*() {
      const files = Fake.make([
        Fake.echoTool("files.read", "Read a file", { annotations: { readOnlyHint: true, title: "Read" } }),
        Fake.echoTool("write", "Write a file", { annotations: { destructiveHint: true } }),
        Fake.echoTool("a"),
        Fake.echoTool("b"),
        Fake.echoTool("c")
      ])
      files.pageSize = 2
      const mail = Fake.make([Fake.echoTool("write", "Write an email")])
      const { catalog, sources } = yield* start([
        { name: "files", transport: files.transport },
        { name: "mail", transport: mail.transport, kind: "platform", loading: "eager" }
      ])
      // servers start concurrently: order by source, then by the server's own order
      const all = [...(yield* catalog.all)].sort((a, b) => (a.source ?? "").localeCompare(b.source ?? ""))
      assert.deepStrictEqual(
        all.map((t) => [t.id, t.modelName, t.source, t.category, t.loading]),
        [
          ["files/files.read", "files_read", "files", "files", "deferred"],
          ["files/write", "files__write", "files", "files", "deferred"],
          ["files/a", "a", "files", "files", "deferred"],
          ["files/b", "b", "files", "files", "deferred"],
          ["files/c", "c", "files", "files", "deferred"],
          ["mail/write", "mail__write", "mail", "mail", "eager"]
        ]
      )
      const read = all[0]
      assert.deepStrictEqual(read?.aliases, ["files.read"])
      assert.deepStrictEqual(read?.annotations, { title: "Read", readOnly: true })
      assert.deepStrictEqual(all[1]?.annotations, { destructive: true })
      assert.deepStrictEqual(sources.servers, [{ name: "files", kind: "connected" }, {
        name: "mail",
        kind: "platform"
      }])
      assert.deepStrictEqual(sources.origin("files/files.read"), { server: "files", tool: "files.read" })
      assert.strictEqual((yield* statusOf(sources, "files")).state, "ready")
    }))

  it.effect("a call runs on the server under its MCP name and returns the MCP result unchanged", () =>
    Effect.gen(function*() {
      const files = Fake.make([Fake.echoTool("files.read")])
      files.onCall = async (name, args) =>
        name === "files.read"
          ? {
            content: [{ type: "text", text: `read ${String(args["path"])}` }],
            structuredContent: { n: 1 },
            _meta: { x: 1 }
          }
          : { content: [{ type: "text", text: "no" }], isError: true }
      const { catalog } = yield* start([{ name: "files", transport: files.transport }])
      const output = yield* Unit.provide(Effect.gen(function*() {
        yield* Unit.search("select:files_read")
        const tool = yield* Unit.resolve("files_read")
        return yield* tool.run({ path: "/a" }, { toolCallId: "1" })
      })).pipe(Effect.provideService(ToolCatalog.ToolCatalog, catalog))
      assert.deepStrictEqual(files.calls, [{ name: "files.read", args: { path: "/a" } }])
      assert.strictEqual(output.isFailure, false)
      assert.deepStrictEqual(output.result, {
        content: [{ type: "text", text: "read /a" }],
        structuredContent: { n: 1 },
        _meta: { x: 1 }
      })
    }))

  it.effect("a tool with an invalid schema is reported with server and tool; its siblings still register", () =>
    Effect.gen(function*() {
      const files = Fake.make([
        Fake.echoTool("good"),
        { name: "scalar", inputSchema: { type: "string" } },
        { name: "no_schema" },
        { name: "ToolSearch", inputSchema: { type: "object" } },
        Fake.echoTool("good"),
        { name: "task_only", inputSchema: { type: "object" }, execution: { taskSupport: "required" } }
      ])
      const { catalog, sources } = yield* start([{ name: "files", transport: files.transport }])
      // a reserved name is qualified by its server, like a collision, rather than left out
      assert.deepStrictEqual((yield* catalog.all).map((t) => [t.id, t.modelName]), [
        ["files/good", "good"],
        ["files/ToolSearch", "files__ToolSearch"]
      ])
      const status = yield* statusOf(sources, "files")
      assert.deepStrictEqual(status.invalidTools.map((e) => [e.server, e.tool]), [
        ["files", "scalar"],
        ["files", "no_schema"],
        ["files", "good"],
        ["files", "task_only"]
      ])
      assert.match(
        status.invalidTools[0]?.message ?? "",
        /MCP server 'files' declares an unusable tool 'scalar': .*object/
      )
      assert.match(status.invalidTools[2]?.reason ?? "", /twice/)
    }))

  it.effect("follows notifications/tools/list_changed: added and removed tools, in one atomic step", () =>
    Effect.gen(function*() {
      const files = Fake.make([Fake.echoTool("one"), Fake.echoTool("two")])
      const { catalog } = yield* start([{ name: "files", transport: files.transport }])
      files.tools = [Fake.echoTool("two"), Fake.echoTool("three")]
      const changes = yield* Effect.forkChild(catalog.changes.pipe(Stream.take(1), Stream.runCollect), {
        startImmediately: true
      })
      yield* Effect.promise(() => files.listChanged())
      const [change] = yield* Fiber.join(changes)
      assert.deepStrictEqual(change?.removed, ["files/one"])
      assert.deepStrictEqual(change?.added, ["files/two", "files/three"])
      assert.deepStrictEqual((yield* catalog.all).map((t) => t.id), ["files/two", "files/three"])
    }))

  it.effect("a JSON-RPC error of a call keeps the server's code, message and data", () =>
    Effect.gen(function*() {
      const files = Fake.make([Fake.echoTool("boom")])
      files.onCall = async () => {
        const { McpError } = await import("@modelcontextprotocol/sdk/types.js")
        throw new McpError(-32602, "bad path", { path: "/x" })
      }
      const { sources } = yield* start([{ name: "files", transport: files.transport }])
      const error = yield* Effect.flip(sources.call("files", "boom", {}))
      assert.strictEqual(error._tag, "UpstreamError")
      if (error._tag !== "UpstreamError") return
      assert.deepStrictEqual([error.server, error.tool, error.code, error.reason, error.data], [
        "files",
        "boom",
        -32602,
        "MCP error -32602: bad path",
        { path: "/x" }
      ])
    }))
})

describe("McpSources: failures", () => {
  it.effect("a server that refuses to start is reported and retried with backoff; the others keep working", () =>
    Effect.gen(function*() {
      const broken = Fake.make([Fake.echoTool("later")])
      broken.startup = "refuse"
      const fine = Fake.make([Fake.echoTool("now")])
      const { catalog, sources } = yield* start([
        { name: "broken", transport: broken.transport, reconnect: Schedule.spaced("10 seconds") },
        { name: "fine", transport: fine.transport }
      ])
      const status = yield* statusOf(sources, "broken")
      assert.strictEqual(status.state, "reconnecting")
      assert.strictEqual(status.error?._tag, "ServerStartFailed")
      assert.match(status.error?.message ?? "", /^MCP server 'broken' failed to start/)
      assert.deepStrictEqual((yield* catalog.all).map((t) => t.id), ["fine/now"])
      const ok = yield* sources.call("fine", "now", { text: "hi" })
      assert.strictEqual(ok.isError, undefined)
      const unavailable = yield* Effect.flip(sources.call("broken", "later", {}))
      assert.strictEqual(unavailable._tag, "ServerUnavailable")
      assert.match(
        unavailable.message,
        /'broken' is not available to call 'later': it is reconnecting after: MCP server 'broken' failed to start/
      )

      broken.startup = "ok"
      yield* TestClock.adjust("9 seconds")
      yield* turn
      assert.strictEqual((yield* statusOf(sources, "broken")).state, "reconnecting")
      const ready = yield* adjustUntil(
        McpSources.awaitStatus("broken", (s) => s.state === "ready").pipe(
          Effect.provideService(McpSources.McpSources, sources)
        ),
        "1 second"
      )
      assert.strictEqual(ready.connections, 1)
      assert.deepStrictEqual((yield* catalog.all).map((t) => t.id), ["fine/now", "broken/later"])
    }))

  it.effect("a server that hangs at start-up times out with a typed error", () =>
    Effect.gen(function*() {
      const stuck = Fake.make([Fake.echoTool("x")])
      stuck.startup = "hang"
      const fiber = yield* Effect.forkChild(start([
        {
          name: "stuck",
          transport: stuck.transport,
          connectTimeout: "5 seconds",
          reconnect: Schedule.spaced("1 minute")
        }
      ]))
      const { sources } = yield* adjustUntil(Fiber.join(fiber), "5 seconds")
      const status = yield* statusOf(sources, "stuck")
      assert.strictEqual(status.error?._tag, "ServerTimeout")
      assert.strictEqual(status.error?.message, "MCP server 'stuck' did not answer initialize within 5000 ms")
    }))

  it.effect("a hung tools/list is a timeout too, and the server is retried", () =>
    Effect.gen(function*() {
      const stuck = Fake.make([Fake.echoTool("x")])
      stuck.hangList = true
      const fiber = yield* Effect.forkChild(start([
        { name: "stuck", transport: stuck.transport, connectTimeout: "5 seconds", listTimeout: "3 seconds" }
      ]))
      const { sources } = yield* adjustUntil(Fiber.join(fiber), "3 seconds")
      assert.strictEqual(
        (yield* statusOf(sources, "stuck")).error?.message,
        "MCP server 'stuck' did not answer tools/list within 3000 ms"
      )
    }))

  it.effect("a hung call times out naming server and tool, and the request is cancelled upstream", () =>
    Effect.gen(function*() {
      const { call, server: slow, sources } = yield* hungCall("slow", "wait", { callTimeout: "2 seconds" })
      const error = yield* adjustUntil(Fiber.join(call), "2 seconds")
      assert.strictEqual(error.message, "MCP server 'slow' did not answer tools/call 'wait' within 2000 ms")
      yield* Effect.promise(() => slow.cancelledCount(1))
      assert.deepStrictEqual(slow.cancelled, ["wait"])
      assert.strictEqual((yield* statusOf(sources, "slow")).state, "ready")
    }))

  it.effect("a server that dies mid-call fails that call, is restarted, and serves again", () =>
    Effect.gen(function*() {
      const { call, server: flaky, sources } = yield* hungCall("flaky", "work", { restartDelay: "1 second" })
      yield* Effect.promise(() => flaky.kill())
      const error = yield* Fiber.join(call)
      assert.strictEqual(error._tag, "ConnectionLost")
      assert.match(error.message, /^MCP server 'flaky' lost its connection during the call to 'work'/)
      yield* McpSources.awaitStatus("flaky", (s) => s.state === "reconnecting").pipe(
        Effect.provideService(McpSources.McpSources, sources)
      )
      flaky.onCall = async () => ({ content: [{ type: "text", text: "done" }] })
      const ready = yield* adjustUntil(
        McpSources.awaitStatus("flaky", (s) => s.state === "ready" && s.connections === 2).pipe(
          Effect.provideService(McpSources.McpSources, sources)
        ),
        "1 second"
      )
      assert.strictEqual(ready.error?._tag, "ConnectionLost")
      assert.deepStrictEqual((yield* sources.call("flaky", "work", {})).content, [{ type: "text", text: "done" }])
      assert.strictEqual(flaky.connections(), 2)
    }))

  it.effect("a connection that stops answering without closing (HTTP) is replaced after a failed call", () =>
    Effect.gen(function*() {
      const remote = Fake.make([Fake.echoTool("ping")])
      const { sources } = yield* start([{ name: "remote", transport: remote.transport, restartDelay: "1 second" }])
      remote.sever()
      const error = yield* Effect.flip(sources.call("remote", "ping", {}))
      assert.strictEqual(
        error.message,
        "MCP server 'remote' lost its connection during the call to 'ping': fetch failed; it is being restarted"
      )
      yield* McpSources.awaitStatus("remote", (s) => s.state === "reconnecting").pipe(
        Effect.provideService(McpSources.McpSources, sources)
      )
      yield* adjustUntil(
        McpSources.awaitStatus("remote", (s) => s.state === "ready" && s.connections === 2).pipe(
          Effect.provideService(McpSources.McpSources, sources)
        ),
        "1 second"
      )
      assert.strictEqual((yield* sources.call("remote", "ping", {})).isError, undefined)
    }))

  it.effect("when the reconnection schedule ends, the server is stopped and its tools leave the catalog", () =>
    Effect.gen(function*() {
      const gone = Fake.make([Fake.echoTool("t")])
      const { catalog, sources } = yield* start([
        { name: "gone", transport: gone.transport, restartDelay: "0 millis", reconnect: Schedule.recurs(1) }
      ])
      assert.deepStrictEqual((yield* catalog.all).map((t) => t.id), ["gone/t"])
      gone.startup = "refuse"
      yield* Effect.promise(() => gone.kill())
      const stopped = yield* McpSources.awaitStatus("gone", (s) => s.state === "stopped").pipe(
        Effect.provideService(McpSources.McpSources, sources)
      )
      assert.strictEqual(stopped.tools, 0)
      assert.deepStrictEqual(yield* catalog.all, [])
      const error = yield* Effect.flip(sources.call("gone", "t", {}))
      assert.match(error.message, /stopped after repeated failures/)
    }))

  it.effect("bad configuration fails the layer: invalid and duplicate names", () =>
    Effect.gen(function*() {
      const fake = Fake.make()
      const invalid = yield* Effect.flip(start([{ name: "a b", transport: fake.transport }]))
      assert.match(invalid.message, /server name must match/)
      const duplicate = yield* Effect.flip(start([
        { name: "a", transport: fake.transport },
        { name: "a", transport: fake.transport }
      ]))
      assert.strictEqual(duplicate.message, "Invalid upstream \"a\": two servers have this name")
    }))
})

describe("McpSources.visibilityOf", () => {
  it("connected servers become connected sources; platform servers stay behind the allow-list", () => {
    const options = McpSources.visibilityOf([
      { name: "news", kind: "connected" },
      { name: "warehouse", kind: "platform" },
      { name: "files", kind: "connected" }
    ])
    assert.deepStrictEqual(options, { connected: ["news", "files"] })
    const policy = Visibility.make({ ...options, strict: true, explore: true, allow: [] })
    const entry = (source: string) => ({
      ...CatalogTool.make({ name: `${source}_tool`, source }),
      modelName: `${source}_tool`
    })
    assert.isTrue(policy.includes(entry("news")))
    assert.isFalse(policy.includes(entry("warehouse")))
  })
})
