import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Result } from "effect"
import { CatalogTool, Query, Regex, SearchDocument, ToolCatalog } from "../src/index.js"
import * as RegexIndex from "../src/internal/regexIndex.js"
import * as Pattern from "../src/internal/regexPattern.js"
import { indexOf } from "./kit/tools.js"

const doc = (input: CatalogTool.Input) => SearchDocument.fromTool(CatalogTool.make(input))

const names = [
  "slack_send_message",
  "slack_list_channels",
  "github_create_issue",
  "send_message",
  "Slack_Send_Message_With_Attachments"
]

const index = Effect.gen(function*() {
  const index = yield* indexOf(Regex.layer)
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
      assert.isTrue(Result.isSuccess(Pattern.compile("a".repeat(200))))
    }))

  it.effect("a catastrophic pattern for backtracking engines is cheap: its steps are linear in the names", () =>
    Effect.gen(function*() {
      // `(a+)+$` against "aaa…!" backtracks 2^n steps in a backtracking engine; 500 such names of
      // 64 characters would never finish there. Here its budget is the linear bound itself.
      const names = Array.from({ length: 500 }, (_, i) => `${"a".repeat(60)}${i}`.slice(0, 63) + "_")
      const perChar = Pattern.instructions(Result.getOrThrow(Pattern.compile("(a+)+$")))
      const linear = names.reduce((sum, n) => sum + (n.length + 1) * perChar, 0)
      const index = yield* RegexIndex.make({ maxSteps: linear })
      index.add(names.map((name) => doc({ name })))
      assert.deepStrictEqual(yield* index.search({ text: "(a+)+$", limit: 5, accept: () => true }), [])
    }))

  it.effect("a pattern too expensive for the catalog stops at the step budget and says so", () =>
    Effect.gen(function*() {
      const index = yield* RegexIndex.make({ maxSteps: 5_000_000 })
      const names = Array.from({ length: 2000 }, (_, i) => `tool_${i}_send_message_to_channel_${i % 97}`)
      index.add(names.map((name) => doc({ name })))
      const expensive = "(.{0,30}){10}x"
      const perChar = Pattern.instructions(Result.getOrThrow(Pattern.compile(expensive)))
      const cheap = Pattern.instructions(Result.getOrThrow(Pattern.compile("send.*message")))
      assert.isAbove(perChar, 40 * cheap, "counted repetitions multiply the program")
      const error = yield* Effect.flip(index.search({ text: expensive, limit: 5, accept: () => true }))
      assert.strictEqual(error._tag, "InvalidQuery")
      const stopped = /stopped after (\d+) steps \(the limit is 5000000\)/.exec(error.message)
      assert.isNotNull(stopped, error.message)
      // it stopped at the first name past the budget, long before the whole catalog (51M steps)
      assert.isAtMost(Number(stopped?.[1]), 5_000_000 + 64 * perChar)
      assert.match(error.message, /too expensive for this catalog: it costs up to \d+ steps per character/)
      // an ordinary pattern over the same catalog fits the same budget
      assert.lengthOf(yield* index.search({ text: "send.*message", limit: 5, accept: () => true }), 5)
    }))

  it.effect("a long search yields: a fiber started after it runs before it ends", () =>
    Effect.gen(function*() {
      const index = yield* RegexIndex.make({ yieldEvery: 100 })
      index.add(Array.from({ length: 5000 }, (_, i) => doc({ name: `tool_${i}_send_message` })))
      const order: Array<string> = []
      const search = yield* Effect.forkChild(
        Effect.tap(
          index.search({ text: "send.*message", limit: 5, accept: () => true }),
          () => Effect.sync(() => order.push("search"))
        )
      )
      const ping = yield* Effect.forkChild(Effect.sync(() => order.push("ping")))
      yield* Fiber.join(search)
      yield* Fiber.join(ping)
      assert.deepStrictEqual(order, ["ping", "search"])
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
    }).pipe(Effect.provide(ToolCatalog.layer.pipe(Layer.provide(Regex.layer)))))
})
