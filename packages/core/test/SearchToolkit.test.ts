import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Schema, Stream } from "effect"
import { Tool, Toolkit } from "effect/ai"
import { CatalogTool, SearchToolkit, ToolCatalog, ToolView } from "../src/index.js"
import { CatalogLive } from "./fixtures.js"

const callToolSearch = (params: unknown) =>
  Effect.gen(function*() {
    const toolkit = yield* SearchToolkit.toolkit
    const stream = yield* toolkit.handle("ToolSearch", params)
    return Option.getOrThrow(yield* Stream.runLast(stream))
  }).pipe(Effect.provide(SearchToolkit.layer))

describe("SearchToolkit (ToolSearch as an effect/ai tool)", () => {
  it.effect("outside an execution unit it answers a clear error", () =>
    Effect.gen(function*() {
      const result = yield* callToolSearch({ query: "grep" })
      assert.isTrue(result.isFailure)
      assert.strictEqual(result.result, SearchToolkit.NO_VIEW)
    }))

  it.effect("inside a unit it searches and activates in that unit's view", () =>
    Effect.gen(function*() {
      const visible = yield* ToolView.withUnit(Effect.gen(function*() {
        const result = yield* callToolSearch({ query: "select:Grep" })
        assert.isFalse(result.isFailure)
        const view = yield* ToolView.ToolView
        return (yield* view.visible).map((t) => t.name)
      }))
      assert.include(visible, "Grep")
    }).pipe(Effect.provide(CatalogLive)))
})

describe("CatalogTool.fromToolkit", () => {
  const GetWeather = Tool.make("get_weather", {
    description: "Current weather for a city",
    parameters: Schema.Struct({ city: Schema.String }),
    success: Schema.Struct({ celsius: Schema.Number }),
    failure: Schema.String,
    failureMode: "return"
  })
  const Weather = Toolkit.make(GetWeather)
  const Handlers = Weather.toLayer({
    get_weather: ({ city }) => city === "Atlantis" ? Effect.fail("no such city") : Effect.succeed({ celsius: 21 })
  })

  it.effect("turns typed effect/ai tools with handlers into catalog tools", () =>
    Effect.gen(function*() {
      const toolkit = yield* Weather
      const [weather] = CatalogTool.fromToolkit(toolkit, { source: "weather", category: "weather" })
      assert.strictEqual(weather?.name, "get_weather")
      assert.strictEqual(weather?.loading, "deferred")
      assert.deepStrictEqual((weather!.parameters as { required?: unknown }).required, ["city"])
      const catalog = yield* ToolCatalog.ToolCatalog
      yield* catalog.register(weather!) // defined: the toolkit has one tool
      const run = (params: unknown) =>
        ToolView.withUnit(Effect.gen(function*() {
          const view = yield* ToolView.ToolView
          yield* view.searchAndActivate("select:get_weather")
          const tool = yield* view.resolve("get_weather")
          return yield* tool.run(params, { toolCallId: "1" })
        }))
      assert.deepStrictEqual(yield* run({ city: "Paris" }), { isFailure: false, result: { celsius: 21 } })
      assert.deepStrictEqual(yield* run({ city: "Atlantis" }), { isFailure: true, result: "no such city" })
      const bad = yield* run({ town: "Paris" })
      assert.isTrue(bad.isFailure)
    }).pipe(Effect.provide(Layer.merge(CatalogLive, Handlers))))
})
