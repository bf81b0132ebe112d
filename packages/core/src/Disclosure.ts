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
 * The meta tools' names. A catalog tool may not take one of them (`isMetaTool`).
 *
 * - `toolSearch` — `ToolSearch`, the search tool of `search` mode (and of gateway sessions)
 * - `discoverTools` — the discovery tool of `catalog` mode
 * - `searchTools` — the browsing tool of `staged` mode
 * - `callTool` — the dispatcher of `result` delivery and of gateway sessions
 * - `executeCode` — the tool that runs a program of code mode (`Unit.Code`)
 * - `sampleResources`, `searchResources`, `readResource`, `getPrompt` — the resource tools, levels
 *   2 to 4 of resource disclosure and prompts, in the order they are offered
 *
 * @since 0.3.0
 * @category names
 */
export const toolNames = {
  toolSearch: "ToolSearch",
  discoverTools: "discover_tools",
  searchTools: "search_tools",
  callTool: "call_tool",
  executeCode: "execute_code",
  sampleResources: "sample_resources",
  searchResources: "search_resources",
  readResource: "read_resource",
  getPrompt: "get_prompt"
} as const

const resourceTools: ReadonlySet<string> = new Set([
  toolNames.sampleResources,
  toolNames.searchResources,
  toolNames.readResource,
  toolNames.getPrompt
])
const metaTools: ReadonlySet<string> = new Set(Object.values(toolNames))

/**
 * Whether `name` is a meta tool's (search, resource, dispatcher or code tool): no catalog tool may take it.
 *
 * @since 0.3.0
 * @category names
 */
export const isMetaTool = (name: string): boolean => metaTools.has(name)

/**
 * Whether `name` is one of the resource tools (`sample_resources`, `search_resources`,
 * `read_resource`, `get_prompt`).
 *
 * @since 0.3.0
 * @category names
 */
export const isResourceTool = (name: string): boolean => resourceTools.has(name)

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

/** The defaults: `search` mode, 5 results, clamp at 20, the "no good match" thresholds the protocol chose. */
const defaults: Options = {
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
 * The disclosure settings in the context; when none were provided, the defaults (`search` mode, 5
 * results, clamp at 20, the "no good match" thresholds the protocol chose), which
 * `Disclosure.defaultValue()` returns.
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
 * **Example**
 *
 * ```ts
 * const staged = Disclosure.layer({ mode: "staged", defer: "always" })
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Partial<Options>): Layer.Layer<never> =>
  Layer.effect(Disclosure, Effect.map(Disclosure, (current) => ({ ...current, ...options })))

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
  return [toolNames.searchTools, toolNames.discoverTools, toolNames.toolSearch].find((n) => names.has(n))
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
