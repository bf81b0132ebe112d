import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { CatalogTool, Query, Strategies, ToolCatalog } from "../src/index.js"

const tools = [
  CatalogTool.make({ name: "slack_send_message", description: "Send a message to a Slack channel", category: "chat" }),
  CatalogTool.make({ name: "mail_send", description: "Send an email message", category: "mail" }),
  CatalogTool.make({ name: "read_file", description: "Read a file from disk", category: "files" })
]

const catalogWith = (name: Strategies.Name) => ToolCatalog.layer.pipe(Layer.provide(Strategies.layer(name)))

describe("built-in strategies", () => {
  it("bm25f is the default, and every name resolves to a layer", () => {
    assert.strictEqual(Strategies.defaultName, "bm25f")
    assert.deepStrictEqual([...Strategies.names], ["bm25f", "keyword", "regex", "semantic", "hybrid"])
    for (const name of Strategies.names) assert.isTrue(Layer.isLayer(Strategies.layer(name)))
  })

  for (const name of ["bm25f", "keyword"] as const) {
    describe(`${name}`, () => {
      it.effect("live index: a tool registered after the first search is found by the next", () =>
        Effect.gen(function*() {
          const catalog = yield* ToolCatalog.ToolCatalog
          yield* catalog.register(tools)
          assert.deepStrictEqual(yield* catalog.search(Query.keywords("calendar event"), { limit: 3 }), [])
          yield* catalog.register(
            CatalogTool.make({ name: "calendar_create_event", description: "Create a calendar event" })
          )
          const hits = yield* catalog.search(Query.keywords("calendar event"), { limit: 3 })
          assert.strictEqual(hits[0]?.tool.name, "calendar_create_event")
          yield* catalog.unregister("calendar_create_event")
          assert.deepStrictEqual(yield* catalog.search(Query.keywords("calendar event"), { limit: 3 }), [])
        }).pipe(Effect.provide(catalogWith(name))))

      it.effect("a category filter keeps one category, and falls back to all when it leaves nothing", () =>
        Effect.gen(function*() {
          const catalog = yield* ToolCatalog.ToolCatalog
          yield* catalog.register(tools)
          const mail = yield* catalog.search(Query.keywords("send message"), { limit: 5, category: "mail" })
          assert.deepStrictEqual(mail.map((m) => m.tool.name), ["mail_send"])
          const fallback = yield* catalog.search(Query.keywords("send message"), { limit: 5, category: "files" })
          assert.sameMembers(fallback.map((m) => m.tool.name), ["slack_send_message", "mail_send"])
        }).pipe(Effect.provide(catalogWith(name))))

      it.effect("a minimum score drops weaker hits", () =>
        Effect.gen(function*() {
          const catalog = yield* ToolCatalog.ToolCatalog
          yield* catalog.register(tools)
          const all = yield* catalog.search(Query.keywords("send slack message"), { limit: 5 })
          assert.isAtLeast(all.length, 2)
          const top = all[0]?.score ?? 0
          const strict = yield* catalog.search(Query.keywords("send slack message"), { limit: 5, minScore: top })
          assert.deepStrictEqual(strict.map((m) => m.tool.name), ["slack_send_message"])
        }).pipe(Effect.provide(catalogWith(name))))
    })
  }
})
