// One engine, seen through the gateway with the official SDK client: the session's ToolSearch is the
// library's (a `select:` of 8 names loads all 8, whatever max_results says); a server's `deny: ["*"]`
// keeps every kind it offers out (tools, resources, prompts: not listed, found or served); in strict
// mode a search answer never names a server the session cannot see, nor its error.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Keyword, ResourceCatalog, ToolCatalog, Visibility } from "@tool-search/core"
import { deferAlways } from "@tool-search/core/test-kit"
import { Gateway, McpSources, type Upstream } from "@tool-search/mcp"
import { type Context, Effect, Layer, Logger } from "effect"
import * as Fake from "./fixtures/FakeServer.js"

type Services = ToolCatalog.ToolCatalog | ResourceCatalog.ResourceCatalog | McpSources.McpSources

const upstreams = (servers: ReadonlyArray<Upstream.Input>, options: McpSources.Options = {}) =>
  Layer.build(
    McpSources.layerWithResources(servers, options).pipe(
      Layer.provideMerge(ToolCatalog.layer),
      Layer.provideMerge(ResourceCatalog.layerWith({ indexBodies: false })),
      Layer.provide(Keyword.layer),
      Layer.provideMerge(deferAlways),
      Layer.provide(Logger.layer([]))
    )
  )

const connect = (context: Context.Context<Services>, policies: Layer.Layer<never> = Layer.empty) =>
  Effect.gen(function*() {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    yield* Effect.forkScoped(
      Gateway.serve(serverSide).pipe(
        Gateway.withResources,
        Gateway.withSources,
        Effect.provideContext(context),
        Effect.provide(Layer.merge(policies, Logger.layer([])))
      )
    )
    const client = new Client({ name: "test", version: "1" })
    yield* Effect.promise(() => client.connect(clientSide))
    yield* Effect.addFinalizer(() => Effect.promise(() => client.close()))
    return client
  })

const p = <A>(f: () => Promise<A>) => Effect.promise(f)
const failure = <A>(f: () => Promise<A>) => Effect.flip(Effect.tryPromise({ try: f, catch: (e) => e as Error }))
const textOf = (result: unknown): string =>
  ((result as { content: ReadonlyArray<{ text?: string }> }).content[0]?.text) ?? ""
const functionsOf = (result: unknown): ReadonlyArray<string> =>
  (JSON.parse(textOf(result)) as { functions: ReadonlyArray<{ name: string }> }).functions.map((f) => f.name)

describe("Gateway: one ToolSearch", () => {
  it.effect("a select: of 8 names loads all 8 (max_results is for ranked queries), and lists them", () =>
    Effect.gen(function*() {
      const names = Array.from({ length: 12 }, (_, i) => `tool_${i}`)
      const server = Fake.make(names.map((n) => Fake.echoTool(n, `Operation ${n}`)))
      const client = yield* connect(yield* upstreams([{ name: "ops", transport: server.transport }]))
      const wanted = names.slice(0, 8)
      const found = yield* p(() =>
        client.callTool({ name: "ToolSearch", arguments: { query: `select:${wanted.join(",")}`, max_results: 3 } })
      )
      assert.deepStrictEqual(functionsOf(found), wanted)
      const listed = (yield* p(() => client.listTools())).tools.map((t) => t.name)
      for (const name of wanted) assert.include(listed, name)
      const called = yield* p(() => client.callTool({ name: "tool_7", arguments: {} }))
      assert.notStrictEqual(called.isError, true)
    }))
})

describe("Gateway: a policy written once applies to every kind", () => {
  it.effect("deny: [\"*\"] on a server: none of its tools, resources or prompts are listed, found or served", () =>
    Effect.gen(function*() {
      const secret = Fake.make([Fake.echoTool("secret_wipe", "Wipe the secret vault")])
      secret.resources = [{ uri: "vault://secret/keys", name: "keys", mimeType: "text/plain" }]
      secret.prompts = [{ name: "secret_prompt", description: "Reveal the vault" }]
      const open = Fake.make([Fake.echoTool("open_read", "Read the open notes")])
      open.resources = [{ uri: "notes://open/today", name: "today", mimeType: "text/plain" }]
      open.prompts = [{ name: "open_prompt", description: "Summarize the notes" }]
      const client = yield* connect(
        yield* upstreams([
          { name: "secret", transport: secret.transport, filter: { deny: ["*"] } },
          { name: "open", transport: open.transport }
        ])
      )
      const found = yield* p(() =>
        client.callTool({ name: "ToolSearch", arguments: { query: "wipe the secret vault" } })
      )
      assert.notInclude(functionsOf(found), "secret_wipe")
      const selected = yield* p(() =>
        client.callTool({ name: "ToolSearch", arguments: { query: "select:secret_wipe" } })
      )
      assert.deepStrictEqual(functionsOf(selected), [])
      const called = yield* p(() => client.callTool({ name: "secret_wipe", arguments: {} }))
      assert.isTrue(called.isError)
      assert.deepStrictEqual(secret.calls, [], "the server never got the call")

      const resources = (yield* p(() => client.listResources())).resources.map((r) => r.uri)
      assert.deepStrictEqual(resources, ["notes://open/today"])
      const read = yield* failure(() => client.readResource({ uri: "vault://secret/keys" }))
      assert.include(read.message, "vault://secret/keys")
      const prompts = (yield* p(() => client.listPrompts())).prompts.map((x) => x.name)
      assert.deepStrictEqual(prompts, ["open_prompt"])
      const prompt = yield* failure(() => client.getPrompt({ name: "secret_prompt" }))
      assert.include(prompt.message, "secret_prompt")
      assert.deepStrictEqual(secret.resourceRequests, [], "no read or prompt reached the denied server")
    }))

  it.effect("strict mode: a search answer never names a server the session cannot see, nor its error", () =>
    Effect.gen(function*() {
      const hidden = Fake.make([Fake.echoTool("hidden_tool", "Hidden platform operation")])
      hidden.startup = "refuse" // fails: its error would say why
      const mine = Fake.make([Fake.echoTool("mine_read", "Read my notes")])
      mine.startup = "hang" // still starting: a connected server the session may know of
      const context = yield* upstreams([
        { name: "hidden", kind: "platform", transport: hidden.transport },
        { name: "mine", kind: "connected", transport: mine.transport }
      ], { start: "background" })
      yield* McpSources.awaitStatus("hidden", (s) => s.state === "failed" || s.error !== undefined).pipe(
        Effect.provideContext(context)
      )
      const client = yield* connect(context, Visibility.layer({ strict: true, connected: ["mine"] }))
      for (const query of ["hidden operation", "mine notes", "anything at all"]) {
        const answer = textOf(yield* p(() => client.callTool({ name: "ToolSearch", arguments: { query } })))
        assert.notInclude(answer, "hidden", query)
        assert.notInclude(answer.toLowerCase(), "refuse", query)
      }
      // the connected server is named while it starts
      const mineAnswer = textOf(yield* p(() => client.callTool({ name: "ToolSearch", arguments: { query: "mine" } })))
      assert.include(mineAnswer, "mine: still starting")
      // without strict mode, the failing platform server is named, with why
      const open = yield* connect(context, Visibility.layer({ strict: false }))
      const named = textOf(
        yield* p(() => open.callTool({ name: "ToolSearch", arguments: { query: "hidden operation" } }))
      )
      assert.include(named, "hidden: unavailable")
    }))
})
