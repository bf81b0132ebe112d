import { assert, describe, it } from "@effect/vitest"
import { ToolSearchConfig } from "@tool-search/core"
import { ConfigProvider, Effect, Layer, Stream } from "effect"
import { Executor, ScriptedModel, SessionStore, TokenCounter } from "../src/index.js"
import { CatalogLive, plans } from "./fixtures.js"

/** An agent configured from environment variables (the `TOOL_SEARCH_*` table). */
const configured = (env: Record<string, string>, policy: ScriptedModel.Policy) => {
  const settings = Layer.unwrap(
    Effect.map(ToolSearchConfig.config.parse(ConfigProvider.fromEnv({ env })), ToolSearchConfig.layer)
  )
  return Executor.layerConfig({ maxIterations: 8 }).pipe(
    Layer.provide(SessionStore.layerConfig),
    Layer.orDie,
    Layer.provideMerge(ScriptedModel.layer({ policy, plan: (text) => plans[text] })),
    Layer.provideMerge(CatalogLive),
    Layer.provide(TokenCounter.layerApproximate),
    Layer.provide(Layer.orDie(settings)),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))
  )
}

const turn = (text: string, sessionId = "s") =>
  Effect.flatMap(
    Executor.Executor,
    (e) => Stream.runCollect(e.stream({ sessionId, prompt: [{ role: "user", content: text }] }))
  )

describe("the executor, configured from the environment", () => {
  const discoveryFirst = {
    TOOL_SEARCH_MODE: "staged",
    TOOL_SEARCH_DISCOVERY_FIRST: "true",
    TOOL_SEARCH_STRICT: "false"
  }
  const stagedConnected = {
    TOOL_SEARCH_MODE: "staged",
    TOOL_SEARCH_CONNECTED: "weather",
    TOOL_SEARCH_EXPLORE: "true",
    TOOL_SEARCH_SEARCH_TOOLS: "true"
  }
  const sessionActivation = {
    TOOL_SEARCH_ACTIVATION: "session",
    TOOL_SEARCH_EVICTION: "lru:1",
    TOOL_SEARCH_STRICT: "false"
  }

  it.effect("staged + discovery-first: the table of contents is in the system prompt, search_tools is forced once", () =>
    Effect.gen(function*() {
      const events = yield* turn("what is the weather in Oslo")
      const requests = events.flatMap((e) => e._tag === "ModelRequest" ? [e] : [])
      assert.strictEqual(requests[0]?.toolChoice, "search_tools")
      assert.deepStrictEqual(requests.slice(1).map((r) => r.toolChoice), requests.slice(1).map(() => "auto"))
      assert.deepStrictEqual(requests[0]?.tools, ["read_file", "search_tools", "ToolSearch"])
      // a weak model, forced once, browses, promotes with ToolSearch, then calls the tool
      const calls = events.flatMap((e) => e._tag === "ToolCall" ? [e.name] : [])
      assert.deepStrictEqual(calls, ["search_tools", "ToolSearch", "weather_forecast"])
      const finished = events.find((e) => e._tag === "TurnFinished")
      assert.include(finished?._tag === "TurnFinished" ? finished.text : "", "weather_forecast")
      const log = yield* Effect.flatMap(ScriptedModel.ModelLog, (l) => l.requests)
      assert.strictEqual(log.length, requests.length)
    }).pipe(Effect.provide(configured(discoveryFirst, "weak"))))

  it.effect("staged: the system prompt carries the table of contents", () =>
    Effect.gen(function*() {
      const executor = yield* Executor.Executor
      const result = yield* executor.run({ prompt: [{ role: "user", content: "what is the weather in Oslo" }] })
      const system = result.prompt.content.find((m) => m.role === "system")
      assert.isDefined(system)
      const text = system?.role === "system" ? system.content : ""
      assert.include(text, "weather_forecast (load first)")
      assert.include(text, "search_tools")
    }).pipe(Effect.provide(configured(stagedConnected, "capable"))))

  it.effect("TOOL_SEARCH_ACTIVATION and TOOL_SEARCH_EVICTION reach the executor and its session store", () =>
    Effect.gen(function*() {
      yield* turn("tell #ops the deploy is done", "a")
      const second = yield* turn("open a ticket for the outage", "a")
      const started = second.find((e) => e._tag === "TurnStarted")
      assert.include(started?._tag === "TurnStarted" ? started.carried : [], "chat_send_message")
      // lru:1 — a turn in another session evicts session "a"
      yield* turn("what is the weather in Oslo", "b")
      const third = yield* turn("open a ticket for the outage", "a")
      const again = third.find((e) => e._tag === "TurnStarted")
      assert.deepStrictEqual(again?._tag === "TurnStarted" ? again.carried : ["?"], [])
    }).pipe(Effect.provide(configured(sessionActivation, "capable"))))
})
