import { assert, describe, it } from "@effect/vitest"
import {
  CatalogTool,
  Disclosure,
  NativeDeferral,
  Permission,
  Setting,
  ToolCatalog,
  ToolSearchConfig
} from "@tool-search/core"
import { ConfigProvider, Effect, Exit, Layer, Stream } from "effect"
import type { LanguageModel, Prompt, Response } from "effect/ai"
import { Approval, Executor, ScriptedModel, SessionStore, TokenCounter, TurnEvent } from "../src/index.js"
import { agent, CatalogLive, plans, recordingModel, tool, typedTool, user } from "./fixtures.js"

// -----------------------------------------------------------------------------
// A model that answers with hand-written responses and records what it was sent
// -----------------------------------------------------------------------------

const call = (id: string, name: string, params: unknown): Response.PartEncoded => ({
  type: "tool-call",
  id,
  name,
  params
})
const via = (id: string, name: string, args: unknown) =>
  call(id, Disclosure.toolNames.callTool, { name, arguments: args })
const answer: ReadonlyArray<Response.PartEncoded> = [{ type: "text", text: "done" }]

/** A model's turn that loads `weather_forecast` by name, calls it the way `calling` writes a call, then answers. */
const loadAndCallWeather = (calling: typeof call) => [
  [call("1", "ToolSearch", { query: "select:weather_forecast" })],
  [calling("2", "weather_forecast", { text: "Oslo" })],
  answer
]

const recording = (responses: ReadonlyArray<ReadonlyArray<Response.PartEncoded>>, deferredTools: boolean) => {
  const { layer: model, seen } = recordingModel(responses)
  const support = Layer.succeed(NativeDeferral.Support, { provider: "the test model", deferredTools })
  return { seen, layer: Layer.merge(model, support) }
}

// eager tools for the checks that come after resolution (arguments, approval, failure)
const typed = typedTool()
const guarded = tool("delete_repo", "Delete a repository", { loading: "eager" })
const failing = tool("flaky", "Fails", {
  loading: "eager",
  handler: CatalogTool.handler("flaky", () => Effect.fail("the backend is down"))
})
const forbidden = tool("wire_money", "Wire money", { loading: "eager" })

const agentOf = (
  delivery: Executor.Delivery,
  responses: ReadonlyArray<ReadonlyArray<Response.PartEncoded>>,
  deferredTools = false,
  options: Partial<Executor.Options> = {}
) => {
  const model = recording(responses, deferredTools)
  const catalog = Layer.effectDiscard(
    Effect.flatMap(ToolCatalog.ToolCatalog, (c) => c.register([typed, guarded, failing, forbidden]))
  ).pipe(Layer.provideMerge(CatalogLive), Layer.orDie)
  const layer = Executor.layerMemory({ ...options, delivery }).pipe(
    Layer.provideMerge(model.layer),
    Layer.provideMerge(catalog),
    Layer.provide(TokenCounter.layerApproximate),
    Layer.provide(Permission.layer({ allows: (t) => t.name !== "wire_money" })),
    Layer.provide(Approval.layer({ decide: (r) => Effect.succeed(r.tool.name !== "delete_repo") }))
  )
  return { seen: model.seen, layer }
}

const turn = (prompt = "go") =>
  Effect.flatMap(Executor.Executor, (e) => Stream.runCollect(e.stream({ prompt: user(prompt) })))

const requestsOf = (events: ReadonlyArray<TurnEvent.TurnEvent>) => events.filter(TurnEvent.$is("ModelRequest"))
const resultsOf = (events: ReadonlyArray<TurnEvent.TurnEvent>) => events.filter(TurnEvent.$is("ToolResult"))

/** The tool-result parts of the last request's prompt. */
const toolResultParts = (options: LanguageModel.ProviderOptions | undefined): ReadonlyArray<Prompt.ToolResultPart> =>
  (options?.prompt.content ?? []).flatMap((m) =>
    m.role === "tool" ? m.content.filter((p): p is Prompt.ToolResultPart => p.type === "tool-result") : []
  )

// -----------------------------------------------------------------------------
// result
// -----------------------------------------------------------------------------

describe("result delivery: one tool list per unit, found tools called through call_tool", () => {
  it.effect("the list never changes; a found tool runs through call_tool; each request extends the last", () =>
    Effect.gen(function*() {
      const { layer, seen } = agentOf("result", loadAndCallWeather(via))
      const events = yield* turn().pipe(Effect.provide(layer))
      const requests = requestsOf(events)
      assert.strictEqual(requests.length, 3)
      const sent = seen.map((o) => o.tools.map((t) => t.name))
      assert.deepStrictEqual(new Set(sent.map((names) => names.join(","))).size, 1, "one tool list for the turn")
      assert.include(sent[0] ?? [], Disclosure.toolNames.callTool)
      assert.notInclude(sent[2] ?? [], "weather_forecast")

      const ran = resultsOf(events).find((r) => r.name === "weather_forecast")
      assert.strictEqual(ran?.via, Disclosure.toolNames.callTool)
      assert.deepStrictEqual(ran?.result, { tool: "weather_forecast", params: { text: "Oslo" } })
      const started = events.filter(TurnEvent.$is("ToolCall")).find((c) => c.name === "weather_forecast")
      assert.strictEqual(started?.via, Disclosure.toolNames.callTool)
      // the result answers the call the model made: call_tool, by its id
      const answered = toolResultParts(seen[2]).find((p) => p.id === "2")
      assert.strictEqual(answered?.name, Disclosure.toolNames.callTool)

      // every request starts with the whole previous one: the prompt cache holds
      assert.strictEqual(requests[0]?.prefixTokens, 0)
      assert.strictEqual(requests[1]?.prefixTokens, requests[0]?.inputTokens)
      assert.strictEqual(requests[2]?.prefixTokens, requests[1]?.inputTokens)
    }))

  it.effect("permission, approval, arguments and corrective messages are those of a direct call", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, unknown]> = [
        ["weather_forecast", { text: "Oslo" }], // deferred, not loaded
        ["no_such_tool", {}], // unknown
        ["wire_money", {}], // not permitted
        ["create_ticket", { priority: "high" }], // arguments that do not fit
        ["delete_repo", {}], // not approved
        ["flaky", {}], // fails
        ["create_ticket", { title: "outage" }] // fine
      ]
      const direct = yield* turn().pipe(
        Effect.provide(agentOf("list", [...cases.map(([name, args], i) => [call(`${i}`, name, args)]), answer]).layer)
      )
      const dispatched = yield* turn().pipe(
        Effect.provide(agentOf("result", [...cases.map(([name, args], i) => [via(`${i}`, name, args)]), answer]).layer)
      )
      const outcome = (r: TurnEvent.ToolResult) => ({ name: r.name, failure: r.failure, result: r.result })
      assert.deepStrictEqual(resultsOf(dispatched).map(outcome), resultsOf(direct).map(outcome))
      assert.deepStrictEqual(resultsOf(direct).map((r) => r.failure), [
        "not-active",
        "unknown",
        "not-permitted",
        "invalid-arguments",
        "not-approved",
        "failed",
        null
      ])
      assert.include(
        String(resultsOf(dispatched)[0]?.result),
        `Call ToolSearch with {"query": "select:weather_forecast"}`
      )
      assert.isTrue(resultsOf(dispatched).every((r) => r.via === Disclosure.toolNames.callTool))
    }))

  it.effect("a malformed call_tool is answered with what it needs; it cannot call itself", () =>
    Effect.gen(function*() {
      const events = yield* turn().pipe(Effect.provide(
        agentOf("result", [
          [call("1", Disclosure.toolNames.callTool, { arguments: {} })],
          [call("2", Disclosure.toolNames.callTool, "not json")],
          [via("3", Disclosure.toolNames.callTool, {})],
          [call(
            "4",
            Disclosure.toolNames.callTool,
            JSON.stringify({ name: "create_ticket", arguments: { title: "x" } })
          )],
          answer
        ]).layer
      ))
      const results = resultsOf(events)
      assert.deepStrictEqual(results.map((r) => r.failure), [
        "invalid-arguments",
        "invalid-arguments",
        "invalid-arguments",
        null
      ])
      assert.include(String(results[0]?.result), `call_tool needs {"name"`)
      assert.include(String(results[2]?.result), "cannot call itself")
      assert.strictEqual(results[3]?.name, "create_ticket") // arguments encoded twice are read
    }))

  it.effect("call_tool is bounded like any call: huge or deep arguments are refused before anything runs", () =>
    Effect.gen(function*() {
      let deep: unknown = { title: "x" }
      for (let i = 0; i < 10; i++) deep = { nested: deep }
      const events = yield* turn().pipe(Effect.provide(
        agentOf(
          "result",
          [
            [call("1", Disclosure.toolNames.callTool, "x".repeat(10_000))],
            [via("2", "create_ticket", { title: "y".repeat(10_000) })],
            [via("3", "create_ticket", deep)],
            [via("4", "n".repeat(1_000), {})],
            answer
          ],
          false,
          { toolArgumentsMaxSize: 1_000, toolArgumentsMaxDepth: 4 }
        ).layer
      ))
      const results = resultsOf(events)
      assert.deepStrictEqual(results.map((r) => r.failure), [
        "invalid-arguments",
        "invalid-arguments",
        "invalid-arguments",
        "invalid-arguments"
      ])
      assert.include(String(results[0]?.result), "larger than 1,000 characters")
      assert.include(String(results[1]?.result), "larger than 1,000 characters")
      assert.include(String(results[2]?.result), "deeper than 4 levels")
      assert.include(String(results[3]?.result), "call_tool needs")
    }))

  it.effect("a search through call_tool still runs before the other calls of the response", () =>
    Effect.gen(function*() {
      const events = yield* turn().pipe(Effect.provide(
        agentOf("result", [
          [
            via("1", "weather_forecast", { text: "Oslo" }),
            via("2", "ToolSearch", { query: "select:weather_forecast" })
          ],
          answer
        ]).layer
      ))
      const results = resultsOf(events)
      assert.deepStrictEqual(results.map((r) => [r.name, r.failure]), [["ToolSearch", null], [
        "weather_forecast",
        null
      ]])
    }))

  it.effect("the scripted model searches, then calls through call_tool; the guesser follows the correction", () =>
    Effect.gen(function*() {
      const executor = yield* Executor.Executor
      const capable = yield* executor.run({ prompt: user("tell #ops the deploy is done") })
      assert.strictEqual(capable.stopReason, "answered")
      const guesser = yield* Stream.runCollect(executor.stream({ prompt: user("open a ticket for the outage") }))
      const calls = guesser.filter(TurnEvent.$is("ToolCall")).map((c) => `${c.via ?? ""}>${c.name}`)
      assert.deepStrictEqual(calls, [">tickets_create", ">ToolSearch", "call_tool>tickets_create"])
      const tools = (yield* Effect.flatMap(ScriptedModel.ModelLog, (l) => l.requests)).map((r) => r.tools.join(","))
      assert.strictEqual(new Set(tools).size, 1)
    }).pipe(Effect.provide(
      Executor.layerMemory({ delivery: "result" }).pipe(
        Layer.provideMerge(ScriptedModel.layer({
          policy: "capable",
          plan: (text) => text.startsWith("open") ? { ...plans[text]!, policy: "guesser" } : plans[text]
        })),
        Layer.provideMerge(CatalogLive),
        Layer.provide(TokenCounter.layerApproximate)
      )
    )))
})

// -----------------------------------------------------------------------------
// list
// -----------------------------------------------------------------------------

describe("list delivery and the prefix it keeps", () => {
  it.effect("an activation changes the tool list mid-way: the next request keeps only the tools before it", () =>
    Effect.gen(function*() {
      const executor = yield* Executor.Executor
      const events = yield* Stream.runCollect(executor.stream({ prompt: user("tell #ops the deploy is done") }))
      const [first, second, third] = requestsOf(events)
      assert.strictEqual(first?.prefixTokens, 0)
      assert.isAbove(second?.prefixTokens ?? 0, 0)
      assert.isBelow(second?.prefixTokens ?? 0, first?.inputTokens ?? 0)
      assert.strictEqual(third?.prefixTokens, second?.inputTokens)
      const finished = events.find(TurnEvent.$is("TurnFinished"))
      assert.strictEqual(finished?.inputTokens, requestsOf(events).reduce((s, r) => s + r.inputTokens, 0))
      assert.strictEqual(finished?.prefixTokens, requestsOf(events).reduce((s, r) => s + r.prefixTokens, 0))
      // the next turn opens with the first turn's opening: the same tools and first message
      const next = yield* Stream.runCollect(executor.stream({ prompt: user("tell #ops the deploy is done") }))
      assert.strictEqual(requestsOf(next)[0]?.prefixTokens, first?.inputTokens)
      const totals = yield* executor.totals
      assert.strictEqual(
        totals.prefixTokens,
        (finished?.prefixTokens ?? 0) + requestsOf(next).reduce((s, r) => s + r.prefixTokens, 0)
      )
    }).pipe(Effect.provide(agent("capable"))))

  it.effect("the provider's cached input tokens are carried in ModelResponse", () =>
    Effect.gen(function*() {
      const events = yield* turn()
      const response = events.find(TurnEvent.$is("ModelResponse"))
      assert.deepStrictEqual([response?.inputTokens, response?.cachedInputTokens], [120, 100])
    }).pipe(Effect.provide(
      agentOf("list", [[
        { type: "text", text: "hi" },
        { type: "finish", reason: "stop", usage: { inputTokens: { total: 120, cacheRead: 100 }, outputTokens: {} } }
      ]]).layer
    )))
})

// -----------------------------------------------------------------------------
// native
// -----------------------------------------------------------------------------

describe("native delivery: deferred tools the provider's way", () => {
  it.effect("every findable deferred tool is sent marked DeferLoading; a search result references what it loaded", () =>
    Effect.gen(function*() {
      const { layer, seen } = agentOf("native", loadAndCallWeather(call), true)
      const events = yield* turn().pipe(Effect.provide(layer))
      const deferred = seen.map((o) => o.tools.filter(NativeDeferral.isDeferred).map((t) => t.name))
      assert.include(deferred[0] ?? [], "weather_forecast")
      assert.notInclude(deferred[0] ?? [], "read_file") // eager: in the list, in full
      assert.notInclude(deferred[0] ?? [], "ToolSearch")
      assert.deepStrictEqual(new Set(seen.map((o) => o.tools.map((t) => t.name).join(","))).size, 1)
      assert.deepStrictEqual(requestsOf(events).map((r) => r.deferredTools), [
        deferred[0]?.length,
        deferred[0]?.length,
        deferred[0]?.length
      ])
      const search = toolResultParts(seen[1]).find((p) => p.id === "1")
      assert.deepStrictEqual(search === undefined ? [] : NativeDeferral.referencesOf(search), ["weather_forecast"])
      const ran = toolResultParts(seen[2]).find((p) => p.id === "2")
      assert.deepStrictEqual(ran === undefined ? ["missing"] : NativeDeferral.referencesOf(ran), [])
      assert.strictEqual(resultsOf(events)[1]?.failure, null)
    }))

  it.effect("on a model that cannot defer tools, the executor is not built", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Layer.build(agentOf("native", [answer], false).layer))
      assert.isTrue(Exit.isFailure(exit))
      assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), "the test model cannot")
    }))

  it.effect("TOOL_SEARCH_DELIVERY=native on such a model is a ConfigError naming the variable and the provider", () =>
    Effect.gen(function*() {
      const layer = Executor.layerConfig().pipe(
        Layer.provide(SessionStore.layerConfig),
        Layer.provide([CatalogLive, recording([answer], false).layer, TokenCounter.layerApproximate]),
        Layer.provide(ToolSearchConfig.layerConfig),
        Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { TOOL_SEARCH_DELIVERY: "native" } })))
      )
      const failure = yield* Effect.flip(Layer.build(layer))
      const error = failure._tag === "ConfigError" ? Setting.explain(failure) : failure.message
      assert.include(error, "TOOL_SEARCH_DELIVERY")
      assert.include(error, "the test model cannot")
    }))
})
