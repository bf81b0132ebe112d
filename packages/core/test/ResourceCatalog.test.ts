import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Option, Ref, Stream } from "effect"
import { TestClock } from "effect/testing"
import { Resource, ResourceCatalog, ResourceReadError, SearchStrategy } from "../src/index.js"
import {
  EmptyResources,
  handbook,
  handbookText,
  logTemplate,
  resourceCatalogOf,
  summaryPrompt,
  wikiPage
} from "./kit/resources.js"

const Catalog = ResourceCatalog.ResourceCatalog
const all = { limit: 10, accept: () => true }

/** A resource whose reader counts its calls. */
const counted = (uri: string, text: string, reads: Ref.Ref<number>) =>
  Resource.make({
    uri,
    name: uri,
    read: (r) => Effect.as(Ref.update(reads, (n) => n + 1), Resource.sliceText(text, r.offset, r.length))
  })

describe("ResourceCatalog", () => {
  it.effect("indexes bodies into passages and finds the passage that answers", () =>
    Effect.gen(function*() {
      const catalog = yield* Catalog
      const entry = Option.getOrThrow(yield* catalog.get(handbook.uri))
      assert.isAbove(entry.passages, 3)
      assert.strictEqual(entry.size, handbookText.length)
      assert.isUndefined(entry.unsearchable)
      const hits = yield* catalog.searchPassages("restocking fee for opened laptops", all)
      const best = hits[0]
      assert.strictEqual(best?.resource.uri, handbook.uri)
      assert.strictEqual(best?.passage.heading, "Customer handbook › Returns › Laptops")
      assert.include(best?.passage.text, "15% restocking fee")
      assert.strictEqual(
        handbookText.slice(best?.passage.offset, (best?.passage.offset ?? 0) + (best?.passage.length ?? 0)),
        best?.passage.text
      )
    }).pipe(Effect.provide(resourceCatalogOf([handbook, wikiPage(1), wikiPage(2)]))))

  it.effect("samples by metadata and by body, fused, with the matching passage", () =>
    Effect.gen(function*() {
      const catalog = yield* Catalog
      const byName = yield* catalog.sample("customer handbook", all)
      assert.strictEqual(byName[0]?.resource.uri, handbook.uri)
      const byBody = yield* catalog.sample("express shipping euros", all)
      assert.strictEqual(byBody[0]?.resource.uri, handbook.uri)
      assert.include(byBody[0]?.passage?.text, "Express shipping")
      const filtered = yield* catalog.sample("notes", { limit: 10, accept: (e) => e.uri !== "wiki://acme/page-1" })
      assert.deepStrictEqual(filtered.map((m) => m.resource.uri), ["wiki://acme/page-2"])
    }).pipe(Effect.provide(resourceCatalogOf([handbook, wikiPage(1), wikiPage(2), summaryPrompt]))))

  it.effect("prompts, templates, binary bodies and failing readers are registered but not searchable", () =>
    Effect.gen(function*() {
      const catalog = yield* Catalog
      const reason = (uri: string) => Effect.map(catalog.get(uri), (e) => Option.getOrThrow(e).unsearchable ?? "")
      assert.strictEqual(yield* reason(summaryPrompt.uri), "it is a prompt")
      assert.include(yield* reason(logTemplate.uri), "URI template")
      assert.strictEqual(yield* reason("bin://image"), "its body is binary")
      assert.include(
        yield* reason("broken://a"),
        "its body could not be read (Reading resource 'broken://a' failed: down)"
      )
      assert.include(yield* reason("crash://a"), "its body could not be read (boom)")
      // all of them can still be sampled by their metadata
      const found = yield* catalog.sample("broken", all)
      assert.strictEqual(found[0]?.resource.uri, "broken://a")
    }).pipe(Effect.provide(resourceCatalogOf([
      summaryPrompt,
      logTemplate,
      Resource.make({
        uri: "bin://image",
        name: "image",
        read: (r) => Effect.succeed(Resource.sliceBytes(new Uint8Array([1, 2, 3]), r.offset, r.length))
      }),
      Resource.make({
        uri: "broken://a",
        name: "broken",
        read: (r) => Effect.fail(new ResourceReadError({ uri: r.uri, reason: "down" }))
      }),
      Resource.make({ uri: "crash://a", name: "crash", read: () => Effect.die(new Error("boom")) })
    ]))))

  it.effect("a body that never answers is given up after the index timeout, without blocking the batch", () =>
    Effect.gen(function*() {
      const catalog = yield* Catalog
      const fiber = yield* Effect.forkChild(catalog.register([
        Resource.make({ uri: "slow://a", name: "slow", read: () => Effect.never }),
        wikiPage(1)
      ]))
      yield* TestClock.adjust("31 seconds")
      yield* Fiber.join(fiber)
      const slow = Option.getOrThrow(yield* catalog.get("slow://a"))
      assert.strictEqual(slow.unsearchable, "its body could not be read (it took longer than the index timeout)")
      assert.strictEqual((yield* catalog.searchPassages("budgets", all))[0]?.resource.uri, "wiki://acme/page-1")
    }).pipe(Effect.provide(EmptyResources)))

  it.effect("indexes at most maxIndexedChars of a body and says so", () =>
    Effect.gen(function*() {
      const entry = Option.getOrThrow(yield* (yield* Catalog).get(handbook.uri))
      assert.isTrue(entry.truncated)
      assert.strictEqual(entry.size, handbookText.length)
    }).pipe(Effect.provide(resourceCatalogOf([handbook], { maxIndexedChars: 100 }))))

  it.effect("without indexBodies nothing is read at registration: found by metadata, not searchable", () =>
    Effect.gen(function*() {
      const reads = yield* Ref.make(0)
      const catalog = yield* Catalog
      yield* catalog.register(counted("docs://policy", "# Returns\n\nOpened laptops: 15% restocking fee.", reads))
      assert.strictEqual(yield* Ref.get(reads), 0)
      const entry = Option.getOrThrow(yield* catalog.get("docs://policy"))
      assert.strictEqual(entry.unsearchable, "bodies are not indexed in this catalog")
      assert.deepStrictEqual(yield* catalog.searchPassages("restocking fee", all), [])
      assert.deepStrictEqual((yield* catalog.sample("policy", all)).map((m) => m.resource.uri), ["docs://policy"])
    }).pipe(Effect.provide(resourceCatalogOf([], { indexBodies: false }))))

  it.effect("a batch with one invalid or duplicate resource registers nothing, and reads no body first", () =>
    Effect.gen(function*() {
      const catalog = yield* Catalog
      const reads = yield* Ref.make(0)
      const invalid = yield* Effect.flip(catalog.register([
        counted("ok://a", "alpha", reads),
        Resource.text({ uri: "no scheme", name: "bad", text: "x" })
      ]))
      assert.strictEqual(invalid._tag, "InvalidEntry")
      const duplicate = yield* Effect.flip(
        catalog.register([counted("ok://a", "a", reads), counted("ok://a", "b", reads)])
      )
      assert.strictEqual(duplicate._tag, "DuplicateEntry")
      yield* catalog.register(handbook)
      const taken = yield* Effect.flip(catalog.register([counted("ok://b", "b", reads), handbook]))
      assert.strictEqual(taken._tag, "DuplicateEntry")
      assert.strictEqual(yield* Ref.get(reads), 0)
      assert.deepStrictEqual((yield* catalog.all).map((e) => e.uri), [handbook.uri])
    }).pipe(Effect.provide(EmptyResources)))

  it.effect("rejects hostile definitions with reasons", () =>
    Effect.gen(function*() {
      const catalog = yield* Catalog
      const reason = (r: Resource.Resource) => Effect.map(Effect.flip(catalog.register(r)), (e) => e.message)
      const base = { uri: "ok://x", name: "x", text: "x" }
      assert.include(yield* reason(Resource.text({ ...base, uri: `ok://${"a".repeat(3000)}` })), "longer than 2048")
      assert.include(yield* reason(Resource.text({ ...base, uri: "ok://a b" })), "no spaces")
      assert.include(yield* reason(Resource.text({ ...base, name: " \n " })), "the name is empty")
      assert.include(yield* reason(Resource.text({ ...base, mimeType: "not a type" })), "MIME type")
      assert.include(yield* reason(Resource.text({ ...base, uri: "ok://{x}" })), "declare the resource as a template")
      assert.include(
        yield* reason(Resource.template({ ...base, uri: "ok://{x", read: () => Effect.die("unused") })),
        "bad URI template"
      )
      assert.include(
        yield* reason(Resource.prompt({
          name: "p",
          arguments: [{ name: "a", required: true }, { name: "a", required: false }],
          render: () => Effect.succeed({ messages: [] })
        })),
        "declared twice"
      )
    }).pipe(Effect.provide(EmptyResources)))

  it.effect("resolves concrete URIs through templates", () =>
    Effect.gen(function*() {
      const catalog = yield* Catalog
      assert.strictEqual(Option.getOrThrow(yield* catalog.resolve("logs://acme/2026-11-30")).uri, logTemplate.uri)
      assert.isTrue(Option.isNone(yield* catalog.resolve("logs://acme/2026/11")))
      assert.isTrue(Option.isNone(yield* catalog.resolve("logs://other/1")))
    }).pipe(Effect.provide(resourceCatalogOf([logTemplate]))))

  it.effect("replacing a resource replaces its passages; unregistering removes them", () =>
    Effect.gen(function*() {
      const catalog = yield* Catalog
      yield* catalog.register(Resource.text({ uri: "doc://a", name: "a", text: "The password is swordfish." }))
      assert.strictEqual((yield* catalog.searchPassages("swordfish", all)).length, 1)
      yield* catalog.register(Resource.text({ uri: "doc://a", name: "a", text: "The password is marlin." }), {
        replace: true
      })
      assert.strictEqual((yield* catalog.searchPassages("swordfish", all)).length, 0)
      assert.strictEqual((yield* catalog.searchPassages("marlin", all)).length, 1)
      yield* catalog.unregister("doc://a")
      assert.strictEqual((yield* catalog.searchPassages("marlin", all)).length, 0)
      assert.strictEqual((yield* catalog.sample("password", all)).length, 0)
    }).pipe(Effect.provide(EmptyResources)))

  it.effect("replaceSource makes a source hold exactly the new set, and never takes another source's URI", () =>
    Effect.gen(function*() {
      const catalog = yield* Catalog
      const changes = yield* Stream.runCollect(Stream.take(catalog.changes, 2)).pipe(
        Effect.forkChild({ startImmediately: true })
      )
      yield* catalog.replaceSource("wiki", [wikiPage(1), wikiPage(2)])
      yield* catalog.replaceSource("wiki", [wikiPage(2), wikiPage(3)])
      assert.deepStrictEqual((yield* catalog.all).map((e) => e.uri), [
        handbook.uri,
        "wiki://acme/page-2",
        "wiki://acme/page-3"
      ])
      const collected = yield* Fiber.join(changes)
      assert.deepStrictEqual(collected.map((c) => [c.added, c.removed]), [
        [["wiki://acme/page-1", "wiki://acme/page-2"], []],
        [["wiki://acme/page-2", "wiki://acme/page-3"], ["wiki://acme/page-1"]]
      ])
      const stolen = yield* Effect.flip(catalog.replaceSource("wiki", [{ ...handbook, source: "wiki" }]))
      assert.strictEqual(stolen._tag, "DuplicateEntry")
      assert.strictEqual(Option.getOrThrow(yield* catalog.get(handbook.uri)).source, "handbook")
    }).pipe(Effect.provide(resourceCatalogOf([handbook]))))

  it.effect("concurrent writers and readers never see a half-applied batch", () =>
    Effect.gen(function*() {
      const catalog = yield* Catalog
      const batches = Array.from({ length: 50 }, (_, i) => [wikiPage(2 * i), wikiPage(2 * i + 1)])
      const seen = yield* Effect.forEach(
        batches,
        (batch) =>
          Effect.andThen(
            catalog.register(batch),
            Effect.map(catalog.all, (entries) => entries.length % 2 === 0) // batches of two, never one
          ),
        { concurrency: "unbounded" }
      )
      assert.isTrue(seen.every(Boolean))
      assert.strictEqual((yield* catalog.all).length, 100)
      assert.strictEqual(
        (yield* catalog.searchPassages("project 77 budgets", all))[0]?.resource.uri,
        "wiki://acme/page-77"
      )
    }).pipe(Effect.provide(EmptyResources)))

  it.effect("queries are checked, and a failing backend is an error, never zero results", () =>
    Effect.gen(function*() {
      const catalog = yield* Catalog
      assert.strictEqual((yield* Effect.flip(catalog.searchPassages("   ", all)))._tag, "InvalidQuery")
      assert.strictEqual((yield* Effect.flip(catalog.sample("x".repeat(2001), all)))._tag, "InvalidQuery")
    }).pipe(Effect.provide(resourceCatalogOf([handbook]))))

  it.effect("a crashing strategy becomes SearchFailed", () =>
    Effect.gen(function*() {
      const catalog = yield* Catalog
      const error = yield* Effect.flip(catalog.searchPassages("returns", all))
      assert.strictEqual(error._tag, "SearchFailed")
      assert.include(error.message, "index exploded")
    }).pipe(Effect.provide(
      ResourceCatalog.layerWithResources([handbook]).pipe(
        Layer.provide(Layer.succeed(SearchStrategy.SearchStrategy, {
          name: "broken",
          makeIndex: Effect.succeed({
            add: () => undefined,
            remove: () => undefined,
            search: () => Effect.die(new Error("index exploded"))
          })
        })),
        Layer.orDie
      )
    )))
})
