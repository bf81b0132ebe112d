// The gateway's resources and prompts, driven by the official SDK client over in-memory transports
// in front of fake upstreams: listings and reads forwarded to the right server with colliding URIs
// qualified, resource links of tool results readable in their own session only, subscriptions
// delivered to the subscribed session only, list changes, hostile requests and answers, and strict
// mode hiding a non-selected resource from every level.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import {
  type McpError as SdkMcpError,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ResultSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Keyword, Permission, ResourceCatalog, ToolCatalog, Visibility } from "@tool-search/core"
import { Gateway, McpSources, QualifiedUri, type Upstream } from "@tool-search/mcp"
import { type Context, Effect, Layer, Logger, Queue } from "effect"
import * as Fake from "./fixtures/FakeServer.js"
import { turn } from "./fixtures/TestTime.js"

type Services = ToolCatalog.ToolCatalog | ResourceCatalog.ResourceCatalog | McpSources.McpSources

/**
 * The gateway's services over fresh catalogs, in the test's scope, ready once every server is.
 * Bodies are indexed (read at registration) only when asked, as `serve` does with `resourceTools`.
 */
const upstreams = (servers: ReadonlyArray<Upstream.Input>, indexBodies = false) =>
  Layer.build(
    McpSources.layerWithResources(servers).pipe(
      Layer.provideMerge(ToolCatalog.layer),
      Layer.provideMerge(ResourceCatalog.layerWith({ indexBodies })),
      Layer.provide(Keyword.layer),
      Layer.provide(Logger.layer([]))
    )
  )

interface Session {
  readonly client: Client
  readonly updated: Queue.Dequeue<string>
  readonly listChanged: Queue.Dequeue<void>
}

/** An SDK client on a new gateway session serving resources, with `policies` in context. */
const connect = (
  context: Context.Context<Services>,
  options: Partial<Gateway.Options> = {},
  policies: Layer.Layer<never> = Layer.empty
) =>
  Effect.gen(function*() {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    yield* Effect.forkScoped(
      Gateway.serve(serverSide, options).pipe(
        Gateway.withResources,
        Gateway.withSources,
        Effect.provideContext(context),
        Effect.provide(Layer.merge(policies, Logger.layer([])))
      )
    )
    const client = new Client({ name: "test", version: "1" })
    const updated = yield* Queue.unbounded<string>()
    const listChanged = yield* Queue.unbounded<void>()
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      Queue.offerUnsafe(updated, n.params.uri)
    })
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      Queue.offerUnsafe(listChanged, undefined)
    })
    yield* Effect.promise(() => client.connect(clientSide))
    yield* Effect.addFinalizer(() => Effect.promise(() => client.close()))
    return { client, updated, listChanged } satisfies Session
  })

/** A raw request the SDK client would not send: its JSON-RPC error. */
const refused = (session: Session, method: string, params: unknown) =>
  Effect.flip(
    Effect.tryPromise({
      try: () => session.client.request({ method, params } as never, ResultSchema),
      catch: (e) => e as SdkMcpError
    })
  )

const p = <A>(f: () => Promise<A>) => Effect.promise(f)
const failure = <A>(f: () => Promise<A>) => Effect.flip(Effect.tryPromise({ try: f, catch: (e) => e as SdkMcpError }))

/** Runs `f`, which must fail with the MCP error `code`, its message including `text`. */
const failsWith = <A>(f: () => Promise<A>, code: number, text: string) =>
  Effect.map(failure(f), (error) => {
    assert.strictEqual(error.code, code)
    assert.include(error.message, text)
  })

const doc = (uri: string, name = uri, description?: string) => ({
  uri,
  name,
  mimeType: "text/plain",
  ...(description === undefined ? {} : { description })
})

const textOf = (result: { contents: ReadonlyArray<unknown> }) =>
  result.contents.map((c) => (c as { text?: string }).text ?? "").join("")

/** Two servers whose URIs and prompt names collide, one with a template and a link-returning tool. */
const twoServers = () => {
  const a = Fake.make([Fake.echoTool("report", "Write a report")])
  a.resources = [doc("docs://shared/readme", "readme"), doc("docs://a/guide", "guide")]
  a.prompts = [{ name: "review", description: "Review code", arguments: [{ name: "code", required: true }] }]
  a.onCall = async () => ({
    content: [
      { type: "text", text: "report written" },
      { type: "resource_link", uri: "docs://a/reports/7", name: "Report 7" },
      { type: "resource_link", uri: "docs://shared/readme", name: "Readme" }
    ]
  })
  const b = Fake.make()
  b.resources = [doc("docs://shared/readme", "readme")]
  b.templates = [{ uriTemplate: "logs://b/{day}", name: "logs", mimeType: "text/plain" }]
  b.prompts = [{ name: "review", description: "Review prose" }, { name: "summary" }]
  return { a, b, servers: [{ name: "a", transport: a.transport }, { name: "b", transport: b.transport }] }
}

/** The two servers behind one gateway, and two client sessions of that gateway. */
const twoSessions = Effect.gen(function*() {
  const { a, servers } = twoServers()
  const context = yield* upstreams(servers)
  return { a, sessions: [yield* connect(context), yield* connect(context)] as const }
})

describe("Gateway resources: listing and reading", () => {
  it.effect("lists upstream resources, templates and prompts, qualifying colliding URIs and names", () =>
    Effect.gen(function*() {
      const { a, b, servers } = twoServers()
      const session = yield* connect(yield* upstreams(servers))
      const qa = QualifiedUri.qualify("a", "docs://shared/readme")
      const qb = QualifiedUri.qualify("b", "docs://shared/readme")
      const listed = yield* p(() => session.client.listResources())
      assert.sameMembers(listed.resources.map((r) => r.uri), [qa, qb, "docs://a/guide"])
      const templates = yield* p(() => session.client.listResourceTemplates())
      assert.deepStrictEqual(templates.resourceTemplates.map((t) => t.uriTemplate), ["logs://b/{day}"])
      const prompts = yield* p(() => session.client.listPrompts())
      assert.sameMembers(prompts.prompts.map((x) => x.name), ["a__review", "b__review", "summary"])
      assert.deepStrictEqual(prompts.prompts.find((x) => x.name === "a__review")?.arguments, [
        { name: "code", required: true }
      ])

      // each read reaches the server that listed the URI, under its own URI; the answer carries the client's URI
      const fromB = yield* p(() => session.client.readResource({ uri: qb }))
      assert.deepStrictEqual(fromB.contents, [{
        uri: qb,
        mimeType: "text/plain",
        text: "the body of docs://shared/readme"
      }])
      assert.deepStrictEqual(b.resourceRequests, ["read docs://shared/readme"])
      assert.deepStrictEqual(a.resourceRequests, [])
      assert.strictEqual(
        textOf(yield* p(() => session.client.readResource({ uri: "docs://a/guide" }))),
        "the body of docs://a/guide"
      )
      // a concrete URI of a template
      const log = yield* p(() => session.client.readResource({ uri: "logs://b/monday" }))
      assert.deepStrictEqual(log.contents.map((c) => c.uri), ["logs://b/monday"])
      // the unqualified form of a collided URI names no single resource
      yield* failsWith(
        () => session.client.readResource({ uri: "docs://shared/readme" }),
        -32002,
        `is listed by several servers; read one of ${qa}, ${qb}`
      )

      const got = yield* p(() => session.client.getPrompt({ name: "a__review", arguments: { code: "x = 1" } }))
      assert.deepStrictEqual(got.messages, [{
        role: "user",
        content: { type: "text", text: "review {\"code\":\"x = 1\"}" }
      }])
      assert.deepStrictEqual(a.resourceRequests.slice(-1), ["prompt review"])
      yield* failsWith(() => session.client.getPrompt({ name: "a__review" }), -32602, "needs the arguments code")
    }))

  it.effect("a tool's resource links are rewritten to the gateway's URIs and readable in that session only", () =>
    Effect.gen(function*() {
      const { a, sessions: [session, other] } = yield* twoSessions
      yield* p(() => session.client.callTool({ name: "ToolSearch", arguments: { query: "select:report" } }))
      const result = yield* p(() => session.client.callTool({ name: "report", arguments: {} }))
      const links = (result.content as ReadonlyArray<{ type: string; uri?: string }>).filter((c) =>
        c.type === "resource_link"
      )
      // an unlisted URI keeps its form; a collided one is a's qualified URI
      assert.deepStrictEqual(links.map((l) => l.uri), [
        "docs://a/reports/7",
        QualifiedUri.qualify("a", "docs://shared/readme")
      ])
      const report = yield* p(() => session.client.readResource({ uri: "docs://a/reports/7" }))
      assert.strictEqual(textOf(report), "the body of docs://a/reports/7")
      assert.include(a.resourceRequests, "read docs://a/reports/7")
      // another session never received the link: for it the resource does not exist
      const elsewhere = yield* failure(() => other.client.readResource({ uri: "docs://a/reports/7" }))
      assert.strictEqual(elsewhere.code, -32002)
    }))

  it.effect("updates reach the subscribed session only; the last unsubscribe unsubscribes upstream", () =>
    Effect.gen(function*() {
      const { a, sessions: [subscriber, bystander] } = yield* twoSessions
      yield* p(() => subscriber.client.subscribeResource({ uri: "docs://a/guide" }))
      assert.deepStrictEqual(a.resourceRequests, ["subscribe docs://a/guide"])
      yield* p(() => a.updated("docs://a/guide"))
      assert.strictEqual(yield* Queue.take(subscriber.updated), "docs://a/guide")
      yield* turn
      assert.strictEqual(yield* Queue.size(bystander.updated), 0)
      yield* p(() => subscriber.client.unsubscribeResource({ uri: "docs://a/guide" }))
      assert.deepStrictEqual(a.resourceRequests, ["subscribe docs://a/guide", "unsubscribe docs://a/guide"])
    }))

  it.effect("an upstream resources/list_changed reaches a session that listed, as resources/list_changed", () =>
    Effect.gen(function*() {
      const { a, servers } = twoServers()
      const session = yield* connect(yield* upstreams(servers), { listChangedDelay: 0 })
      yield* p(() => session.client.listResources())
      a.resources = [...(a.resources ?? []), doc("docs://a/new", "new")]
      yield* p(() => a.resourcesChanged())
      yield* Queue.take(session.listChanged)
      const listed = yield* p(() => session.client.listResources())
      assert.include(listed.resources.map((r) => r.uri), "docs://a/new")
    }))
})

describe("Gateway resources: hostile requests and answers", () => {
  it.effect("bad params are -32602 in one line; an unknown cursor too; nothing reaches an upstream", () =>
    Effect.gen(function*() {
      const { a, servers } = twoServers()
      const session = yield* connect(yield* upstreams(servers))
      const long = yield* refused(session, "resources/read", { uri: `docs://${"x".repeat(5_000)}` })
      assert.strictEqual(long.code, -32602)
      const notString = yield* refused(session, "resources/read", { uri: 5 })
      assert.strictEqual(notString.code, -32602)
      const args = yield* refused(session, "prompts/get", { name: "a__review", arguments: { code: { deep: 1 } } })
      assert.strictEqual(args.code, -32602)
      const cursor = yield* refused(session, "resources/list", { cursor: "../../etc" })
      assert.strictEqual(cursor.code, -32602)
      assert.deepStrictEqual(a.resourceRequests, [])
    }))

  it.effect("an upstream answer over maxResourceBytes or with invalid base64 is refused, naming it", () =>
    Effect.gen(function*() {
      const { a, servers } = twoServers()
      a.onRead = async (uri) =>
        uri === "docs://a/guide"
          ? { contents: [{ uri, text: "x".repeat(5_000) }] }
          : { contents: [{ uri, blob: "not base64!" }] }
      const session = yield* connect(yield* upstreams(servers), {
        limits: { ...Gateway.defaults.limits, maxResourceBytes: 1_024 }
      })
      const big = yield* failure(() => session.client.readResource({ uri: "docs://a/guide" }))
      assert.include(big.message, "over the limit of 1024 (maxResourceBytes)")
      const bad = yield* failure(() =>
        session.client.readResource({ uri: QualifiedUri.qualify("a", "docs://shared/readme") })
      )
      assert.include(bad.message, "invalid base64")
    }))

  it.effect("subscriptions per session are bounded (maxSubscriptions)", () =>
    Effect.gen(function*() {
      const { servers } = twoServers()
      const session = yield* connect(yield* upstreams(servers), { maxSubscriptions: 1 })
      yield* p(() => session.client.subscribeResource({ uri: "docs://a/guide" }))
      yield* failsWith(() => session.client.subscribeResource({ uri: "logs://b/monday" }), -32602, "maxSubscriptions")
    }))

  it.effect("permission: a resource listed but not permitted cannot be read", () =>
    Effect.gen(function*() {
      const { a, servers } = twoServers()
      const session = yield* connect(
        yield* upstreams(servers),
        {},
        Permission.allowOnly(["docs://a/guide"])
      )
      assert.strictEqual(
        textOf(yield* p(() => session.client.readResource({ uri: "docs://a/guide" }))),
        "the body of docs://a/guide"
      )
      const denied = yield* failure(() => session.client.readResource({ uri: "logs://b/monday" }))
      assert.include(denied.message, "not permitted")
      assert.deepStrictEqual(a.resourceRequests, ["read docs://a/guide"])
    }))
})

describe("Gateway resources: completions", () => {
  it.effect("completion/complete goes to the prompt's server under its own name; a hidden prompt is unknown", () =>
    Effect.gen(function*() {
      const { a, b, servers } = twoServers()
      const context = yield* upstreams(servers)
      const session = yield* connect(context)
      const completed = yield* p(() =>
        session.client.complete({
          ref: { type: "ref/prompt", name: "a__review" },
          argument: { name: "code", value: "fn" }
        })
      )
      assert.deepStrictEqual(completed.completion.values, ["fn-done"])
      assert.deepStrictEqual(a.resourceRequests, ["complete review code"])
      // a session whose policies hide b's prompts: as unknown as a prompt that does not exist, b never asked
      const hidden = yield* connect(context, {}, Permission.allowOnly([]))
      const refused = yield* failure(() =>
        hidden.client.complete({ ref: { type: "ref/prompt", name: "summary" }, argument: { name: "x", value: "" } })
      )
      assert.strictEqual(refused.code, -32602)
      assert.include(refused.message, "Unknown prompt 'summary'")
      assert.deepStrictEqual(b.resourceRequests, [])
    }))
})

describe("Gateway resources: strict mode", () => {
  it.effect("a non-selected resource of a platform server is hidden from every level", () =>
    Effect.gen(function*() {
      const wiki = Fake.make()
      wiki.resources = [
        doc("wiki://public/onboarding", "onboarding", "How new staff get their laptop."),
        doc("wiki://secret/salaries", "salaries", "Salary bands for every laptop engineer.")
      ]
      wiki.templates = [{ uriTemplate: "wiki://secret/people/{id}", name: "people" }]
      wiki.prompts = [{ name: "leak" }]
      wiki.onRead = async (uri) => ({ contents: [{ uri, text: `# ${uri}\n\nlaptop policy text for ${uri}` }] })
      const context = yield* upstreams([{ name: "wiki", transport: wiki.transport, kind: "platform" }], true)
      const strict = Visibility.layer({ strict: true, select: ["wiki://public/onboarding"] })
      const session = yield* connect(context, { resourceTools: true }, strict)
      const secret = "wiki://secret/salaries"

      // MCP methods: not listed, not readable, not subscribable; the template and the prompt neither
      assert.deepStrictEqual((yield* p(() => session.client.listResources())).resources.map((r) => r.uri), [
        "wiki://public/onboarding"
      ])
      assert.deepStrictEqual((yield* p(() => session.client.listResourceTemplates())).resourceTemplates, [])
      assert.deepStrictEqual((yield* p(() => session.client.listPrompts())).prompts, [])
      for (const uri of [secret, "wiki://secret/people/1"]) {
        assert.strictEqual((yield* failure(() => session.client.readResource({ uri }))).code, -32002)
        assert.strictEqual((yield* failure(() => session.client.subscribeResource({ uri }))).code, -32002)
      }
      assert.strictEqual((yield* failure(() => session.client.getPrompt({ name: "leak" }))).code, -32602)
      // the qualified alias is no way around it
      const alias = QualifiedUri.qualify("wiki", secret)
      assert.strictEqual((yield* failure(() => session.client.readResource({ uri: alias }))).code, -32002)

      // the level tools: L2 sample, L3 search, L4 read
      const tool = (name: string, args: Record<string, unknown>) =>
        Effect.map(p(() => session.client.callTool({ name, arguments: args })), (r) =>
          (r.content as ReadonlyArray<{ text?: string }>).map((c) => c.text ?? "").join(""))
      const tools = (yield* p(() =>
        session.client.listTools()
      )).tools.map((t) => t.name)
      assert.includeMembers(tools, ["sample_resources", "search_resources", "read_resource"])
      const sampled = yield* tool("sample_resources", { query: "salary bands laptop", max: 20 })
      assert.notInclude(sampled, "secret")
      assert.include(yield* tool("sample_resources", { uri: secret }), "Unknown resource")
      const searched = yield* tool("search_resources", { query: "laptop policy text", max: 20 })
      assert.include(searched, "wiki://public/onboarding")
      assert.notInclude(searched, "secret")
      const read = yield* tool("read_resource", { uri: secret })
      assert.include(read, "Unknown resource")
      assert.notInclude(read, "Did you mean")
      // upstream, the secret was read once — by the search index at registration — and never for this client
      assert.deepStrictEqual(wiki.resourceRequests.filter((r) => r.includes("secret")), [`read ${secret}`])
    }))
})
