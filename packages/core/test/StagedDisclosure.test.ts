// Seed 003's stories, one regression test each: every way "what the model may see" went wrong in
// the agent harness, in either direction.
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import {
  type CatalogTool,
  Disclosure,
  Permission,
  ToolCatalog,
  ToolSearchConfig,
  Unit,
  Visibility
} from "../src/index.js"
import { dbLoad, harnessTools, newsTools, platformTools, ragSearch } from "./kit/harness.js"
import { call, candidatesOf, functionsOf, tool, unitOver } from "./kit/tools.js"

const staged = Disclosure.layer({ defer: "always", mode: "staged" })
const names = Unit.tools.pipe(Effect.map((ts) => ts.map((t) => t.name)))
/** Runs `effect` as one unit over the harness's tools, under the visibility `policy`. */
const inHarness = <A, E>(
  policy: ReturnType<typeof Visibility.layer>,
  effect: Effect.Effect<A, E, Unit.Unit | ToolCatalog.ToolCatalog>
) => unitOver(harnessTools, effect).pipe(Effect.provide(policy))

/** Runs `effect` as one staged unit over the harness's tools, under the visibility `policy`. */
const stagedHarness = <A, E>(
  policy: ReturnType<typeof Visibility.layer>,
  effect: Effect.Effect<A, E, Unit.Unit | ToolCatalog.ToolCatalog>
) => inHarness(policy, effect).pipe(Effect.provide(staged))
const searchable = Unit.searchable.pipe(
  Effect.map((ts) => ts.map((t) => t.modelName))
)

describe("seed 003: an unapproved tool found and called", () => {
  // A workflow declared only its documents; the model found a database loader through
  // search_tools, promoted it with ToolSearch and ran it.
  const declaredDocsOnly = { resources: ["attached-docs"] }
  /** The old path's first two steps: what search_tools lists for the loader, then what ToolSearch loads by its name. */
  const browseThenPromote = Effect.gen(function*() {
    const browsed = yield* call("search_tools", { query: "load rows database" })
    const loaded = yield* call("ToolSearch", { query: "select:db_load_rows" })
    return { browsed: candidatesOf(browsed.result), loaded: functionsOf(loaded.result) }
  })

  it.effect("without strict mode the old path is open: browse, promote, call", () =>
    stagedHarness(
      Visibility.layer({ ...declaredDocsOnly, strict: false }),
      Effect.gen(function*() {
        const { browsed, loaded } = yield* browseThenPromote
        assert.include(browsed, "db_load_rows")
        assert.deepStrictEqual(loaded, ["db_load_rows"])
        const ran = yield* call("db_load_rows", {})
        assert.isFalse(ran.isFailure)
      })
    ))

  it.effect("strict mode: it is never listed, never found, never promoted, never run", () =>
    stagedHarness(
      Visibility.layer(declaredDocsOnly),
      Effect.gen(function*() {
        const { browsed, loaded } = yield* browseThenPromote
        assert.notInclude(browsed, "db_load_rows")
        assert.deepStrictEqual(loaded, [])
        const byKeyword = yield* call("ToolSearch", { query: "database table rows" })
        assert.notInclude(functionsOf(byKeyword.result), "db_load_rows")
        const error = yield* Effect.flip(call("db_load_rows", {}))
        assert.strictEqual(error.reason, "unknown")
        // not even a "did you mean" gives its name away
        const typo = yield* Effect.flip(call("db_load_row", {}))
        assert.notInclude(typo.message, "db_load_rows")
        assert.notInclude(yield* names, "db_load_rows")
        assert.notInclude(yield* names, "platform_status") // an eager platform tool is outside the selection too
        assert.notInclude(yield* Unit.contents, "db_load_rows")
        // what the workflow declared is untouched
        assert.deepStrictEqual(yield* searchable, ["rag_search"])
        const rag = yield* call("ToolSearch", { query: "select:rag_search" })
        assert.deepStrictEqual(functionsOf(rag.result), ["rag_search"])
        assert.isFalse((yield* call("rag_search", { collection: "handbook" })).isFailure)
      })
    ))

  it.effect("strict mode also closes the discovery tool of catalog mode", () =>
    unitOver(
      harnessTools,
      Effect.gen(function*() {
        const out = yield* call("discover_tools", { toolNames: ["db_load_rows", "rag_search"] })
        const answer = out.result as { tools: ReadonlyArray<{ name: string }>; errors: ReadonlyArray<{ name: string }> }
        assert.deepStrictEqual(answer.tools.map((t) => t.name), ["rag_search"])
        assert.deepStrictEqual(answer.errors.map((e) => e.name), ["db_load_rows"])
      })
    ).pipe(
      Effect.provide(Disclosure.layer({ defer: "always", mode: "catalog" })),
      Effect.provide(Visibility.layer(declaredDocsOnly))
    ))
})

describe("seed 003: an empty allow-list hid the connected tools", () => {
  // The platform toggle put an empty source allow-list in place; the gate skipped every source
  // not on it — the connected news server included — and the model never learnt the tool existed.
  const emptyAllowList = { connected: ["news-mcp"], resources: ["attached-docs"], explore: true, allow: [] }

  it.effect("connected tools bypass the platform gate: searchable, listed, callable", () =>
    stagedHarness(
      Visibility.layer(emptyAllowList),
      Effect.gen(function*() {
        assert.sameMembers([...(yield* searchable)], ["rag_search", "news_search", "news_headlines"])
        const prompt = yield* Unit.contents
        assert.include(prompt, "- news_search (load first)")
        const found = yield* call("ToolSearch", { query: "news articles" })
        assert.include(functionsOf(found.result), "news_search")
        assert.isFalse((yield* call("news_search", { q: "today" })).isFailure)
      })
    ))

  it.effect("the empty list still means 'no platform source', with exploration on or off", () =>
    Effect.gen(function*() {
      for (const explore of [true, false]) {
        const visible = yield* inHarness(Visibility.layer({ ...emptyAllowList, explore }), searchable)
        assert.notInclude(visible, "mcp_tool_0")
        assert.notInclude(visible, "db_load_rows")
        assert.include(visible, "news_search")
      }
    }))

  it.effect("an allow-list naming other sources neither drops the connected ones nor lets in the rest", () =>
    inHarness(
      Visibility.layer({ ...emptyAllowList, allow: ["platform-nodes"] }),
      Effect.gen(function*() {
        const all = yield* searchable
        assert.includeMembers([...all], ["news_search", "news_headlines", "rag_search", "db_load_rows"])
        assert.notInclude(all, "mcp_tool_0")
      })
    ))
})

describe("seed 003: a hard-coded category hid the connected names", () => {
  // Deferred entries were given the category "deferred", which the prompt stage rendered as a
  // hidden count: the connected tools' names never reached the model.
  const policy = Visibility.layer({ connected: ["news-mcp"], resources: ["attached-docs"], explore: true })

  it.effect("the table groups by each tool's own category and names connected tools", () =>
    stagedHarness(
      policy,
      Effect.gen(function*() {
        const prompt = yield* Unit.contents
        assert.include(prompt, "[retrieval]\n- rag_search (load first) — Search the attached documents.")
        assert.include(
          prompt,
          "[news]\n- news_search (load first) — Search recent news articles by keyword.\n- news_headlines (load first)"
        )
        assert.notInclude(prompt, "deferred")
        assert.notInclude(prompt, "mcp_tool_")
        // the platform catalog is folded into counts per category: 66 session tools + 1 loader
        assert.include(prompt, "[web] (11 more tools, hidden)")
        assert.include(prompt, "[data] (1 more tool, hidden)")
      })
    ))

  it.effect("a category the engine never heard of is rendered as declared", () =>
    unitOver(
      [tool("naver_news", "네이버 뉴스를 검색합니다.", { category: "뉴스 검색", source: "naver" })],
      Effect.gen(function*() {
        const prompt = yield* Unit.contents
        assert.include(prompt, "[뉴스 검색]\n- naver_news (load first) — 네이버 뉴스를 검색합니다.")
      })
    ).pipe(Effect.provide(staged), Effect.provide(Visibility.layer({ connected: ["naver"] }))))
})

describe("seed 003: the search tool missing below a size threshold despite explicit opt-in", () => {
  // search_tools was registered only from 12 catalog tools up, so a 7-tool demo with
  // discovery-first switched on never had the tool the first call was to be forced to.
  const demo = Array.from({ length: 7 }, (_, i) => tool(`demo_tool_${i}`, `Demo operation ${i}.`))
  /** The names a staged unit over `tools` offers, with `searchTools` as given. */
  const stagedNames = (tools: ReadonlyArray<CatalogTool.CatalogTool>, searchTools: boolean | "auto") =>
    unitOver(tools, names).pipe(Effect.provide(Disclosure.layer({ defer: "always", mode: "staged", searchTools })))

  it.effect("'auto' leaves it out of a small catalog; an explicit true always offers it", () =>
    Effect.gen(function*() {
      const auto = yield* stagedNames(demo, "auto")
      assert.notInclude(auto, "search_tools")
      const explicit = yield* stagedNames(demo, true)
      assert.include(explicit, "search_tools")
      assert.strictEqual(Disclosure.discoveryTool(explicit), "search_tools")
    }))

  it.effect("an explicit false wins over a large catalog as well", () =>
    Effect.gen(function*() {
      const visible = yield* stagedNames(harnessTools, false)
      assert.notInclude(visible, "search_tools")
      assert.strictEqual(Disclosure.discoveryTool(visible), "ToolSearch")
    }))

  it.effect("discovery-first from the environment is an explicit opt-in", () =>
    Effect.gen(function*() {
      const env = ConfigProvider.fromEnv({
        env: { TOOL_SEARCH_MODE: "staged", TOOL_SEARCH_DISCOVERY_FIRST: "true", TOOL_SEARCH_STRICT: "false" }
      })
      const configured = <A, E>(effect: Effect.Effect<A, E, Unit.Unit | ToolCatalog.ToolCatalog>) =>
        unitOver(demo, effect).pipe(
          Effect.provide(ToolSearchConfig.layerConfig),
          Effect.provideService(ConfigProvider.ConfigProvider, env)
        )
      assert.include(yield* configured(names), "search_tools")
      const prompt = yield* configured(Unit.contents)
      assert.include(prompt, "search_tools lists candidate tools")
    }))
})

describe("seed 003: a search tool holding a schema snapshot", () => {
  // The search tool was built with the schemas of its day and never found the retrieval and
  // graph tools registered after it.
  it.effect("search tools taken before a registration find the tool registered after", () =>
    unitOver(
      platformTools,
      Effect.gen(function*() {
        const held = yield* Unit.tools
        const toolSearch = held.find((t) => t.name === "ToolSearch")
        const searchTools = held.find((t) => t.name === "search_tools")
        if (toolSearch === undefined || searchTools === undefined) return assert.fail("both search tools are visible")
        const catalog = yield* ToolCatalog.ToolCatalog
        yield* catalog.register([
          ragSearch,
          tool("query_graph", "Query the ontology graph.", { category: "retrieval", source: "attached-graph" })
        ])
        const browsed = yield* searchTools.run({ query: "ontology graph" }, { toolCallId: "1" })
        assert.include(candidatesOf(browsed.result), "query_graph")
        const loaded = yield* toolSearch.run({ query: "policy-handbook collection" }, { toolCallId: "2" })
        assert.include(functionsOf(loaded.result), "rag_search")
        assert.include(yield* Unit.contents, "- query_graph (load first)")
      })
    ).pipe(
      Effect.provide(staged),
      Effect.provide(Visibility.layer({ resources: ["attached-docs", "attached-graph"], explore: true }))
    ))
})

describe("seed 003: a category filter that returns nothing", () => {
  // The model passed a category no tool had; the search answered nothing and the model gave up.
  const policy = Visibility.layer({ connected: ["news-mcp"], resources: ["attached-docs"] })

  it.effect("falls back to every category and says so", () =>
    stagedHarness(
      policy,
      Effect.gen(function*() {
        const out = yield* call("search_tools", { query: "news articles", category: "media" })
        assert.include(candidatesOf(out.result), "news_search")
        assert.include((out.result as { note?: string }).note, "No tool in category 'media' matched")
      })
    ))

  it.effect("a category spelled differently is the tools' own category, with no note", () =>
    stagedHarness(
      policy,
      Effect.gen(function*() {
        const out = yield* call("search_tools", { query: "search", category: " News " })
        assert.deepStrictEqual(candidatesOf(out.result), ["news_search"])
        assert.notProperty(out.result, "note")
      })
    ))

  it.effect("the fallback stays inside the selection", () =>
    unitOver(
      [...harnessTools, ...newsTools.map((t) => ({ ...t, id: `copy_${t.name}`, source: "other-mcp" }))],
      Effect.gen(function*() {
        const out = yield* call("search_tools", {
          query: "database rows news",
          category: "nothing-like-this",
          max_results: 20
        })
        const found = candidatesOf(out.result)
        assert.isAbove(found.length, 0)
        assert.notInclude(found, dbLoad.name)
        assert.isTrue(found.every((n) => n === "rag_search" || n.startsWith("news_") || n.startsWith("news-mcp__")))
      })
    ).pipe(Effect.provide(staged), Effect.provide(policy)))
})

describe("seed 003: three decisions, three mechanisms", () => {
  it.effect("listed by name, promoted, permitted: each can be refused on its own", () =>
    Effect.gen(function*() {
      const program = stagedHarness(
        Visibility.layer({ connected: ["news-mcp"] }),
        Effect.gen(function*() {
          const prompt = yield* Unit.contents
          const before = yield* names
          yield* call("ToolSearch", { query: "select:news_search" })
          const after = yield* names
          const run = yield* Effect.result(call("news_search", {}))
          return {
            listed: prompt.includes("- news_search (load first)"),
            promoted: !before.includes("news_search") && after.includes("news_search"),
            permitted: run._tag === "Success"
          }
        })
      )
      assert.deepStrictEqual(yield* program, { listed: true, promoted: true, permitted: true })
      // permission refuses the run of a tool that is listed and promoted
      const denied = yield* program.pipe(
        Effect.provide(Permission.allowOnly(["ToolSearch", "search_tools"]))
      )
      assert.deepStrictEqual(denied, { listed: true, promoted: true, permitted: false })
    }))
})
