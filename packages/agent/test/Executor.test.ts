import { assert, describe, it } from "@effect/vitest"
import { CatalogTool, Permission } from "@tool-search/core"
import { Effect, Exit, Fiber, type Layer, Ref, Stream } from "effect"
import { TestClock } from "effect/testing"
import { Approval, Executor, ScriptedModel, TurnEvent } from "../src/index.js"
import { agent, scripted, tool, user } from "./fixtures.js"

const events = (text: string) =>
  Effect.flatMap(Executor.Executor, (executor) => Stream.runCollect(executor.stream({ prompt: user(text) })))

const requests = Effect.flatMap(ScriptedModel.ModelLog, (log) => log.requests)

const ofType = <T extends TurnEvent.TurnEvent["_tag"]>(all: ReadonlyArray<TurnEvent.TurnEvent>, tag: T) =>
  all.filter(TurnEvent.$is(tag))

/** The result of the call of tool `name` among `all`. */
const resultOf = (all: ReadonlyArray<TurnEvent.TurnEvent>, name: string) =>
  ofType(all, "ToolResult").find((r) => r.name === name)

describe("Executor: the loop", () => {
  it.effect("tools activated in iteration n are in the request of iteration n + 1", () =>
    Effect.gen(function*() {
      const executor = yield* Executor.Executor
      const result = yield* executor.run({ prompt: user("tell #ops the deploy is done") })
      const sent = (yield* requests).map((r) => r.tools)
      assert.deepStrictEqual(sent, [
        ["read_file", "ToolSearch"],
        ["read_file", "ToolSearch", "chat_send_message", "chat_list_channels"],
        ["read_file", "ToolSearch", "chat_send_message", "chat_list_channels"]
      ])
      assert.strictEqual(result.stopReason, "answered")
      assert.strictEqual(result.iterations, 3)
      assert.include(result.text, "chat_send_message")
      assert.deepStrictEqual(result.activated, ["chat_send_message", "chat_list_channels"])
    }).pipe(Effect.provide(agent("capable"))))

  it.effect("a call to an inactive deferred tool gets the corrective message, and the model fixes itself", () =>
    Effect.gen(function*() {
      const all = yield* events("open a ticket for the outage")
      const results = ofType(all, "ToolResult")
      assert.deepStrictEqual(results.map((r) => [r.name, r.failure]), [
        ["tickets_create", "not-active"],
        ["ToolSearch", null],
        ["tickets_create", null]
      ])
      assert.include(String(results[0]?.result), `Call ToolSearch with {"query": "select:tickets_create"}`)
      assert.deepStrictEqual(ofType(all, "Activation").map((e) => e.tools), [["tickets_create"]])
      const finished = ofType(all, "TurnFinished")[0]
      assert.strictEqual(finished?.stopReason, "answered")
    }).pipe(Effect.provide(agent("guesser"))))

  it.effect("an unknown tool gets 'did you mean' and does not end the turn", () =>
    Effect.gen(function*() {
      const executor = yield* Executor.Executor
      const result = yield* executor.run({ prompt: user("go") })
      const toolMessage = result.prompt.content.find((m) => m.role === "tool")
      const part = toolMessage?.role === "tool" ? toolMessage.content[0] : undefined
      assert.strictEqual(part?.type, "tool-result")
      if (part?.type !== "tool-result") return
      assert.isTrue(part.isFailure)
      assert.include(String(part.result), "Did you mean: chat_send_message?")
      assert.strictEqual(result.stopReason, "answered")
    }).pipe(Effect.provide(scripted([
      [{ type: "tool-call", id: "1", name: "chat_send_mesage", params: {} }],
      [{ type: "text", text: "ok" }]
    ]))))

  it.effect("a failing tool returns its error as the result; a crashing one is reported as a defect", () =>
    Effect.gen(function*() {
      const broken = yield* events("run the broken tool")
      const brokenResult = resultOf(broken, "broken_tool")
      assert.strictEqual(brokenResult?.failure, "failed")
      assert.include(String(brokenResult?.result), "the backend is down")
      assert.strictEqual(ofType(broken, "TurnFinished")[0]?.stopReason, "answered")
      const crashing = yield* events("run the crashing tool")
      const crash = resultOf(crashing, "crashing_tool")
      assert.strictEqual(crash?.failure, "defect")
      assert.include(String(crash?.result), "null pointer in handler")
      assert.strictEqual(ofType(crashing, "TurnFinished").length, 1)
    }).pipe(Effect.provide(agent("capable", { maxIterations: 4 }))))

  it.effect("the iteration budget ends the turn with a typed stop reason", () =>
    Effect.gen(function*() {
      const executor = yield* Executor.Executor
      const result = yield* executor.run({ prompt: user("tell #ops the deploy is done"), maxIterations: 2 })
      assert.strictEqual(result.stopReason, "max-iterations")
      assert.strictEqual(result.iterations, 2)
    }).pipe(Effect.provide(agent("capable"))))

  /** The result of `chat_send_message` in the capable agent's turn "tell #ops the deploy is done" under `policy`. */
  const sendUnder = <E>(policy: Layer.Layer<never, E>) =>
    Effect.map(events("tell #ops the deploy is done"), (all) => resultOf(all, "chat_send_message")).pipe(
      Effect.provide(agent("capable")),
      Effect.provide(policy)
    )

  it.effect("permission and approval are checked for every call; a refusal is a result, not a crash", () =>
    Effect.map(
      sendUnder(Permission.allowOnly(["ToolSearch", "read_file"])),
      (send) => assert.strictEqual(send?.failure, "not-permitted")
    ))

  it.effect("a call the approval policy denies is answered as not approved", () =>
    Effect.map(
      sendUnder(Approval.layer({ decide: ({ tool }) => Effect.succeed(tool.name !== "chat_send_message") })),
      (send) => {
        assert.strictEqual(send?.failure, "not-approved")
        assert.include(String(send?.result), "was not approved")
      }
    ))

  it.effect("token accounting: the tool definitions sent vs the whole catalog, per request and per turn", () =>
    Effect.gen(function*() {
      const all = yield* events("tell #ops the deploy is done")
      const requests = ofType(all, "ModelRequest")
      for (const r of requests) assert.isBelow(r.toolTokens, r.eagerToolTokens)
      const finished = ofType(all, "TurnFinished")[0]
      assert.strictEqual(finished?.toolTokens, requests.reduce((s, r) => s + r.toolTokens, 0))
      assert.strictEqual(finished?.eagerToolTokens, requests.reduce((s, r) => s + r.eagerToolTokens, 0))
      const totals = yield* Effect.flatMap(Executor.Executor, (e) => e.totals)
      assert.deepStrictEqual(totals.requests, 3)
      assert.deepStrictEqual(totals.toolTokens, finished?.toolTokens)
    }).pipe(Effect.provide(agent("capable"))))
})

describe("Executor: concurrency and supervision", () => {
  it.effect("independent calls of one iteration run concurrently, bounded by toolConcurrency", () =>
    Effect.gen(function*() {
      const executor = yield* Executor.Executor
      const fiber = yield* Effect.forkChild(executor.run({ prompt: user("go") }))
      yield* TestClock.adjust("1 second")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.stopReason, "answered")
      const maxInFlight = yield* Ref.get(peak)
      assert.strictEqual(maxInFlight, 2)
    }).pipe(Effect.provide(scripted(
      [
        ["a", "b", "c", "d"].map((n, i) => ({
          type: "tool-call" as const,
          id: String(i),
          name: `slow_${n}`,
          params: {}
        })),
        [{ type: "text", text: "ok" }]
      ],
      { toolConcurrency: 2 },
      ["a", "b", "c", "d"].map((n) => slowTool(`slow_${n}`))
    ))))

  it.effect("interrupting a turn interrupts its tool calls and closes its scope", () =>
    Effect.gen(function*() {
      const executor = yield* Executor.Executor
      const fiber = yield* Effect.forkChild(executor.run({ prompt: user("go") }))
      yield* Effect.yieldNow
      for (let i = 0; i < 20 && !(yield* Ref.get(started)); i++) yield* Effect.yieldNow
      assert.isTrue(yield* Ref.get(started))
      yield* Fiber.interrupt(fiber)
      assert.isTrue(Exit.hasInterrupts(yield* Fiber.await(fiber)))
      assert.isTrue(yield* Ref.get(released))
    }).pipe(Effect.provide(scripted(
      [[{ type: "tool-call", id: "1", name: "hang", params: {} }], [{ type: "text", text: "never" }]],
      {},
      [hangTool]
    ))))
})

describe("Executor: discovery-first", () => {
  it.effect("a weak model never searches on its own", () =>
    Effect.gen(function*() {
      const executor = yield* Executor.Executor
      const result = yield* executor.run({ prompt: user("what is the weather in Oslo") })
      assert.strictEqual(result.text, "I don't have a tool for that.")
      assert.strictEqual((yield* requests).length, 1)
    }).pipe(Effect.provide(agent("weak"))))

  it.effect("forces the first call of each turn to the search tool, exactly once per turn", () =>
    Effect.gen(function*() {
      const executor = yield* Executor.Executor
      const first = yield* executor.run({ prompt: user("what is the weather in Oslo") })
      assert.include(first.text, "weather_forecast")
      yield* executor.run({ prompt: user("tell #ops the deploy is done") })
      const choices = (yield* requests).map((r) => r.toolChoice)
      assert.deepStrictEqual(choices, ["ToolSearch", "auto", "auto", "ToolSearch", "auto", "auto"])
    }).pipe(Effect.provide(agent("weak", { discoveryFirst: true }))))
})

// Shared state of the supervision tests (each test gets fresh Refs through module-level makeUnsafe).
const inFlight = Ref.makeUnsafe(0)
const peak = Ref.makeUnsafe(0)
const slowTool = (name: string) =>
  tool(name, "A slow tool", {
    loading: "eager",
    handler: CatalogTool.handler(name, () =>
      Effect.gen(function*() {
        const now = yield* Ref.updateAndGet(inFlight, (n) => n + 1)
        yield* Ref.update(peak, (p) => Math.max(p, now))
        yield* Effect.sleep("100 millis")
        yield* Ref.update(inFlight, (n) => n - 1)
        return { ok: true }
      }))
  })

const started = Ref.makeUnsafe(false)
const released = Ref.makeUnsafe(false)
const hangTool = tool("hang", "Never returns", {
  loading: "eager",
  handler: CatalogTool.handler("hang", () =>
    Effect.acquireUseRelease(
      Ref.set(started, true),
      () => Effect.never,
      () => Ref.set(released, true)
    ))
})
