import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Option, Stream } from "effect"
import { CatalogTool, Keyword, Query, ToolCatalog, ToolSpec } from "../src/index.js"
import { CatalogLive, EmptyCatalog, tool } from "./kit/tools.js"

const catalog = Effect.service(ToolCatalog.ToolCatalog)
const ids = (entries: ReadonlyArray<{ readonly id: string }>) => entries.map((e) => e.id)

describe("ToolCatalog", () => {
  it.effect("classifies eager and deferred tools, in registration order", () =>
    Effect.gen(function*() {
      const c = yield* catalog
      assert.deepStrictEqual(ids(yield* c.eager), ["Read", "Write"])
      assert.deepStrictEqual(ids(yield* c.deferred), [
        "WebFetch",
        "Grep",
        "ScheduleTask",
        "slack_send_message",
        "slack_list_channels",
        "github_create_issue"
      ])
    }).pipe(Effect.provide(CatalogLive)))

  it.effect("a batch with one bad tool registers nothing", () =>
    Effect.gen(function*() {
      const c = yield* catalog
      const before = yield* c.version
      const error = yield* Effect.flip(c.register([
        tool("good_one", "fine"),
        tool("bad name!", "spaces and punctuation are rejected by providers"),
        tool("good_two", "fine")
      ]))
      assert.strictEqual(error._tag, "InvalidEntry")
      assert.include(error.message, "bad name!")
      assert.strictEqual((yield* c.all).length, 8)
      assert.isTrue(Option.isNone(yield* c.findByName("good_one")))
      assert.strictEqual(yield* c.version, before)
    }).pipe(Effect.provide(CatalogLive)))

  it.effect("a duplicate id is a typed error naming the tool, within a batch or against the catalog", () =>
    Effect.gen(function*() {
      const c = yield* catalog
      const again = yield* Effect.flip(c.register(tool("Grep", "another grep")))
      assert.strictEqual(again._tag, "DuplicateEntry")
      assert.include(again.message, "'Grep'")
      const inBatch = yield* Effect.flip(c.register([tool("x1", "a"), tool("x2", "b", { id: "x1" })]))
      assert.strictEqual(inBatch._tag, "DuplicateEntry")
      assert.isTrue(Option.isNone(yield* c.findByName("x1")))
      yield* c.register(tool("Grep", "a better grep"), { replace: true })
      assert.strictEqual(
        (yield* c.get("Grep")).pipe(Option.map((t) => t.description), Option.getOrUndefined),
        "a better grep"
      )
    }).pipe(Effect.provide(CatalogLive)))

  it.effect("rejects non-object parameter schemas and reserved names", () =>
    Effect.gen(function*() {
      const c = yield* catalog
      const arrayParams = yield* Effect.flip(c.register(tool("t1", "x", { parameters: { type: "array" } })))
      assert.include(arrayParams.message, "parameters must describe an object")
      const reserved = yield* Effect.flip(c.register(tool("ToolSearch", "an impostor")))
      assert.include(reserved.message, "reserved")
      const long = yield* Effect.flip(c.register(tool("x".repeat(65), "too long")))
      assert.strictEqual(long._tag, "InvalidEntry")
    }).pipe(Effect.provide(EmptyCatalog)))

  it.effect("names shared by two sources are qualified by source, only where they collide", () =>
    Effect.gen(function*() {
      const c = yield* catalog
      yield* c.register([
        tool("write_file", "Write a file (local)", { id: "fs-local/write_file", source: "fs-local" }),
        tool("read_file", "Read a file (local)", { id: "fs-local/read_file", source: "fs-local" })
      ])
      assert.strictEqual(Option.getOrThrow(yield* c.get("fs-local/write_file")).modelName, "write_file")
      const changes = yield* c.changes.pipe(
        Stream.take(1),
        Stream.runCollect,
        Effect.forkChild({ startImmediately: true })
      )
      yield* c.register(
        tool("write_file", "Write a file (remote)", { id: "fs-remote/write_file", source: "fs-remote" })
      )
      const names = (yield* c.all).map((t) => t.modelName)
      assert.deepStrictEqual(names, ["fs-local__write_file", "read_file", "fs-remote__write_file"])
      assert.strictEqual(Option.getOrThrow(yield* c.findByName("fs-remote__write_file")).id, "fs-remote/write_file")
      // the declared name is ambiguous now
      assert.isTrue(Option.isNone(yield* c.findByName("write_file")))
      const [change] = yield* Fiber.join(changes)
      assert.deepStrictEqual(change?.renamed, ["fs-local/write_file"])
      // removing the collision restores the plain name
      yield* c.unregister("fs-remote/write_file")
      assert.strictEqual(Option.getOrThrow(yield* c.get("fs-local/write_file")).modelName, "write_file")
    }).pipe(Effect.provide(EmptyCatalog)))

  it.effect("findByName strips a 'functions.' prefix", () =>
    Effect.gen(function*() {
      const c = yield* catalog
      assert.strictEqual(Option.getOrThrow(yield* c.findByName("functions.Grep")).id, "Grep")
    }).pipe(Effect.provide(CatalogLive)))

  it.effect("findByName keeps the prefix when stripping is off", () =>
    Effect.gen(function*() {
      const c = yield* ToolCatalog.ToolCatalog
      yield* c.register(tool("Grep", "search"))
      assert.isTrue(Option.isNone(yield* c.findByName("functions.Grep")))
    }).pipe(Effect.provide(ToolCatalog.layerWith({ stripFunctionsPrefix: false }).pipe(Layer.provide(Keyword.layer)))))

  it.effect("the index is live: a tool registered after a search is found by the next", () =>
    Effect.gen(function*() {
      const c = yield* catalog
      const before = yield* c.search(Query.keywords("kubernetes"), { limit: 5 })
      assert.strictEqual(before.length, 0)
      yield* c.register(tool("kubectl_apply", "Apply a manifest to a Kubernetes cluster"))
      const after = yield* c.search(Query.keywords("kubernetes"), { limit: 5 })
      assert.deepStrictEqual(after.map((m) => m.tool.id), ["kubectl_apply"])
      yield* c.unregister(["kubectl_apply"])
      assert.strictEqual((yield* c.search(Query.keywords("kubernetes"), { limit: 5 })).length, 0)
    }).pipe(Effect.provide(CatalogLive)))

  it.effect("a category filter that leaves nothing falls back to all candidates", () =>
    Effect.gen(function*() {
      const c = yield* catalog
      const filtered = yield* c.search(Query.keywords("send message"), { limit: 5, category: "chat" })
      assert.deepStrictEqual(filtered.map((m) => m.tool.id), ["slack_send_message"])
      const fallback = yield* c.search(Query.keywords("send message"), { limit: 5, category: "no-such-category" })
      assert.deepStrictEqual(fallback.map((m) => m.tool.id), ["slack_send_message"])
      const narrowed = yield* c.search(Query.keywords("file path"), { limit: 5, category: "web" })
      assert.deepStrictEqual(narrowed.map((m) => m.tool.id), ["WebFetch"])
    }).pipe(Effect.provide(CatalogLive)))

  it.effect("a minimum score drops weak hits", () =>
    Effect.gen(function*() {
      const c = yield* catalog
      const all = yield* c.search(Query.keywords("slack channel"), { limit: 5 })
      const strong = yield* c.search(Query.keywords("slack channel"), { limit: 5, minScore: 0.8 })
      assert.isAbove(all.length, strong.length)
      strong.forEach((m) => assert.isAtLeast(m.score, 0.8))
    }).pipe(Effect.provide(CatalogLive)))

  it.effect("replaceSource makes a source hold exactly the given tools, atomically", () =>
    Effect.gen(function*() {
      const c = yield* catalog
      yield* c.replaceSource("slack", [
        tool("slack_send_message", "Send a message (v2)", { source: "slack" }),
        tool("slack_react", "Add an emoji reaction", { source: "slack" })
      ])
      const slack = Effect.map(c.all, (all) => ids(all.filter((t) => t.source === "slack")))
      assert.deepStrictEqual(yield* slack, ["slack_send_message", "slack_react"])
      const bad = yield* Effect.flip(c.replaceSource("slack", [tool("no good", "x")]))
      assert.strictEqual(bad._tag, "InvalidEntry")
      assert.deepStrictEqual(yield* slack, ["slack_send_message", "slack_react"])
    }).pipe(Effect.provide(CatalogLive)))

  it.effect("is safe under concurrent writers and readers", () =>
    Effect.gen(function*() {
      const c = yield* catalog
      const writers = Effect.forEach(
        Array.from({ length: 200 }, (_, i) => i),
        (i) => c.register([tool(`a_${i}`, `alpha ${i}`), tool(`b_${i}`, `beta ${i}`)]),
        { concurrency: "unbounded" }
      )
      const readers = Effect.forEach(
        Array.from({ length: 200 }, () => 0),
        () =>
          Effect.map(c.all, (all) => {
            // batches are atomic: a reader never sees a_i without b_i
            const names = new Set(all.map((t) => t.name))
            for (const name of names) {
              if (name.startsWith("a_")) assert.isTrue(names.has(`b_${name.slice(2)}`))
            }
          }),
        { concurrency: "unbounded" }
      )
      yield* Effect.all([writers, readers], { concurrency: "unbounded" })
      assert.strictEqual((yield* c.all).length, 400)
      assert.strictEqual(yield* c.version, 200)
    }).pipe(Effect.provide(EmptyCatalog)))

  it.effect("publishes changes", () =>
    Effect.gen(function*() {
      const c = yield* catalog
      const fiber = yield* c.changes.pipe(
        Stream.take(2),
        Stream.runCollect,
        Effect.forkChild({ startImmediately: true })
      )
      yield* c.register([tool("one", "1"), tool("two", "2")])
      yield* c.unregister("one")
      const changes = yield* Fiber.join(fiber)
      assert.deepStrictEqual(changes.map((ch) => [ch.added, ch.removed]), [[["one", "two"], []], [[], ["one"]]])
    }).pipe(Effect.provide(EmptyCatalog)))
})

describe("CatalogTool", () => {
  it.effect("an empty parameter schema becomes an object schema", () =>
    Effect.gen(function*() {
      const t = yield* CatalogTool.validate(CatalogTool.make({ name: "noop", parameters: {} }))
      assert.deepStrictEqual(t.parameters, { type: "object" })
    }))

  it.effect("decode names the tool and the problem", () =>
    Effect.gen(function*() {
      const e1 = yield* Effect.flip(ToolSpec.decode({ name: "x", parameters: "nope" }))
      assert.strictEqual(e1.message, "Invalid tool 'x': parameters must be a JSON Schema object")
      const e2 = yield* Effect.flip(ToolSpec.decode({ description: "no name" }))
      assert.include(e2.message, "<unnamed>")
      const e3 = yield* Effect.flip(ToolSpec.decode({ name: "getPM2.5Level" }))
      assert.include(e3.message, "getPM2.5Level")
      const ok = yield* ToolSpec.decode({ name: "getPM2.5Level" }, { names: "sanitize" })
      assert.strictEqual(ok.name, "getPM2_5Level")
      assert.strictEqual(ok.id, "getPM2.5Level")
    }))

  it("sanitizeName keeps long names distinct and valid", () => {
    const a = CatalogTool.sanitizeName(`${"x".repeat(70)}a`)
    const b = CatalogTool.sanitizeName(`${"x".repeat(70)}b`)
    assert.notStrictEqual(a, b)
    assert.isTrue(CatalogTool.isValidName(a) && CatalogTool.isValidName(b))
  })
})
