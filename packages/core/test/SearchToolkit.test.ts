import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Schema, Stream } from "effect"
import { Tool, Toolkit } from "effect/ai"
import { CatalogTool, Keyword, SearchToolkit, ToolCatalog, Unit } from "../src/index.js"
import { CatalogLive, deferAlways } from "./kit/tools.js"

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
      assert.include(String(result.result), "outside an execution unit: run each turn with Unit.provide")
    }))

  it.effect("inside a unit it searches and activates in that unit's view", () =>
    Effect.gen(function*() {
      const visible = yield* Unit.provide(Effect.gen(function*() {
        const result = yield* callToolSearch({ query: "select:Grep" })
        assert.isFalse(result.isFailure)
        return (yield* Unit.tools).map((t) => t.name)
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
      const [weather] = CatalogTool.fromToolkit(toolkit, {
        source: "weather",
        category: "weather",
        loading: "deferred"
      })
      assert.strictEqual(weather?.name, "get_weather")
      assert.strictEqual(weather?.loading, "deferred")
      assert.deepStrictEqual((weather!.parameters as { required?: unknown }).required, ["city"])
      const catalog = yield* ToolCatalog.ToolCatalog
      yield* catalog.register(weather!) // defined: the toolkit has one tool
      const run = (params: unknown) =>
        Unit.provide(Effect.gen(function*() {
          yield* Unit.search("select:get_weather")
          const tool = yield* Unit.resolve("get_weather")
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
      const { after, before, result } = yield* Unit.provide(Effect.gen(function*() {
        const before = (yield* Unit.tools).map((t) => t.name)
        yield* Unit.search("send a slack message")
        const after = (yield* Unit.tools).map((t) => t.name)
        const tool = yield* Unit.resolve("slack_send")
        return { before, after, result: yield* tool.run({ channel: "#ops", text: "hi" }, { toolCallId: "1" }) }
      }))
      assert.deepStrictEqual(before, ["read_file", "ToolSearch"])
      assert.deepStrictEqual(after.slice(0, 3), ["read_file", "ToolSearch", "slack_send"])
      assert.deepStrictEqual(result, { isFailure: false, result: { ok: true } })
    }).pipe(Effect.provide(Search), Effect.provide(deferAlways)))

  it.effect("below the deferral threshold every tool is sent and no search tool is offered", () =>
    Effect.gen(function*() {
      const names = yield* Unit.provide(Effect.map(Unit.tools, (ts) => ts.map((t) => t.name)))
      assert.deepStrictEqual(names, ["read_file", "slack_send", "jira_create"])
      assert.isFalse(yield* Unit.provide(Unit.deferring))
      // a deferred tool is callable directly, without a search
      assert.strictEqual((yield* Unit.provide(Unit.resolve("slack_send"))).kind, "eager")
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
