// McpSources.layerWithResources: each server's resources, templates and prompts in the resource
// catalog, named so that two servers' URIs never collide, kept live on list_changed, and the
// reads, prompts and subscriptions forwarded to the server each came from.
import { assert, describe, it } from "@effect/vitest"
import { Keyword, type Resource, ResourceCatalog, ToolCatalog } from "@tool-search/core"
import { McpSources, QualifiedUri, type Upstream } from "@tool-search/mcp"
import { Context, Effect, Exit, Fiber, Layer, Logger, Scope, Stream } from "effect"
import * as Fake from "./fixtures/FakeServer.js"
import { turn } from "./fixtures/TestTime.js"

/** Builds the sources over fresh catalogs (bodies not read at registration), in the test's scope. */
const start = (servers: ReadonlyArray<Upstream.Input>) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      McpSources.layerWithResources(servers).pipe(
        Layer.provideMerge(ToolCatalog.layer),
        Layer.provideMerge(ResourceCatalog.layerWith({ indexBodies: false })),
        Layer.provide(Keyword.layer),
        Layer.provide(Logger.layer([]))
      )
    )
    const sources = Context.get(context, McpSources.McpSources)
    const resources = sources.resources
    if (resources === undefined) throw new Error("layerWithResources gives resources")
    return { sources, resources, catalog: Context.get(context, ResourceCatalog.ResourceCatalog) }
  })

const doc = (uri: string, name = uri) => ({ uri, name, mimeType: "text/plain" })

const readText = (entry: ResourceCatalog.Entry | undefined, uri = entry?.uri ?? "") =>
  Effect.gen(function*() {
    const read = entry?.read as Resource.Reader
    const slice = yield* read({ uri, offset: 0, length: 1_000 })
    return slice.content._tag === "Text" ? slice.content.text : "bytes"
  })

/** Waits (on the event loop, no time) until the catalog holds exactly `uris`. */
const until = (catalog: ResourceCatalog.Service, uris: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const wanted = [...uris].sort().join("\n")
    for (let i = 0; i < 1_000; i++) {
      if ((yield* catalog.all).map((e) => e.uri).sort().join("\n") === wanted) return
      yield* turn
    }
    assert.fail(`the catalog never held ${wanted}: ${(yield* catalog.all).map((e) => e.uri).join(", ")}`)
  })

describe("McpSources with resources", () => {
  it.effect("a server declaring resources without resources/templates/list still has its resources imported", () =>
    Effect.gen(function*() {
      const a = Fake.make()
      a.resources = [doc("docs://a/readme", "readme")]
      a.templates = undefined
      const { catalog, sources } = yield* start([{ name: "a", transport: a.transport }])
      yield* until(catalog, ["docs://a/readme"])
      assert.match(yield* readText(catalog.getUnsafe("docs://a/readme")), /docs:\/\/a\/readme/)
      const [status] = yield* sources.status
      assert.deepStrictEqual([status?.state, status?.resources, status?.error], ["ready", 1, undefined])
    }))

  it.effect("a URI two servers list is qualified for both; unique URIs keep their form; reads reach the lister", () =>
    Effect.gen(function*() {
      const a = Fake.make()
      a.resources = [doc("docs://shared/readme", "readme"), doc("docs://a/only")]
      const b = Fake.make()
      b.resources = [doc("docs://shared/readme", "readme")]
      b.templates = [{ uriTemplate: "logs://b/{day}", name: "logs" }]
      const { catalog, resources, sources } = yield* start([
        { name: "a", transport: a.transport },
        { name: "b", transport: b.transport }
      ])
      const qa = QualifiedUri.qualify("a", "docs://shared/readme")
      const qb = QualifiedUri.qualify("b", "docs://shared/readme")
      yield* until(catalog, [qa, qb, "docs://a/only", "logs://b/{day}"])
      assert.deepStrictEqual(resources.origin(qa), { _tag: "Resource", server: "a", uri: "docs://shared/readme" })
      assert.deepStrictEqual(resources.origin(qb), { _tag: "Resource", server: "b", uri: "docs://shared/readme" })
      assert.deepStrictEqual(resources.origin("docs://a/only"), { _tag: "Resource", server: "a", uri: "docs://a/only" })
      // the catalog's reader sends each server its own URI
      assert.strictEqual(yield* readText(catalog.getUnsafe(qb)), "the body of docs://shared/readme")
      assert.deepStrictEqual(b.resourceRequests.filter((r) => r.startsWith("read")), ["read docs://shared/readme"])
      // a template keeps its expressions; a concrete URI resolves to it and is read on its server
      const log = catalog.resolveUnsafe("logs://b/monday")
      assert.strictEqual(log?.uri, "logs://b/{day}")
      assert.strictEqual(yield* readText(log, "logs://b/monday"), "the body of logs://b/monday")
      // what a client sees for each server's URIs
      assert.strictEqual(resources.clientUri("a", "docs://shared/readme"), qa)
      assert.strictEqual(resources.clientUri("a", "docs://a/only"), "docs://a/only")
      assert.strictEqual(resources.clientUri("b", "logs://b/tuesday"), "logs://b/tuesday")
      // a's unique URI, as b would link it, is b's qualified one: it can only be read on b
      assert.strictEqual(resources.clientUri("b", "docs://a/only"), QualifiedUri.qualify("b", "docs://a/only"))
      assert.deepStrictEqual((yield* sources.status).map((s) => [s.name, s.resources]), [["a", 2], ["b", 2]])
    }))

  it.effect("an upstream's own tool-search:// URI is qualified with its name: it cannot pose as another server's", () =>
    Effect.gen(function*() {
      const good = Fake.make()
      good.resources = [doc("docs://x")]
      const evil = Fake.make()
      const forged = QualifiedUri.qualify("good", "docs://x")
      evil.resources = [doc(forged, "forged")]
      const { catalog, resources } = yield* start([
        { name: "good", transport: good.transport },
        { name: "evil", transport: evil.transport }
      ])
      const evilUri = QualifiedUri.qualify("evil", forged)
      yield* until(catalog, ["docs://x", evilUri])
      assert.deepStrictEqual(resources.origin(evilUri), { _tag: "Resource", server: "evil", uri: forged })
      assert.deepStrictEqual(QualifiedUri.parse(evilUri), { server: "evil", uri: forged })
      assert.strictEqual(resources.origin(forged), undefined)
    }))

  it.effect("list_changed: when the second claimant leaves, the first one's URI is unqualified again", () =>
    Effect.gen(function*() {
      const a = Fake.make()
      a.resources = [doc("docs://shared")]
      const b = Fake.make()
      b.resources = [doc("docs://shared"), doc("docs://b")]
      const { catalog, resources } = yield* start([
        { name: "a", transport: a.transport },
        { name: "b", transport: b.transport }
      ])
      yield* until(catalog, [
        QualifiedUri.qualify("a", "docs://shared"),
        QualifiedUri.qualify("b", "docs://shared"),
        "docs://b"
      ])
      b.resources = [doc("docs://b")]
      yield* Effect.promise(() => b.resourcesChanged())
      yield* until(catalog, ["docs://shared", "docs://b"])
      assert.deepStrictEqual(resources.origin("docs://shared"), { _tag: "Resource", server: "a", uri: "docs://shared" })
    }))

  it.effect("prompts: each server's, by its own name; prompts/get goes to that server", () =>
    Effect.gen(function*() {
      const a = Fake.make()
      a.prompts = [{ name: "review", arguments: [{ name: "code", required: true }] }]
      const { catalog, resources } = yield* start([{ name: "a", transport: a.transport }])
      yield* until(catalog, ["prompt://a/review"])
      assert.deepStrictEqual(resources.origin("prompt://a/review"), { _tag: "Prompt", server: "a", name: "review" })
      const answer = yield* resources.getPrompt("a", "review", { code: "x" })
      assert.deepStrictEqual(answer, {
        messages: [{ role: "user", content: { type: "text", text: "review {\"code\":\"x\"}" } }]
      })
    }))

  it.effect("subscriptions are counted across subscribers; updates are published by server and URI", () =>
    Effect.gen(function*() {
      const a = Fake.make()
      a.resources = [doc("docs://live")]
      const { catalog, resources } = yield* start([{ name: "a", transport: a.transport }])
      yield* until(catalog, ["docs://live"])
      assert.isTrue(resources.canSubscribe("a"))
      const first = yield* Scope.make()
      const second = yield* Scope.make()
      yield* resources.subscribe("a", "docs://live").pipe(Scope.provide(first))
      yield* resources.subscribe("a", "docs://live").pipe(Scope.provide(second))
      assert.deepStrictEqual(a.resourceRequests, ["subscribe docs://live"])
      const updates = yield* Effect.forkChild(resources.updates.pipe(Stream.take(1), Stream.runCollect), {
        startImmediately: true
      })
      yield* turn
      yield* Effect.promise(() => a.updated("docs://live"))
      assert.deepStrictEqual(yield* Fiber.join(updates), [{ server: "a", uri: "docs://live" }])
      yield* Scope.close(first, Exit.void)
      assert.deepStrictEqual(a.resourceRequests, ["subscribe docs://live"])
      yield* Scope.close(second, Exit.void)
      assert.deepStrictEqual(a.resourceRequests, ["subscribe docs://live", "unsubscribe docs://live"])
    }))

  it.effect("a server without resources or prompts adds none, and its tools still come", () =>
    Effect.gen(function*() {
      const plain = Fake.make([Fake.echoTool("echo")])
      const { catalog, sources } = yield* start([{ name: "plain", transport: plain.transport }])
      assert.deepStrictEqual(yield* catalog.all, [])
      const [status] = yield* sources.status
      assert.deepStrictEqual([status?.state, status?.tools, status?.resources], ["ready", 1, 0])
    }))
})
