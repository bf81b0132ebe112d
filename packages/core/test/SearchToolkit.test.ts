import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Schema, Stream } from "effect"
import { Tool, Toolkit } from "effect/ai"
import { CatalogTool, Keyword, SearchToolkit, ToolCatalog, ToolView } from "../src/index.js"
import { CatalogLive } from "./kit/tools.js"

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

describe("SearchToolkit.layerFromToolkit: deferral on an existing Toolkit in one step", () => {
  const ReadFile = Tool.make("read_file", {
    description: "Read a file",
    parameters: Schema.Struct({ path: Schema.String }),
    success: Schema.String
  })
  const SlackSend = Tool.make("slack_send", {
    description: "Send a Slack message to a channel",
    parameters: Schema.Struct({ channel: Schema.String, text: Schema.String }),
    success: Schema.Struct({ ok: Schema.Boolean })
  }).annotate(CatalogTool.Deferred, true)
  const JiraCreate = Tool.make("jira_create", {
    description: "Create a Jira ticket",
    parameters: Schema.Struct({ title: Schema.String }),
    success: Schema.Struct({ key: Schema.String })
  }).annotate(CatalogTool.Deferred, true)
  const MyToolkit = Toolkit.make(ReadFile, SlackSend, JiraCreate)
  const Search = SearchToolkit.layerFromToolkit(MyToolkit).pipe(
    Layer.provide(MyToolkit.toLayer({
      read_file: ({ path }) => Effect.succeed(`contents of ${path}`),
      slack_send: () => Effect.succeed({ ok: true }),
      jira_create: () => Effect.succeed({ key: "OPS-1" })
    }))
  )

  it.effect("annotated tools are deferred, the others eager; a search loads one; its handler runs", () =>
    Effect.gen(function*() {
      const catalog = yield* ToolCatalog.ToolCatalog
      assert.strictEqual(catalog.strategy, "bm25f")
      const { after, before, result } = yield* ToolView.withUnit(Effect.gen(function*() {
        const view = yield* ToolView.ToolView
        const before = (yield* view.visible).map((t) => t.name)
        yield* view.searchAndActivate("send a slack message")
        const after = (yield* view.visible).map((t) => t.name)
        const tool = yield* view.resolve("slack_send")
        return { before, after, result: yield* tool.run({ channel: "#ops", text: "hi" }, { toolCallId: "1" }) }
      }))
      assert.deepStrictEqual(before, ["read_file", "ToolSearch"])
      assert.deepStrictEqual(after.slice(0, 3), ["read_file", "ToolSearch", "slack_send"])
      assert.deepStrictEqual(result, { isFailure: false, result: { ok: true } })
    }).pipe(Effect.provide(Search)))

  it.effect("the strategy and the default loading are options", () =>
    Effect.gen(function*() {
      const catalog = yield* ToolCatalog.ToolCatalog
      assert.strictEqual(catalog.strategy, "keyword")
      assert.deepStrictEqual((yield* catalog.eager).map((t) => t.name), [])
    }).pipe(Effect.provide(
      SearchToolkit.layerFromToolkit(Toolkit.make(ReadFile), { strategy: Keyword.layer, loading: "deferred" }).pipe(
        Layer.provide(Toolkit.make(ReadFile).toLayer({ read_file: () => Effect.succeed("") }))
      )
    )))
})
