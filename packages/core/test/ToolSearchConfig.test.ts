import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Result, Schema } from "effect"
import * as fc from "fast-check"
import {
  Disclosure,
  SearchStrategy,
  Setting,
  Strategies,
  TableOfContents,
  ToolSearchConfig,
  Visibility
} from "../src/index.js"
import * as ToolContents from "../src/internal/toolContents.js"

const load = (env: Record<string, string>) => ToolSearchConfig.config.parse(ConfigProvider.fromEnv({ env }))

const failure = (env: Record<string, string>) => Effect.map(Effect.flip(load(env)), Setting.explain)

describe("ToolSearchConfig.config", () => {
  it.effect("no variable set gives the defaults: search mode, strict, no exploration", () =>
    Effect.gen(function*() {
      const settings = yield* load({})
      assert.deepStrictEqual(settings, ToolSearchConfig.ToolSearchConfig.defaultValue())
      assert.isTrue(settings.visibility.strict)
      assert.isFalse(settings.visibility.explore)
      assert.strictEqual(settings.strategy, Strategies.defaultName)
    }))

  it.effect("every variable is read", () =>
    Effect.gen(function*() {
      const settings = yield* load({
        TOOL_SEARCH_STRATEGY: Strategies.names[Strategies.names.length - 1] as string,
        TOOL_SEARCH_MAX_RESULTS: "8",
        TOOL_SEARCH_MAX_RESULTS_LIMIT: "30",
        TOOL_SEARCH_MODE: "staged",
        TOOL_SEARCH_DESCRIPTION_DETAIL: "first-sentence",
        TOOL_SEARCH_SEARCH_TOOLS: "false",
        TOOL_SEARCH_SEARCH_TOOLS_THRESHOLD: "3",
        TOOL_SEARCH_MIN_SCORE: "0.1",
        TOOL_SEARCH_MIN_SCORE_RATIO: "0",
        TOOL_SEARCH_STRICT: "off",
        TOOL_SEARCH_SELECT: "read_file, write_file",
        TOOL_SEARCH_CONNECTED: "news-mcp",
        TOOL_SEARCH_RESOURCES: "docs,graph",
        TOOL_SEARCH_EXPLORE: "yes",
        TOOL_SEARCH_PLATFORM_SOURCES: "nodes,workflows",
        TOOL_SEARCH_TOC_NAMES_PER_SOURCE: "4",
        TOOL_SEARCH_TOC_DETAIL: "none",
        TOOL_SEARCH_DISCOVERY_FIRST: "1",
        TOOL_SEARCH_FEEDBACK: "off"
      })
      assert.deepStrictEqual(settings.disclosure, {
        mode: "staged",
        descriptionDetail: "first-sentence",
        defaultMaxResults: 8,
        maxResultsLimit: 30,
        searchTools: false,
        searchToolsThreshold: 3,
        minScore: 0.1,
        minScoreRatio: 0,
        defer: 10
      })
      assert.deepStrictEqual(settings.visibility, {
        strict: false,
        select: ["read_file", "write_file"],
        connected: ["news-mcp"],
        resources: ["docs", "graph"],
        explore: true,
        allow: ["nodes", "workflows"]
      })
      assert.deepStrictEqual(settings.tableOfContents, { namesPerSource: 4, detail: "none" })
      assert.isTrue(settings.discoveryFirst)
      assert.isFalse(settings.feedback)
      assert.strictEqual(settings.strategy, Strategies.names[Strategies.names.length - 1])
    }))

  it.effect("an invalid value fails naming the variable and saying what was expected", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, string, string]> = [
        ["TOOL_SEARCH_STRATEGY", "bm99", `Expected ${Strategies.names.map((n) => `"${n}"`).join(" | ")}`],
        ["TOOL_SEARCH_MAX_RESULTS", "0", "Expected a value greater than or equal to 1"],
        ["TOOL_SEARCH_MAX_RESULTS_LIMIT", "lots", "Expected a string representing a finite number"],
        ["TOOL_SEARCH_MODE", "stagd", `Expected "search" | "catalog" | "staged"`],
        ["TOOL_SEARCH_MIN_SCORE", "1.5", "Expected a value between 0 and 1"],
        ["TOOL_SEARCH_MIN_SCORE_RATIO", "-0.1", "Expected a value between 0 and 1"],
        ["TOOL_SEARCH_DEFER", "sometimes", "Expected always, never, auto or auto:N"],
        ["TOOL_SEARCH_DESCRIPTION_DETAIL", "short", `Expected "none" | "first-sentence" | "full"`],
        ["TOOL_SEARCH_SEARCH_TOOLS", "sometimes", "Expected auto, true or false"],
        ["TOOL_SEARCH_SEARCH_TOOLS_THRESHOLD", "-1", "Expected a value greater than or equal to 0"],
        ["TOOL_SEARCH_STRICT", "maybe", "Expected true or false"],
        ["TOOL_SEARCH_SELECT", "a,*", "'*' is not a name here"],
        ["TOOL_SEARCH_CONNECTED", "*", "'*' is not a name here"],
        ["TOOL_SEARCH_RESOURCES", "*,docs", "'*' is not a name here"],
        ["TOOL_SEARCH_EXPLORE", "2", "Expected true or false"],
        ["TOOL_SEARCH_PLATFORM_SOURCES", "*,nodes", "'*' stands alone"],
        ["TOOL_SEARCH_TOC_NAMES_PER_SOURCE", "1.5", "Expected an integer"],
        ["TOOL_SEARCH_TOC_DETAIL", "all", `Expected "none" | "first-sentence" | "full"`],
        ["TOOL_SEARCH_DISCOVERY_FIRST", "sure", "Expected true or false"],
        ["TOOL_SEARCH_FEEDBACK", "maybe", "Expected true or false"]
      ]
      // every variable has a case here
      assert.sameMembers(cases.map(([name]) => name), Object.values(ToolSearchConfig.settings).map((s) => s.env))
      for (const [name, value, expected] of cases) {
        const message = yield* failure({ [name]: value })
        assert.isTrue(message.startsWith(`${name}: `), `${name}: ${message}`)
        assert.include(message, expected, name)
      }
    }))

  it.effect("max results above the limit is an error naming both variables", () =>
    Effect.gen(function*() {
      const message = yield* failure({ TOOL_SEARCH_MAX_RESULTS: "9", TOOL_SEARCH_MAX_RESULTS_LIMIT: "6" })
      assert.include(message, "TOOL_SEARCH_MAX_RESULTS: 9 exceeds TOOL_SEARCH_MAX_RESULTS_LIMIT (6)")
      // a limit below the default max lowers the default instead of failing
      assert.strictEqual((yield* load({ TOOL_SEARCH_MAX_RESULTS_LIMIT: "3" })).disclosure.defaultMaxResults, 3)
    }))

  it.effect("naming platform sources turns exploration on, unless the toggle says off", () =>
    Effect.gen(function*() {
      const on = yield* load({ TOOL_SEARCH_PLATFORM_SOURCES: "nodes" })
      assert.deepStrictEqual([on.visibility.explore, on.visibility.allow], [true, ["nodes"]])
      const off = yield* load({ TOOL_SEARCH_PLATFORM_SOURCES: "nodes", TOOL_SEARCH_EXPLORE: "false" })
      assert.isFalse(off.visibility.explore)
      const all = yield* load({ TOOL_SEARCH_EXPLORE: "true" })
      assert.deepStrictEqual([all.visibility.explore, all.visibility.allow], [true, "*"])
    }))

  it.effect("discovery first opts in to search_tools, unless search_tools is explicitly off", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* load({ TOOL_SEARCH_DISCOVERY_FIRST: "true" })).disclosure.searchTools, true)
      assert.strictEqual(
        (yield* load({ TOOL_SEARCH_DISCOVERY_FIRST: "true", TOOL_SEARCH_SEARCH_TOOLS: "false" })).disclosure
          .searchTools,
        false
      )
      assert.strictEqual((yield* load({})).disclosure.searchTools, "auto")
    }))
})

describe("Setting", () => {
  it("list parsing keeps every non-empty trimmed item", () =>
    fc.assert(fc.property(fc.array(fc.stringMatching(/^[a-z0-9_-]{1,10}$/), { maxLength: 6 }), (ids) => {
      const parsed = Schema.decodeUnknownResult(Setting.List)(` ${ids.join(" , ")} ,`)
      return Result.isSuccess(parsed) && JSON.stringify(parsed.success) === JSON.stringify(ids)
    })))

  it.effect("precedence: flags, then the config file, then the environment, then the default", () =>
    Effect.gen(function*() {
      const tables = [ToolSearchConfig.settings]
      const read = (sources: Setting.Sources) =>
        Effect.map(Setting.read(ToolSearchConfig.config, tables, sources), (s) => s.disclosure.mode)
      const environment = { TOOL_SEARCH_MODE: "catalog" }
      assert.strictEqual(yield* read({}), "search")
      assert.strictEqual(yield* read({ environment }), "catalog")
      assert.strictEqual(yield* read({ environment, file: { mode: "staged" } }), "staged")
      assert.strictEqual(yield* read({ environment, file: { mode: "staged" }, flags: { mode: "search" } }), "search")
      // a JSON config file may give typed values
      const typed = yield* Setting.read(ToolSearchConfig.config, tables, {
        environment: {},
        file: { maxResults: 7, strict: false, select: ["a", "b"] }
      })
      assert.deepStrictEqual(
        [typed.disclosure.defaultMaxResults, typed.visibility.strict, typed.visibility.select],
        [7, false, ["a", "b"]]
      )
    }))

  it.effect("a source's own values are checked under its own spelling", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Setting.check([ToolSearchConfig.settings], { maxResults: 0 }, (s) => `gateway.json: ${s.key}`)
      )
      assert.include(Setting.explain(error), "gateway.json: maxResults=0")
    }))
})

describe("ToolSearchConfig.layerConfig", () => {
  it.effect("provides the strategy, disclosure, visibility, table of contents and the settings", () =>
    Effect.gen(function*() {
      const strategy = yield* SearchStrategy.SearchStrategy
      const disclosure = yield* Disclosure.Disclosure
      const visibility = yield* Visibility.Visibility
      const toc = yield* TableOfContents.TableOfContents
      const settings = yield* ToolSearchConfig.ToolSearchConfig
      assert.strictEqual(strategy.name, Strategies.defaultName)
      assert.strictEqual(disclosure.mode, "staged")
      assert.deepStrictEqual(visibility.options.connected, ["news-mcp", "extra"])
      assert.isTrue(visibility.options.strict)
      assert.strictEqual(toc.namesPerSource, 3)
      assert.strictEqual(toc.template, ToolContents.defaultTemplate)
      assert.isFalse(settings.discoveryFirst)
    }).pipe(
      Effect.provide(ToolSearchConfig.layerConfigWith((s) => ({
        ...s,
        visibility: { ...s.visibility, connected: [...s.visibility.connected, "extra"] }
      }))),
      Effect.provideService(
        ConfigProvider.ConfigProvider,
        ConfigProvider.fromEnv({
          env: {
            TOOL_SEARCH_MODE: "staged",
            TOOL_SEARCH_CONNECTED: "news-mcp",
            TOOL_SEARCH_TOC_NAMES_PER_SOURCE: "3"
          }
        })
      )
    ))

  it.effect("fails to build on an invalid variable", () =>
    Effect.gen(function*() {
      const read = Effect.gen(function*() {
        return yield* Disclosure.Disclosure
      })
      const error = yield* Effect.flip(Effect.provide(read, ToolSearchConfig.layerConfig))
      assert.strictEqual(
        Setting.explain(error),
        `TOOL_SEARCH_MODE: Expected "search" | "catalog" | "staged"`
      )
    }).pipe(
      Effect.provideService(
        ConfigProvider.ConfigProvider,
        ConfigProvider.fromEnv({ env: { TOOL_SEARCH_MODE: "fast" } })
      )
    ))
})
