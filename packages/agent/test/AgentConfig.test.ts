import { assert, describe, it } from "@effect/vitest"
import { Setting, ToolSearchConfig } from "@tool-search/core"
import { ConfigProvider, Duration, Effect, Layer } from "effect"
import * as fc from "fast-check"
import { AgentConfig, Eviction, Executor, ScriptedModel, SessionStore, TokenCounter } from "../src/index.js"
import { CatalogLive } from "./fixtures.js"

const load = (env: Record<string, string>) => AgentConfig.config.parse(ConfigProvider.fromEnv({ env }))

describe("AgentConfig.config", () => {
  it.effect("defaults: turn policy, lru:1000", () =>
    Effect.gen(function*() {
      const settings = yield* load({})
      assert.strictEqual(settings.activation, "turn")
      assert.deepStrictEqual(settings.eviction, Eviction.lru(1_000))
    }))

  it.effect("reads both variables; a bad value names the variable", () =>
    Effect.gen(function*() {
      const settings = yield* load({ TOOL_SEARCH_ACTIVATION: "latest", TOOL_SEARCH_EVICTION: "lru:50, ttl:30 minutes" })
      assert.strictEqual(settings.activation, "latest")
      assert.strictEqual(settings.eviction._tag, "Composite")
      const policy = Setting.explain(yield* Effect.flip(load({ TOOL_SEARCH_ACTIVATION: "forever" })))
      assert.strictEqual(policy, `TOOL_SEARCH_ACTIVATION: Expected "turn" | "session" | "latest" | "history"`)
      const eviction = Setting.explain(yield* Effect.flip(load({ TOOL_SEARCH_EVICTION: "lru:0" })))
      assert.include(eviction, "TOOL_SEARCH_EVICTION: the LRU size must be a positive number of sessions")
    }))
})

describe("AgentConfig: the bounds on tool calls", () => {
  it.effect("defaults, values read from the environment, and bad values naming their variable", () =>
    Effect.gen(function*() {
      const defaults = yield* load({})
      assert.strictEqual(Duration.toMillis(defaults.toolTimeout), 300_000)
      assert.strictEqual(defaults.toolResultMaxTokens, 25_000)
      assert.strictEqual(defaults.toolArgumentsMaxSize, 1_000_000)
      assert.strictEqual(defaults.toolArgumentsMaxDepth, 32)
      const set = yield* load({
        TOOL_SEARCH_TOOL_TIMEOUT: "30 seconds",
        TOOL_SEARCH_TOOL_RESULT_MAX_TOKENS: "2000",
        TOOL_SEARCH_TOOL_ARGUMENTS_MAX_SIZE: "4096",
        TOOL_SEARCH_TOOL_ARGUMENTS_MAX_DEPTH: "8"
      })
      assert.strictEqual(Duration.toMillis(set.toolTimeout), 30_000)
      assert.deepStrictEqual(
        [set.toolResultMaxTokens, set.toolArgumentsMaxSize, set.toolArgumentsMaxDepth],
        [2_000, 4_096, 8]
      )
      for (const timeout of ["soon", "0 seconds", "Infinity"]) {
        const error = Setting.explain(yield* Effect.flip(load({ TOOL_SEARCH_TOOL_TIMEOUT: timeout })))
        assert.include(error, "TOOL_SEARCH_TOOL_TIMEOUT: Expected a positive duration")
      }
      const tokens = Setting.explain(yield* Effect.flip(load({ TOOL_SEARCH_TOOL_RESULT_MAX_TOKENS: "0" })))
      assert.include(tokens, "TOOL_SEARCH_TOOL_RESULT_MAX_TOKENS")
    }))

  it.effect("Executor.layerConfig hands them to the executor", () =>
    Effect.gen(function*() {
      const executor = yield* Executor.Executor
      assert.strictEqual(executor.options.toolTimeout, 30_000)
      assert.strictEqual(executor.options.toolResultMaxTokens, 2_000)
      assert.strictEqual(executor.options.toolArgumentsMaxDepth, 8)
    }).pipe(Effect.provide(
      Executor.layerConfig().pipe(
        Layer.provide(SessionStore.layerConfig),
        Layer.provide([CatalogLive, ScriptedModel.layer({ policy: "capable" }), TokenCounter.layerApproximate]),
        Layer.provide(ToolSearchConfig.layerConfig),
        Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({
          env: {
            TOOL_SEARCH_TOOL_TIMEOUT: "30 seconds",
            TOOL_SEARCH_TOOL_RESULT_MAX_TOKENS: "2000",
            TOOL_SEARCH_TOOL_ARGUMENTS_MAX_DEPTH: "8"
          }
        }))),
        Layer.orDie
      )
    )))
})

describe("Eviction.parse", () => {
  it("reads each form", () => {
    assert.deepStrictEqual(Eviction.parse("never"), Eviction.never)
    assert.deepStrictEqual(Eviction.parse("ALWAYS"), Eviction.always)
    assert.deepStrictEqual(Eviction.parse("lru:50"), Eviction.lru(50))
    const ttl = Eviction.parse("ttl:2 hours")
    assert.isTrue(typeof ttl !== "string" && ttl._tag === "Ttl" && Duration.toMillis(ttl.ttl) === 7_200_000)
    const both = Eviction.parse("lru:5,ttl:1 minute")
    assert.isTrue(typeof both !== "string" && both._tag === "Composite" && both.strategies.length === 2)
  })

  it("refuses what it cannot honour, saying why", () => {
    const reason = (s: string) => {
      const parsed = Eviction.parse(s)
      return typeof parsed === "string" ? parsed : "parsed"
    }
    assert.include(reason("ttl:soon"), "positive duration")
    assert.include(reason("ttl:0 seconds"), "positive duration")
    assert.include(reason("ttl:Infinity"), "positive duration")
    assert.include(reason("never,lru:5"), "cannot be combined")
    assert.include(reason("fifo"), "expected never, always")
    assert.include(reason("lru:5,fifo"), "'fifo': expected never")
    assert.include(reason(" , "), "expected never")
  })

  it("round-trips every lru size and ttl in minutes, alone or combined, through format", () =>
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: 100_000 }), (size, minutes) => {
        const parsed = Eviction.parse(`lru:${size} , ttl:${minutes} minutes`)
        if (typeof parsed === "string" || parsed._tag !== "Composite") return false
        const [lru, ttl] = parsed.strategies
        const again = Eviction.parse(Eviction.format(parsed))
        return lru?._tag === "Lru" && lru.maxSessions === size && ttl?._tag === "Ttl" &&
          Duration.toMillis(ttl.ttl) === minutes * 60_000 && typeof again !== "string" &&
          Eviction.format(again) === Eviction.format(parsed)
      })
    ))
})
