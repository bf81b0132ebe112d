/**
 * What the model is shown, per agent: the disclosure mode, how much of each deferred tool the
 * discovery tool lists, and the defaults of the search tools. It is policy data with sensible
 * defaults, read by the view; provide it with `Disclosure.layer({...})` or leave the defaults.
 *
 * - `search` (Anthropic, the Java core, Spring): one eager `ToolSearch` tool; search is load.
 * - `catalog` (TanStack AI): a discovery tool whose description lists the deferred names.
 * - `staged` (the agent harness): a table of contents in the system prompt, `search_tools` to
 *   browse candidates, `ToolSearch` to promote schemas.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import * as Clamp from "./internal/clamp.js"

/**
 * The three ways of showing deferred tools.
 *
 * @since 0.1.0
 * @category models
 */
export type Mode = "search" | "catalog" | "staged"

/**
 * How much of each deferred tool the discovery tool's description lists.
 *
 * @since 0.1.0
 * @category models
 */
export type DescriptionDetail = "none" | "first-sentence" | "full"

/**
 * Names of the meta tools. A catalog tool may not take one of them.
 *
 * @since 0.1.0
 * @category names
 */
export const TOOL_SEARCH = "ToolSearch"
/**
 * The discovery tool of `catalog` mode.
 *
 * @since 0.1.0
 * @category names
 */
export const DISCOVER_TOOLS = "discover_tools"
/**
 * The browsing tool of `staged` mode.
 *
 * @since 0.1.0
 * @category names
 */
export const SEARCH_TOOLS = "search_tools"
/**
 * Level 2 of resource disclosure: resources (metadata and a short snippet) for a query or a URI.
 *
 * @since 0.2.0
 * @category names
 */
export const SAMPLE_RESOURCES = "sample_resources"
/**
 * Level 3: passages inside resources, ranked.
 *
 * @since 0.2.0
 * @category names
 */
export const SEARCH_RESOURCES = "search_resources"
/**
 * Level 4: a slice of a resource's body.
 *
 * @since 0.2.0
 * @category names
 */
export const READ_RESOURCE = "read_resource"
/**
 * A prompt resource rendered with its arguments.
 *
 * @since 0.2.0
 * @category names
 */
export const GET_PROMPT = "get_prompt"
/**
 * The resource tools (`ResourceView`), in the order they are offered.
 *
 * @since 0.2.0
 * @category names
 */
export const RESOURCE_TOOL_NAMES: ReadonlyArray<string> = [
  SAMPLE_RESOURCES,
  SEARCH_RESOURCES,
  READ_RESOURCE,
  GET_PROMPT
]
/**
 * The dispatcher of `result` delivery and of gateway sessions: `call_tool {name, arguments}`.
 *
 * @since 0.3.0
 * @category names
 */
export const CALL_TOOL = "call_tool"
/**
 * All meta tool names: the search tools, the resource tools and the dispatcher. A catalog tool
 * may not take one of them.
 *
 * @since 0.1.0
 * @category names
 */
export const META_TOOL_NAMES: ReadonlySet<string> = new Set([
  TOOL_SEARCH,
  DISCOVER_TOOLS,
  SEARCH_TOOLS,
  ...RESOURCE_TOOL_NAMES,
  CALL_TOOL
])

/**
 * The disclosure settings of one agent.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly mode: Mode
  /** What the discovery tool's description says of each deferred tool. */
  readonly descriptionDetail: DescriptionDetail
  /** `max_results` when the model omits it. */
  readonly defaultMaxResults: number
  /** Upper bound of `max_results`; larger requests are clamped, not rejected. */
  readonly maxResultsLimit: number
  /**
   * Whether `staged` mode offers `search_tools`: `"auto"` leaves it out of catalogs with fewer than
   * `searchToolsThreshold` searchable tools; `true` and `false` are explicit and always win.
   */
  readonly searchTools: boolean | "auto"
  readonly searchToolsThreshold: number
  /**
   * "No good match": `ToolSearch` does not load a hit whose strength (`SearchStrategy.Hit`, 0 to 1)
   * is below `minScore`, or whose score is below `minScoreRatio` times the best hit's score, and
   * says so (`weakHits`). Strategies that give no strength (`semantic`, `hybrid`) are not
   * filtered; 0 and 0 turn it off.
   */
  readonly minScore: number
  readonly minScoreRatio: number
  /**
   * When tools are deferred at all: `"always"`, `"never"` (every tool is sent, no search tool), or a
   * number N — defer only when at least N tools could be deferred; below it, sending them all costs
   * less than the search tool and the search round trip (`auto:N`, Claude Code's
   * `ENABLE_TOOL_SEARCH=auto:N`). Default 10.
   */
  readonly defer: "always" | "never" | number
}

/**
 * The defaults: `search` mode, 5 results, clamp at 20, the "no good match" thresholds the protocol chose.
 *
 * @since 0.1.0
 * @category settings
 */
export const defaults: Options = {
  mode: "search",
  descriptionDetail: "none",
  defaultMaxResults: 5,
  maxResultsLimit: 20,
  searchTools: "auto",
  searchToolsThreshold: 12,
  minScore: 0.07,
  minScoreRatio: 0.3,
  defer: 10
}

/**
 * The disclosure settings in the context; defaults when none were provided.
 *
 * @since 0.1.0
 * @category services
 */
export const Disclosure = Context.Reference<Options>("@tool-search/core/Disclosure", {
  defaultValue: () => defaults
})

/**
 * Provides settings: the fields given replace those of the settings in context (the defaults
 * unless a layer provided others), so layers of settings compose.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Partial<Options>): Layer.Layer<never> =>
  Layer.effect(Disclosure, Effect.map(Disclosure, (current) => ({ ...current, ...options })))

/**
 * Whether tools are deferred when `searchableCount` tools could be: see `Options.defer`.
 *
 * @since 0.3.0
 * @category policy
 */
export const defers = (options: Pick<Options, "defer">, searchableCount: number): boolean =>
  options.defer === "always" || (options.defer !== "never" && searchableCount >= options.defer)

/**
 * Whether `staged` mode offers `search_tools` over `searchableCount` searchable tools. An explicit
 * `true` or `false` always wins; only `"auto"` consults the size threshold, so an agent that opted
 * in (for example to force discovery first) gets the tool even in a seven-tool catalog.
 *
 * @since 0.1.0
 * @category policy
 */
export const offersSearchTools = (options: Options, searchableCount: number): boolean =>
  options.mode === "staged" &&
  (options.searchTools === true || (options.searchTools === "auto" && searchableCount >= options.searchToolsThreshold))

/**
 * The meta tool a discovery-first executor forces on the first model call of a turn, among the
 * tools it is about to send: `search_tools`, else `discover_tools`, else `ToolSearch`; `undefined`
 * when none is sent (nothing to discover).
 *
 * @since 0.1.0
 * @category policy
 */
export const discoveryTool = (visibleNames: Iterable<string>): string | undefined => {
  const names = new Set(visibleNames)
  return [SEARCH_TOOLS, DISCOVER_TOOLS, TOOL_SEARCH].find((n) => names.has(n))
}

/**
 * "No good match": the hits too weak to load, in their order — strength (the share of the query's
 * term weight a hit matched, comparable across queries) below `minScore`, or ranking score below
 * `minScoreRatio` times the best hit's score (scores are comparable within one query). Hits
 * without a strength (a strategy that cannot say, a full name match) are never weak. `ToolSearch`
 * and the MCP gateway's search both apply it with their view's settings, so one setting means one
 * thing wherever tools are loaded.
 *
 * @since 0.2.0
 * @category policy
 */
export const weakHits = <M extends { readonly score: number; readonly strength?: number | undefined }>(
  hits: ReadonlyArray<M>,
  options: Pick<Options, "minScore" | "minScoreRatio">
): ReadonlyArray<M> => {
  const best = hits.reduce((b, m) => Math.max(b, m.score), 0)
  const relative = options.minScoreRatio * best
  return hits.filter((m) => m.strength !== undefined && (m.strength < options.minScore || m.score < relative))
}

/**
 * Clamps a requested `max_results` into [1, limit]; non-numbers give the default.
 *
 * @since 0.1.0
 * @category policy
 */
export const clampMaxResults = (requested: unknown, options: Options): number =>
  Clamp.count(requested, options.defaultMaxResults, options.maxResultsLimit)
