import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Result } from "effect"
import * as fc from "fast-check"
import { readFileSync } from "node:fs"
import { Disclosure, SearchStrategy, Strategies, TableOfContents, ToolSearchConfig, Visibility } from "../src/index.js"

const load = (env: Record<string, string>) => ToolSearchConfig.config.parse(ConfigProvider.fromEnv({ env }))

const failure = (env: Record<string, string>) => Effect.map(Effect.flip(load(env)), (e) => e.message)

describe("ToolSearchConfig.config", () => {
  it.effect("no variable set gives the defaults: search mode, strict, no exploration", () =>
    Effect.gen(function*() {
      const settings = yield* load({})
      assert.deepStrictEqual(settings, ToolSearchConfig.defaults)
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
        TOOL_SEARCH_STRICT: "off",
        TOOL_SEARCH_SELECT: "read_file, write_file",
        TOOL_SEARCH_CONNECTED: "news-mcp",
        TOOL_SEARCH_RESOURCES: "docs,graph",
        TOOL_SEARCH_EXPLORE: "yes",
        TOOL_SEARCH_PLATFORM_SOURCES: "nodes,workflows",
        TOOL_SEARCH_TOC_NAMES_PER_SOURCE: "4",
        TOOL_SEARCH_TOC_DETAIL: "none",
        TOOL_SEARCH_DISCOVERY_FIRST: "1",
        TOOL_SEARCH_ACTIVATION: "latest",
        TOOL_SEARCH_EVICTION: "lru:50, ttl:30 minutes"
      })
      assert.deepStrictEqual(settings.disclosure, {
        mode: "staged",
        descriptionDetail: "first-sentence",
        defaultMaxResults: 8,
        maxResultsLimit: 30,
        searchTools: false,
        searchToolsThreshold: 3
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
      assert.strictEqual(settings.activation, "latest")
      assert.strictEqual(settings.eviction._tag, "Composite")
      assert.strictEqual(settings.strategy, Strategies.names[Strategies.names.length - 1])
    }))

  it.effect("an invalid value fails naming the variable, quoting the value and saying what was expected", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, string, string]> = [
        ["TOOL_SEARCH_STRATEGY", "bm99", `expected one of ${Strategies.names.join(", ")}`],
        ["TOOL_SEARCH_MAX_RESULTS", "0", "expected an integer of at least 1"],
        ["TOOL_SEARCH_MAX_RESULTS_LIMIT", "lots", "expected an integer of at least 1"],
        ["TOOL_SEARCH_MODE", "stagd", "expected one of search, catalog, staged"],
        ["TOOL_SEARCH_DESCRIPTION_DETAIL", "short", "expected one of none, first-sentence, full"],
        ["TOOL_SEARCH_SEARCH_TOOLS", "sometimes", "expected auto, true or false"],
        ["TOOL_SEARCH_SEARCH_TOOLS_THRESHOLD", "-1", "expected an integer of at least 0"],
        ["TOOL_SEARCH_STRICT", "maybe", "expected true or false"],
        ["TOOL_SEARCH_SELECT", "a,*", "'*' is only accepted by TOOL_SEARCH_PLATFORM_SOURCES"],
        ["TOOL_SEARCH_CONNECTED", "*", "'*' is only accepted by TOOL_SEARCH_PLATFORM_SOURCES"],
        ["TOOL_SEARCH_RESOURCES", "*,docs", "'*' is only accepted by TOOL_SEARCH_PLATFORM_SOURCES"],
        ["TOOL_SEARCH_EXPLORE", "2", "expected true or false"],
        ["TOOL_SEARCH_PLATFORM_SOURCES", "*,nodes", "'*' stands alone"],
        ["TOOL_SEARCH_TOC_NAMES_PER_SOURCE", "1.5", "expected an integer of at least 0"],
        ["TOOL_SEARCH_TOC_DETAIL", "all", "expected one of none, first-sentence, full"],
        ["TOOL_SEARCH_DISCOVERY_FIRST", "sure", "expected true or false"],
        ["TOOL_SEARCH_ACTIVATION", "forever", "expected one of turn, session, latest, history"],
        ["TOOL_SEARCH_EVICTION", "lru:0", "the LRU size must be a positive number of sessions"]
      ]
      // every variable has a case here
      assert.sameMembers(cases.map(([name]) => name), ToolSearchConfig.variables.map((v) => v.name))
      for (const [name, value, expected] of cases) {
        const message = yield* failure({ [name]: value })
        assert.include(message, `${name}=${JSON.stringify(value)}`, name)
        assert.include(message, expected, name)
      }
    }))

  it.effect("max results above the limit is an error naming both variables", () =>
    Effect.gen(function*() {
      const message = yield* failure({ TOOL_SEARCH_MAX_RESULTS: "9", TOOL_SEARCH_MAX_RESULTS_LIMIT: "6" })
      assert.include(message, "TOOL_SEARCH_MAX_RESULTS=\"9\": exceeds TOOL_SEARCH_MAX_RESULTS_LIMIT (6)")
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

describe("ToolSearchConfig.parseEviction", () => {
  it("reads each form", () => {
    assert.deepStrictEqual(ToolSearchConfig.parseEviction("never"), Result.succeed({ _tag: "Never" }))
    assert.deepStrictEqual(ToolSearchConfig.parseEviction("ALWAYS"), Result.succeed({ _tag: "Always" }))
    assert.deepStrictEqual(ToolSearchConfig.parseEviction("lru:50"), Result.succeed({ _tag: "Lru", maxSessions: 50 }))
    const ttl = ToolSearchConfig.parseEviction("ttl:2 hours")
    assert.isTrue(
      Result.isSuccess(ttl) && ttl.success._tag === "Ttl" && Duration.toMillis(ttl.success.ttl) === 7_200_000
    )
    const both = ToolSearchConfig.parseEviction("lru:5,ttl:1 minute")
    assert.isTrue(Result.isSuccess(both) && both.success._tag === "Composite" && both.success.strategies.length === 2)
  })

  it("refuses what it cannot honour, saying why", () => {
    const reason = (s: string) => {
      const parsed = ToolSearchConfig.parseEviction(s)
      return Result.isFailure(parsed) ? parsed.failure : "parsed"
    }
    assert.include(reason("ttl:soon"), "positive duration")
    assert.include(reason("ttl:0 seconds"), "positive duration")
    assert.include(reason("ttl:Infinity"), "positive duration")
    assert.include(reason("never,lru:5"), "cannot be combined")
    assert.include(reason("fifo"), "expected never, always")
    assert.include(reason("lru:5,fifo"), "'fifo': expected never")
    assert.include(reason(" , "), "expected never")
  })

  it("round-trips every lru size and ttl in minutes, alone or combined", () =>
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: 100_000 }), (size, minutes) => {
        const parsed = ToolSearchConfig.parseEviction(`lru:${size} , ttl:${minutes} minutes`)
        if (Result.isFailure(parsed) || parsed.success._tag !== "Composite") return false
        const [lru, ttl] = parsed.success.strategies
        return lru?._tag === "Lru" && lru.maxSessions === size && ttl?._tag === "Ttl" &&
          Duration.toMillis(ttl.ttl) === minutes * 60_000
      })
    ))

  it("list parsing never throws and keeps every non-empty trimmed item", () =>
    fc.assert(fc.property(fc.array(fc.stringMatching(/^[a-z0-9_-]{1,10}$/), { maxLength: 6 }), (ids) => {
      const parsed = ToolSearchConfig.parseList(` ${ids.join(" , ")} ,`)
      return Result.isSuccess(parsed) && JSON.stringify(parsed.success) === JSON.stringify(ids)
    })))
})

describe("ToolSearchConfig.layer", () => {
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
      assert.strictEqual(toc.template, TableOfContents.defaultTemplate)
      assert.strictEqual(settings.activation, "session")
    }).pipe(
      Effect.provide(ToolSearchConfig.layerWith((s) => ({
        ...s,
        visibility: { ...s.visibility, connected: [...s.visibility.connected, "extra"] }
      }))),
      Effect.provideService(
        ConfigProvider.ConfigProvider,
        ConfigProvider.fromEnv({
          env: {
            TOOL_SEARCH_MODE: "staged",
            TOOL_SEARCH_CONNECTED: "news-mcp",
            TOOL_SEARCH_TOC_NAMES_PER_SOURCE: "3",
            TOOL_SEARCH_ACTIVATION: "session"
          }
        })
      )
    ))

  it.effect("fails to build on an invalid variable", () =>
    Effect.gen(function*() {
      const read = Effect.gen(function*() {
        return yield* Disclosure.Disclosure
      })
      const error = yield* Effect.flip(Effect.provide(read, ToolSearchConfig.layer))
      assert.include(error.message, "TOOL_SEARCH_MODE=\"fast\"")
      assert.strictEqual(
        ToolSearchConfig.explain(error),
        "TOOL_SEARCH_MODE=\"fast\": expected one of search, catalog, staged"
      )
    }).pipe(
      Effect.provideService(
        ConfigProvider.ConfigProvider,
        ConfigProvider.fromEnv({ env: { TOOL_SEARCH_MODE: "fast" } })
      )
    ))
})

describe("the documented table", () => {
  it("docs/visibility.md lists every variable with its default", () => {
    const doc = readFileSync(new URL("../../../docs/visibility.md", import.meta.url), "utf8")
    for (const v of ToolSearchConfig.variables) {
      const row = doc.split("\n").find((line) => line.startsWith(`| \`${v.name}\``))
      assert.isDefined(row, `${v.name} has a row`)
      assert.include(row, v.default, `${v.name} default`)
    }
  })
})
