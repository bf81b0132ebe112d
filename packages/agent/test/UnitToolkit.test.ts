import { assert, describe, it } from "@effect/vitest"
import { CatalogTool, Unit } from "@tool-search/core"
import { Deferred, Effect, Fiber, Layer, Ref, Stream } from "effect"
import { type LanguageModel, Prompt, type Response } from "effect/ai"
import { TestClock } from "effect/testing"
import { Executor, TokenCounter, TurnEvent, UnitToolkit } from "../src/index.js"
import { CatalogLive, fakeModel, scripted, tool, typedTool, user } from "./fixtures.js"

const events = Effect.flatMap(Executor.Executor, (e) => Stream.runCollect(e.stream({ prompt: user("go") })))
const resultsOf = (all: ReadonlyArray<TurnEvent.TurnEvent>) => all.filter(TurnEvent.$is("ToolResult"))
const call = (name: string, params: unknown, id = "1") => ({ type: "tool-call" as const, id, name, params })
const answer = [{ type: "text" as const, text: "ok" }]

describe("every tool call is bounded, and a bad one never ends the turn", () => {
  const ran = Ref.makeUnsafe(0)
  const typed = typedTool({
    handler: CatalogTool.handler("create_ticket", () => Effect.as(Ref.update(ran, (n) => n + 1), { ok: true }))
  })

  it.effect("a handler that throws synchronously is reported as crashed; the turn goes on", () =>
    Effect.gen(function*() {
      const all = yield* events
      const result = resultsOf(all)[0]
      assert.strictEqual(result?.failure, "defect")
      assert.include(String(result?.result), "Tool 'throws_now' crashed: thrown before any Effect")
      assert.strictEqual(all.filter(TurnEvent.$is("TurnFinished"))[0]?.stopReason, "answered")
    }).pipe(Effect.provide(scripted([[call("throws_now", {})], answer], {}, [
      // a raw object, not built with CatalogTool.make: the executor's own boundary catches it
      {
        ...tool("throws_now", "Throws", { loading: "eager" }),
        handler: () => {
          throw new Error("thrown before any Effect")
        }
      }
    ]))))

  it.effect("arguments that do not fit the schema never reach the handler; the result names each path", () =>
    Effect.gen(function*() {
      yield* Ref.set(ran, 0)
      const results = resultsOf(yield* events)
      assert.deepStrictEqual(results.map((r) => r.failure), [
        "invalid-arguments",
        "invalid-arguments",
        "invalid-arguments",
        "invalid-arguments",
        null
      ])
      assert.include(String(results[0]?.result), "Expected a JSON object, got text that is not JSON")
      assert.include(String(results[1]?.result), "Expected an object, got null")
      assert.include(String(results[2]?.result), "got an array")
      const mistyped = String(results[3]?.result)
      assert.include(mistyped, `- priority: Expected number, got "abc"`)
      assert.include(mistyped, "- extra: Unknown property")
      assert.include(mistyped, "- title: Missing required property")
      assert.strictEqual(yield* Ref.get(ran), 1) // only the valid call ran
    }).pipe(Effect.provide(scripted(
      [[
        call("create_ticket", "{bad json", "1"),
        call("create_ticket", null, "2"),
        call("create_ticket", [1, 2], "3"),
        call("create_ticket", { priority: "abc", extra: 1 }, "4"),
        call("create_ticket", { title: "outage", priority: 1 }, "5")
      ], answer],
      {},
      [typed]
    ))))

  it.effect("oversized and overly deep arguments are refused by the configured limits", () =>
    Effect.gen(function*() {
      const results = resultsOf(yield* events)
      const of = (name: string) => results.find((r) => r.name === name)
      assert.strictEqual(of("create_ticket")?.failure, "invalid-arguments")
      assert.include(String(of("create_ticket")?.result), "larger than 100 characters")
      // search tools decode their own input, but the bounds apply to them too
      assert.strictEqual(of("ToolSearch")?.failure, "invalid-arguments")
      assert.include(String(of("ToolSearch")?.result), "nested deeper than 3 levels")
    }).pipe(Effect.provide(scripted(
      [[
        call("create_ticket", { title: "x".repeat(200) }, "1"),
        call("ToolSearch", { query: "x", deep: { a: { b: {} } } }, "2")
      ], answer],
      { toolArgumentsMaxSize: 100, toolArgumentsMaxDepth: 3 },
      [typed]
    ))))

  const hangStarted = Deferred.makeUnsafe<void>()
  it.effect("a call that never returns is cancelled at the timeout and answered as such (TestClock)", () =>
    Effect.gen(function*() {
      const executor = yield* Executor.Executor
      const fiber = yield* Effect.forkChild(Stream.runCollect(executor.stream({ prompt: user("go") })))
      yield* Deferred.await(hangStarted)
      yield* TestClock.adjust("59 seconds")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 second")
      const all = yield* Fiber.join(fiber)
      const result = resultsOf(all)[0]
      assert.strictEqual(result?.failure, "timeout")
      assert.include(String(result?.result), "did not finish within 1m and was cancelled")
      assert.strictEqual(all.filter(TurnEvent.$is("TurnFinished"))[0]?.stopReason, "answered")
    }).pipe(Effect.provide(scripted([[call("hangs", {})], answer], { toolTimeout: "1 minute" }, [
      tool("hangs", "Never answers", {
        loading: "eager",
        handler: () => Effect.andThen(Deferred.succeed(hangStarted, undefined), Effect.never)
      })
    ]))))

  it.effect("a huge result is cut for the model, with a note; the event keeps the whole result", () =>
    Effect.gen(function*() {
      const executor = yield* Executor.Executor
      const all = yield* Stream.runCollect(executor.stream({ prompt: user("go") }))
      const result = resultsOf(all)[0]
      const seen = String(result?.result)
      assert.isBelow(seen.length, 1_000)
      assert.include(seen, "[Result cut to 100 tokens: 1,999,600 of 2,000,000 characters not shown.")
      assert.strictEqual(result?.truncated?.totalCharacters, 2_000_000)
      assert.strictEqual(result?.truncated?.full, "y".repeat(2_000_000))
      // what the model received in the next request is the cut text
      const toolMessage = (yield* executor.run({ prompt: user("go") })).prompt.content.find((m) => m.role === "tool")
      const part = toolMessage?.role === "tool" ? toolMessage.content[0] : undefined
      assert.strictEqual(part?.type === "tool-result" ? String(part.result).length : -1, seen.length)
    }).pipe(Effect.provide(scripted([[call("dump", {})], answer, [call("dump", {})], answer], {
      toolResultMaxTokens: 100
    }, [
      tool("dump", "Returns a lot", {
        loading: "eager",
        handler: CatalogTool.handler("dump", () => Effect.succeed("y".repeat(2_000_000)))
      })
    ]))))

  it.effect("o200k: a cut result is within the cap, and special-token text is ordinary text", () =>
    Effect.gen(function*() {
      const counter = yield* TokenCounter.TokenCounter
      const text = `<|endoftext|> ${"lorem ipsum dolor sit amet ".repeat(5_000)}`
      assert.isAbove(counter.count(text), 100)
      const kept = counter.truncate(text, 100)
      assert.isTrue(text.startsWith(kept))
      assert.isAtMost(counter.count(kept), 100)
      assert.isAbove(counter.count(kept), 90)
      assert.strictEqual(counter.truncate("short", 100), "short")
    }).pipe(Effect.provide(TokenCounter.o200k)))
})

describe("UnitToolkit in your own generateText loop", () => {
  // The model calls a deferred tool before loading it, follows the correction, then answers.
  const script: ReadonlyArray<ReadonlyArray<Parameters<typeof call>>> = [
    [["tickets_create", { text: "outage" }, "1"], ["no_such_tool", {}, "2"]],
    [["ToolSearch", { query: "select:tickets_create" }, "3"]],
    [["tickets_create", { text: "outage" }, "4"]]
  ]
  const sent: Array<ReadonlyArray<string>> = []
  const Model = fakeModel(Effect.map(Ref.make(0), (step) => (options: LanguageModel.ProviderOptions) =>
    Effect.map(
      Ref.getAndUpdate(step, (n) => n + 1),
      (n): Array<Response.PartEncoded> => {
        sent.push(options.tools.map((t) => t.name))
        return n < script.length ? (script[n] ?? []).map((c) => call(...c)) : [{ type: "text", text: "filed" }]
      }
    )))

  it.effect("calls to deferred, unknown tools become corrective results, never an AiError", () =>
    Effect.gen(function*() {
      const tools = yield* UnitToolkit.make()
      let prompt = Prompt.make("file a ticket")
      const failures: Array<string | null> = []
      for (let i = 0; i < 6; i++) {
        const step = yield* tools.generateText({ prompt })
        prompt = step.prompt
        failures.push(...step.outcomes.map((o) => o.failure))
        if (step.response.toolCalls.length === 0) break
      }
      assert.deepStrictEqual(failures, ["not-active", "unknown", null, null])
      assert.deepStrictEqual(sent, [
        ["read_file", "ToolSearch"],
        ["read_file", "ToolSearch"],
        ["read_file", "ToolSearch", "tickets_create"],
        ["read_file", "ToolSearch", "tickets_create"]
      ])
      const messages = prompt.content.filter((m) => m.role === "tool")
      assert.strictEqual(messages.length, 3)
    }).pipe(
      Unit.provide,
      Effect.provide(Layer.mergeAll(Model, CatalogLive))
    ))

  it.effect("a call by name runs the same path: arguments are checked against the tool's schema", () =>
    Effect.gen(function*() {
      const tools = yield* UnitToolkit.make()
      const outcome = yield* tools.handle({ id: "1", name: "read_file", params: { text: 42 } })
      assert.strictEqual(outcome.failure, "invalid-arguments")
      assert.include(String(outcome.result), "Expected string, got 42")
    }).pipe(
      Unit.provide,
      Effect.provide(CatalogLive)
    ))
})
