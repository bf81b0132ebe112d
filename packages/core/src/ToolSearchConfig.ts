/**
 * The settings of tool-search's core, declared once as a table of `Setting`s: the search strategy,
 * the disclosure mode and search tool defaults, the visibility policy and the table of contents.
 * The agent and the gateway declare their own tables the same way (`AgentConfig`,
 * `GatewayConfig`); `Setting.markdownTable` renders them for the docs and `Setting.read` reads them
 * in one precedence for every source (flags, config file, environment, defaults).
 *
 * `config` yields one typed `Settings` object; `layer(settings)` provides `Disclosure`, `Visibility`,
 * `TableOfContents`, the `SearchStrategy` and the settings themselves from it, `layerConfig` the same from the environment. An unset (or empty)
 * variable takes its default; an invalid value fails with a `ConfigError` naming the variable
 * (`Setting.explain` renders it in one line).
 *
 * @since 0.1.0
 */
import { Config, Context, Effect, Layer, Option } from "effect"
import * as Disclosure from "./Disclosure.js"
import * as Schemas from "./internal/settingSchemas.js"
import * as SearchFeedback from "./SearchFeedback.js"
import type { SearchStrategy } from "./SearchStrategy.js"
import * as Setting from "./Setting.js"
import * as Strategies from "./Strategies.js"
import * as TableOfContents from "./TableOfContents.js"
import * as Visibility from "./Visibility.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * The table-of-contents settings that can come from the environment (the template is code).
 *
 * @since 0.1.0
 * @category models
 */
export interface TableOfContentsSettings {
  readonly namesPerSource: number
  readonly detail: Disclosure.DescriptionDetail
}

/**
 * Every core setting, typed.
 *
 * @since 0.1.0
 * @category models
 */
export interface Settings {
  readonly strategy: Strategies.Name
  readonly disclosure: Disclosure.Options
  readonly visibility: Visibility.Options
  readonly tableOfContents: TableOfContentsSettings
  /** Force the discovery tool on the first model call of each turn (once per turn). */
  readonly discoveryFirst: boolean
  /** Learn from use: keep `SearchFeedback` evidence in memory and rank with it. */
  readonly feedback: boolean
}

// -----------------------------------------------------------------------------
// The table
// -----------------------------------------------------------------------------

const modes = ["search", "catalog", "staged"] as const satisfies ReadonlyArray<Disclosure.Mode>
const details = ["none", "first-sentence", "full"] as const satisfies ReadonlyArray<Disclosure.DescriptionDetail>
const choices = (values: ReadonlyArray<string>) => values.map((v) => `\`${v}\``).join(" | ")

/** The defaults of disclosure and the table of contents (the references' default values) and of visibility, read once. */
const tocDefaults = TableOfContents.TableOfContents.defaultValue()
const visibilityDefaults = Visibility.make().options
const disclosureDefaults = Disclosure.Disclosure.defaultValue()

/**
 * Every core setting: its variable, flag, values, default and description.
 *
 * @since 0.2.0
 * @category settings
 */
export const settings = {
  strategy: Setting.make("strategy", {
    schema: Setting.Choice(Strategies.names),
    default: Strategies.defaultName,
    values: choices(Strategies.names),
    description: "the search strategy, from the registry of built-in strategies"
  }),
  maxResults: Setting.make("maxResults", {
    schema: Setting.Int(1),
    default: disclosureDefaults.defaultMaxResults,
    values: "integer, 1 to `TOOL_SEARCH_MAX_RESULTS_LIMIT`",
    description: "results when the model gives no `max_results`"
  }),
  maxResultsLimit: Setting.make("maxResultsLimit", {
    schema: Setting.Int(1),
    default: disclosureDefaults.maxResultsLimit,
    values: "integer ≥ 1",
    description: "larger `max_results` are clamped to it"
  }),
  mode: Setting.make("mode", {
    schema: Setting.Choice(modes),
    default: disclosureDefaults.mode,
    values: choices(modes),
    description: "the disclosure mode"
  }),
  descriptionDetail: Setting.make("descriptionDetail", {
    schema: Setting.Choice(details),
    default: disclosureDefaults.descriptionDetail,
    values: choices(details),
    description: "what `discover_tools` (catalog mode) lists of each deferred tool"
  }),
  searchTools: Setting.make<boolean | "auto">("searchTools", {
    schema: Schemas.booleanOr(["auto"]),
    default: disclosureDefaults.searchTools,
    values: choices(["auto", "true", "false"]),
    defaultText: "auto (true with discovery first)",
    description: "whether staged mode offers `search_tools`; an explicit value beats the size heuristic"
  }),
  searchToolsThreshold: Setting.make("searchToolsThreshold", {
    schema: Setting.Int(0),
    default: disclosureDefaults.searchToolsThreshold,
    values: "integer ≥ 0",
    description: "with `auto`, `search_tools` needs at least this many searchable tools"
  }),
  minScore: Setting.make("minScore", {
    schema: Schemas.NumberBetween(0, 1),
    default: disclosureDefaults.minScore,
    values: "number, 0 to 1",
    description:
      "\"no good match\": ToolSearch (an agent's, or `serve`'s for every session) does not load hits whose strength (share of the query's term weight matched) is below it; 0 turns it off"
  }),
  minScoreRatio: Setting.make("minScoreRatio", {
    schema: Schemas.NumberBetween(0, 1),
    default: disclosureDefaults.minScoreRatio,
    values: "number, 0 to 1",
    description: "nor hits whose score is below this share of the best hit's score (in the same search); 0 turns it off"
  }),
  defer: Setting.make<"always" | "never" | number>("defer", {
    schema: Schemas.Defer(disclosureDefaults.defer as number),
    default: disclosureDefaults.defer,
    values: "`auto`, `auto:N`, `always`, `never`",
    defaultText: `auto:${disclosureDefaults.defer}`,
    description:
      "when tools are deferred: `auto:N` sends every tool directly while fewer than N could be deferred (a few tools cost less than the search tool and its round trip); `always`; `never`"
  }),
  strict: Setting.make("strict", {
    schema: Setting.Boolean,
    default: visibilityDefaults.strict,
    values: "boolean",
    description: "nothing outside the selection is listed, searchable or executable"
  }),
  select: Setting.make("select", {
    schema: Setting.List,
    default: visibilityDefaults.select,
    values: "comma-separated tool names or ids",
    defaultText: "(none)",
    description: "tools the agent names explicitly"
  }),
  connected: Setting.make("connected", {
    schema: Setting.List,
    default: visibilityDefaults.connected,
    values: "comma-separated source ids",
    defaultText: "(none)",
    description: "sources the user attached; their tools bypass the platform gate and are listed by name"
  }),
  resources: Setting.make("resources", {
    schema: Setting.List,
    default: visibilityDefaults.resources,
    values: "comma-separated source ids",
    defaultText: "(none)",
    description: "sources of resource-bound tools (e.g. retrieval over attached documents)"
  }),
  explore: Setting.make("explore", {
    schema: Setting.Boolean,
    default: visibilityDefaults.explore,
    values: "boolean",
    defaultText: "false (true when `TOOL_SEARCH_PLATFORM_SOURCES` is set)",
    description: "whether platform sources join the selection"
  }),
  platformSources: Setting.make("platformSources", {
    schema: Schemas.ListOrAll,
    default: visibilityDefaults.allow,
    values: "`*` or comma-separated source ids",
    defaultText: "*",
    description: "the platform allow-list exploration covers"
  }),
  tocNamesPerSource: Setting.make("tocNamesPerSource", {
    schema: Setting.Int(0),
    default: tocDefaults.namesPerSource,
    values: "integer ≥ 0",
    description: "tool names the table of contents lists per connected source before counting the rest"
  }),
  tocDetail: Setting.make("tocDetail", {
    schema: Setting.Choice(details),
    default: tocDefaults.detail,
    values: choices(details),
    description: "what the table of contents shows of each listed tool"
  }),
  feedback: Setting.make("feedback", {
    schema: Setting.Boolean,
    default: true,
    values: "boolean",
    description:
      "learn from use: a search whose hit is then called successfully ranks that tool higher for similar queries (in memory)"
  }),
  discoveryFirst: Setting.make("discoveryFirst", {
    schema: Setting.Boolean,
    default: false,
    values: "boolean",
    description: "force the discovery tool on the first model call of each turn (the executor applies it)"
  })
}

/**
 * The settings with nothing set.
 *
 * @since 0.1.0
 * @category settings
 */
const defaults: Settings = {
  strategy: Strategies.defaultName,
  disclosure: disclosureDefaults,
  visibility: visibilityDefaults,
  tableOfContents: {
    namesPerSource: tocDefaults.namesPerSource,
    detail: tocDefaults.detail
  },
  discoveryFirst: false,
  feedback: true
}

/**
 * Every core setting from the `ConfigProvider` in context (the environment unless one was
 * provided): the table's values, with the defaults that depend on other settings applied and
 * checked together.
 *
 * @since 0.1.0
 * @category settings
 */
export const config: Config.Config<Settings> = Setting.options(settings).pipe(
  Config.mapEffect((v) => {
    const or = <A>(o: Option.Option<A>, fallback: A): A => Option.getOrElse(o, () => fallback)
    const limit = or(v.maxResultsLimit, disclosureDefaults.maxResultsLimit)
    const maxResults = or(v.maxResults, Math.min(disclosureDefaults.defaultMaxResults, limit))
    if (maxResults > limit) {
      return Effect.fail(
        Setting.invalid(settings.maxResults.env, `${maxResults} exceeds ${settings.maxResultsLimit.env} (${limit})`)
      )
    }
    const discoveryFirst = or(v.discoveryFirst, false)
    return Effect.succeed<Settings>({
      strategy: or(v.strategy, Strategies.defaultName),
      disclosure: {
        mode: or(v.mode, disclosureDefaults.mode),
        descriptionDetail: or(v.descriptionDetail, disclosureDefaults.descriptionDetail),
        defaultMaxResults: maxResults,
        maxResultsLimit: limit,
        // forcing discovery first is an explicit opt-in to the search tool: never leave it out
        searchTools: or(v.searchTools, discoveryFirst ? true : disclosureDefaults.searchTools),
        searchToolsThreshold: or(v.searchToolsThreshold, disclosureDefaults.searchToolsThreshold),
        minScore: or(v.minScore, disclosureDefaults.minScore),
        minScoreRatio: or(v.minScoreRatio, disclosureDefaults.minScoreRatio),
        defer: or(v.defer, disclosureDefaults.defer)
      },
      visibility: {
        strict: or(v.strict, visibilityDefaults.strict),
        select: or(v.select, visibilityDefaults.select),
        connected: or(v.connected, visibilityDefaults.connected),
        resources: or(v.resources, visibilityDefaults.resources),
        // naming platform sources turns exploration on for them, as the command line's --allow does
        explore: or(v.explore, Option.isSome(v.platformSources)),
        allow: or(v.platformSources, visibilityDefaults.allow)
      },
      tableOfContents: {
        namesPerSource: or(v.tocNamesPerSource, defaults.tableOfContents.namesPerSource),
        detail: or(v.tocDetail, defaults.tableOfContents.detail)
      },
      discoveryFirst,
      feedback: or(v.feedback, defaults.feedback)
    })
  })
)

// -----------------------------------------------------------------------------
// Layers
// -----------------------------------------------------------------------------

/**
 * The settings in context (what the executor reads); `defaults` unless a layer provided them.
 *
 * @since 0.1.0
 * @category layers
 */
export const ToolSearchConfig = Context.Reference<Settings>("@tool-search/core/ToolSearchConfig", {
  defaultValue: () => defaults
})

/**
 * Provides the settings, and the strategy, disclosure, visibility, table of contents and search
 * feedback they describe.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (settings: Settings): Layer.Layer<SearchStrategy> =>
  Layer.mergeAll(
    Strategies.layer(settings.strategy),
    Disclosure.layer(settings.disclosure),
    Visibility.layer(settings.visibility),
    TableOfContents.layer(settings.tableOfContents),
    settings.feedback ? SearchFeedback.layerMemory() : Layer.empty,
    Layer.succeed(ToolSearchConfig, settings)
  )

/**
 * `layer` from the settings (the `ConfigProvider` in context, the environment by default); fails
 * with a `ConfigError` naming the first invalid variable.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig: Layer.Layer<SearchStrategy, Config.ConfigError> = Layer.unwrap(Effect.map(config, layer))

/**
 * `layerConfig`, adjusted by code — for what belongs to one agent rather than the process, such as
 * the sources the user connected.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfigWith = (
  adjust: (settings: Settings) => Settings
): Layer.Layer<SearchStrategy, Config.ConfigError> =>
  Layer.unwrap(Effect.map(config, (settings) => layer(adjust(settings))))
