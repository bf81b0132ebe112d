import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Result } from "effect"
import { CatalogTool, Query, Regex, SearchDocument, ToolCatalog } from "../src/index.js"

const doc = (input: CatalogTool.Input) => SearchDocument.fromTool(CatalogTool.make(input))

const names = [
  "slack_send_message",
  "slack_list_channels",
  "github_create_issue",
  "send_message",
  "Slack_Send_Message_With_Attachments"
]

const index = Effect.gen(function*() {
  const index = yield* Regex.makeIndex
  index.add(names.map((name) => doc({ name })))
  index.add([doc({ name: "notify", aliases: ["push_alert"] })])
  return index
})

const search = (text: string, limit = 10) => Effect.flatMap(index, (i) => i.search({ text, limit, accept: () => true }))

describe("Regex strategy", () => {
  it.effect("matches names case-insensitively and unanchored; a larger matched share ranks first", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual((yield* search("send_message")).map((h) => h.id), [
        "send_message",
        "slack_send_message",
        "Slack_Send_Message_With_Attachments"
      ])
      assert.deepStrictEqual((yield* search("^slack_(list|send)")).map((h) => h.id).sort(), [
        "Slack_Send_Message_With_Attachments",
        "slack_list_channels",
        "slack_send_message"
      ])
      assert.deepStrictEqual((yield* search("issue$")).map((h) => h.id), ["github_create_issue"])
      assert.deepStrictEqual((yield* search("push")).map((h) => h.id), ["notify"], "aliases are names too")
      assert.deepStrictEqual(yield* search("nothing_like_this"), [])
    }))

  it.effect("an invalid pattern is an InvalidQuery that says what is wrong", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(search("slack_(send"))
      assert.strictEqual(error._tag, "InvalidQuery")
      assert.match(error.message, /Invalid regular expression 'slack_\(send': missing closing \)/)
      const lookaround = yield* Effect.flip(search("(?<=slack)_send"))
      assert.match(lookaround.message, /RE2 syntax: no look-around, no back-references/)
    }))

  it.effect("a pattern over 200 characters is rejected with its length", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(search("a".repeat(201)))
      assert.match(error.message, /too long \(201 characters; at most 200\)/)
      assert.isTrue(Result.isSuccess(Regex.compile("a".repeat(200))))
    }))

  it.effect("a catastrophic pattern returns quickly: matching is linear in the name", () =>
    Effect.gen(function*() {
      const index = yield* Regex.makeIndex
      // `(a+)+$` against "aaa…!" backtracks 2^n steps in a backtracking engine; 500 such names of
      // 64 characters would never finish there.
      index.add(Array.from({ length: 500 }, (_, i) => doc({ name: `${"a".repeat(60)}${i}`.slice(0, 63) + "_" })))
      const started = performance.now()
      const hits = yield* index.search({ text: "(a+)+$", limit: 5, accept: () => true })
      const elapsed = performance.now() - started
      assert.deepStrictEqual(hits, [])
      assert.isBelow(elapsed, 100, "the one timing bound the search issue asks for")
      const nested = yield* index.search({ text: "(x+x+)+y|(a|aa)+b", limit: 5, accept: () => true })
      assert.deepStrictEqual(nested, [])
    }))

  it.effect("through the catalog, a bad pattern fails the search instead of returning nothing", () =>
    Effect.gen(function*() {
      const catalog = yield* ToolCatalog.ToolCatalog
      yield* catalog.register(names.map((name) => CatalogTool.make({ name })))
      const parsed = Query.parse("+slack (send")
      assert.isTrue(Result.isSuccess(parsed))
      if (Result.isFailure(parsed)) return
      const error = yield* Effect.flip(catalog.search(parsed.success, { limit: 5 }))
      assert.strictEqual(error._tag, "InvalidQuery")
      const ok = Query.parse("+slack list|send")
      if (Result.isFailure(ok)) return assert.fail("parses")
      assert.deepStrictEqual((yield* catalog.search(ok.success, { limit: 5 })).map((m) => m.tool.name).sort(), [
        "Slack_Send_Message_With_Attachments",
        "slack_list_channels",
        "slack_send_message"
      ])
    }).pipe(Effect.provide(ToolCatalog.ToolCatalog.layer.pipe(Layer.provide(Regex.layer)))))
})
