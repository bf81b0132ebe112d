/**
 * Every tool-search setting, read from the environment (or any `ConfigProvider`) through Effect
 * `Config`: the search strategy, the disclosure mode and search tool defaults, the visibility
 * policy, the table of contents, and the executor's settings (discovery first, how activation
 * carries over between turns, eviction).
 *
 * `config` yields one typed `Settings` object; `layer` provides `Disclosure`, `Visibility`,
 * `TableOfContents`, the `SearchStrategy` and the settings themselves from it. An unset (or empty)
 * variable takes its default; an invalid value fails with a `ConfigError` that names the variable,
 * quotes the value and says what was expected. `variables` lists them all, with their defaults.
 *
 * @since 0.1.0
 */
import { Config, Context, Duration, Effect, Layer, Option, Result, Schema, SchemaIssue } from "effect"
import * as Disclosure from "./Disclosure.js"
import type { SearchStrategy } from "./SearchStrategy.js"
import * as Strategies from "./Strategies.js"
import * as TableOfContents from "./TableOfContents.js"
import * as Visibility from "./Visibility.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * How activation carries over between the turns of a session (the executor applies it):
 * `turn` starts every turn clean; `session` accumulates; `latest` carries the previous turn's
 * activations only; `history` re-activates the tools found in the conversation history.
 */
export type ActivationPolicy = "turn" | "session" | "latest" | "history"

/** The activation policies, in documentation order. */
export const activationPolicies: ReadonlyArray<ActivationPolicy> = ["turn", "session", "latest", "history"]

/**
 * When a session's carried-over activation is dropped (the executor's session store applies it,
 * lazily on each access): `Never` until evicted explicitly, `Always` before every access, `Lru`
 * beyond the `maxSessions` most recently used sessions, `Ttl` after `ttl` idle, `Composite` when
 * any of `strategies` would.
 */
export type Eviction =
  | { readonly _tag: "Never" }
  | { readonly _tag: "Always" }
  | { readonly _tag: "Lru"; readonly maxSessions: number }
  | { readonly _tag: "Ttl"; readonly ttl: Duration.Duration }
  | { readonly _tag: "Composite"; readonly strategies: ReadonlyArray<Eviction> }

/** The table-of-contents settings that can come from the environment (the template is code). */
export interface TableOfContentsSettings {
  readonly namesPerSource: number
  readonly detail: Disclosure.DescriptionDetail
}

/** Every setting, typed. */
export interface Settings {
  readonly strategy: Strategies.Name
  readonly disclosure: Disclosure.Options
  readonly visibility: Visibility.Options
  readonly tableOfContents: TableOfContentsSettings
  /** Force the discovery tool on the first model call of each turn (once per turn). */
  readonly discoveryFirst: boolean
  readonly activation: ActivationPolicy
  readonly eviction: Eviction
}

/** One environment variable, for documentation and `--help` texts. */
export interface Variable {
  readonly name: string
  /** The accepted values. */
  readonly values: string
  /** The value when unset, as one would write it. */
  readonly default: string
  readonly description: string
}

// -----------------------------------------------------------------------------
// Defaults and the variables
// -----------------------------------------------------------------------------

/** The settings with no variable set. */
export const defaults: Settings = {
  strategy: Strategies.defaultName,
  disclosure: Disclosure.defaults,
  visibility: Visibility.defaults,
  tableOfContents: {
    namesPerSource: TableOfContents.defaults.namesPerSource,
    detail: TableOfContents.defaults.detail
  },
  discoveryFirst: false,
  activation: "turn",
  eviction: { _tag: "Lru", maxSessions: 1_000 }
}

const modes: ReadonlyArray<Disclosure.Mode> = ["search", "catalog", "staged"]
const details: ReadonlyArray<Disclosure.DescriptionDetail> = ["none", "first-sentence", "full"]

/** Every variable `config` reads. */
export const variables: ReadonlyArray<Variable> = [
  {
    name: "TOOL_SEARCH_STRATEGY",
    values: Strategies.names.join(" | "),
    default: Strategies.defaultName,
    description: "the search strategy, from the registry of built-in strategies"
  },
  {
    name: "TOOL_SEARCH_MAX_RESULTS",
    values: "integer, 1 to TOOL_SEARCH_MAX_RESULTS_LIMIT",
    default: String(Disclosure.defaults.defaultMaxResults),
    description: "results when the model gives no max_results"
  },
  {
    name: "TOOL_SEARCH_MAX_RESULTS_LIMIT",
    values: "integer ≥ 1",
    default: String(Disclosure.defaults.maxResultsLimit),
    description: "larger max_results are clamped to it"
  },
  {
    name: "TOOL_SEARCH_MODE",
    values: modes.join(" | "),
    default: Disclosure.defaults.mode,
    description: "the disclosure mode"
  },
  {
    name: "TOOL_SEARCH_DESCRIPTION_DETAIL",
    values: details.join(" | "),
    default: Disclosure.defaults.descriptionDetail,
    description: "what discover_tools (catalog mode) lists of each deferred tool"
  },
  {
    name: "TOOL_SEARCH_SEARCH_TOOLS",
    values: "auto | true | false",
    default: "auto (true with discovery first)",
    description: "whether staged mode offers search_tools; an explicit value beats the size heuristic"
  },
  {
    name: "TOOL_SEARCH_SEARCH_TOOLS_THRESHOLD",
    values: "integer ≥ 0",
    default: String(Disclosure.defaults.searchToolsThreshold),
    description: "with auto, search_tools needs at least this many searchable tools"
  },
  {
    name: "TOOL_SEARCH_STRICT",
    values: "boolean",
    default: "true",
    description: "nothing outside the selection is listed, searchable or executable"
  },
  {
    name: "TOOL_SEARCH_SELECT",
    values: "comma-separated tool names or ids",
    default: "(none)",
    description: "tools the agent names explicitly"
  },
  {
    name: "TOOL_SEARCH_CONNECTED",
    values: "comma-separated source ids",
    default: "(none)",
    description: "sources the user attached; their tools bypass the platform gate and are listed by name"
  },
  {
    name: "TOOL_SEARCH_RESOURCES",
    values: "comma-separated source ids",
    default: "(none)",
    description: "sources of resource-bound tools (e.g. retrieval over attached documents)"
  },
  {
    name: "TOOL_SEARCH_EXPLORE",
    values: "boolean",
    default: "false (true when TOOL_SEARCH_PLATFORM_SOURCES is set)",
    description: "whether platform sources join the selection"
  },
  {
    name: "TOOL_SEARCH_PLATFORM_SOURCES",
    values: "* | comma-separated source ids",
    default: "*",
    description: "the platform allow-list exploration covers"
  },
  {
    name: "TOOL_SEARCH_TOC_NAMES_PER_SOURCE",
    values: "integer ≥ 0",
    default: String(TableOfContents.defaults.namesPerSource),
    description: "tool names the table of contents lists per connected source before counting the rest"
  },
  {
    name: "TOOL_SEARCH_TOC_DETAIL",
    values: details.join(" | "),
    default: TableOfContents.defaults.detail,
    description: "what the table of contents shows of each listed tool"
  },
  {
    name: "TOOL_SEARCH_DISCOVERY_FIRST",
    values: "boolean",
    default: "false",
    description: "force the discovery tool on the first model call of each turn"
  },
  {
    name: "TOOL_SEARCH_ACTIVATION",
    values: activationPolicies.join(" | "),
    default: "turn",
    description: "how activation carries over between turns"
  },
  {
    name: "TOOL_SEARCH_EVICTION",
    values: "never | always | lru:<sessions> | ttl:<duration> | several joined by ','",
    default: "lru:1000",
    description: "when a session's carried-over activation is dropped, e.g. 'lru:200,ttl:30 minutes'"
  }
]

// -----------------------------------------------------------------------------
// Parsers (pure, exported for command lines and tests)
// -----------------------------------------------------------------------------

/** Parses `true/false/yes/no/on/off/1/0` (any case). */
export const parseBoolean = (raw: string): Result.Result<boolean, string> => {
  const v = raw.trim().toLowerCase()
  if (["true", "yes", "on", "1"].includes(v)) return Result.succeed(true)
  if (["false", "no", "off", "0"].includes(v)) return Result.succeed(false)
  return Result.fail("expected true or false")
}

/** Parses an integer of at least `min`. */
export const parseInteger = (min: number) => (raw: string): Result.Result<number, string> => {
  const v = raw.trim()
  const n = /^[+-]?\d+$/.test(v) ? Number(v) : Number.NaN
  return Number.isSafeInteger(n) && n >= min ? Result.succeed(n) : Result.fail(`expected an integer of at least ${min}`)
}

/** Parses one of `choices`. */
export const parseChoice = <A extends string>(choices: ReadonlyArray<A>) => (raw: string): Result.Result<A, string> => {
  const v = raw.trim()
  const found = choices.find((c) => c === v)
  return found === undefined ? Result.fail(`expected one of ${choices.join(", ")}`) : Result.succeed(found)
}

/** Parses a comma-separated list: items trimmed, empty items dropped, `*` refused. */
export const parseList = (raw: string): Result.Result<ReadonlyArray<string>, string> => {
  const items = splitList(raw)
  return items.includes("*")
    ? Result.fail("'*' is only accepted by TOOL_SEARCH_PLATFORM_SOURCES; list the names")
    : Result.succeed(items)
}

/** Parses `*` or a comma-separated list of source ids. */
export const parseSources = (raw: string): Result.Result<ReadonlyArray<string> | "*", string> => {
  const items = splitList(raw)
  if (items.length === 1 && items[0] === "*") return Result.succeed("*")
  return items.includes("*")
    ? Result.fail("'*' stands alone: either '*' or a list of source ids")
    : Result.succeed(items)
}

/** Parses `auto`, or a boolean for an explicit setting. */
export const parseSearchTools = (raw: string): Result.Result<boolean | "auto", string> =>
  raw.trim().toLowerCase() === "auto"
    ? Result.succeed("auto")
    : Result.mapError(parseBoolean(raw), () => "expected auto, true or false")

/**
 * Parses an eviction strategy: `never`, `always`, `lru:<sessions>` (a positive integer),
 * `ttl:<duration>` (e.g. `30 minutes`), or several `lru`/`ttl` joined by `,` (a session is
 * dropped as soon as one of them would drop it).
 */
export const parseEviction = (raw: string): Result.Result<Eviction, string> => {
  const parts = raw.split(",").map((p) => p.trim()).filter((p) => p !== "")
  if (parts.length === 0) return Result.fail("expected never, always, lru:<sessions> or ttl:<duration>")
  if (parts.length === 1) return parseOneEviction(parts[0] as string) // length checked above
  const strategies: Array<Eviction> = []
  for (const part of parts) {
    const one = parseOneEviction(part)
    if (Result.isFailure(one)) return Result.fail(`'${part}': ${one.failure}`)
    if (one.success._tag === "Never" || one.success._tag === "Always") {
      return Result.fail(`'${part}' cannot be combined; combine lru:<sessions> and ttl:<duration>`)
    }
    strategies.push(one.success)
  }
  return Result.succeed({ _tag: "Composite", strategies })
}

const parseOneEviction = (part: string): Result.Result<Eviction, string> => {
  const lower = part.toLowerCase()
  if (lower === "never") return Result.succeed({ _tag: "Never" })
  if (lower === "always") return Result.succeed({ _tag: "Always" })
  if (lower.startsWith("lru:")) {
    return Result.mapBoth(parseInteger(1)(part.slice(4)), {
      onFailure: () => "the LRU size must be a positive number of sessions, e.g. lru:200",
      onSuccess: (maxSessions): Eviction => ({ _tag: "Lru", maxSessions })
    })
  }
  if (lower.startsWith("ttl:")) {
    const ttl = Schema.decodeUnknownOption(Schema.DurationFromString)(part.slice(4).trim())
    return Option.isSome(ttl) && Duration.isFinite(ttl.value) && Duration.toMillis(ttl.value) > 0
      ? Result.succeed({ _tag: "Ttl", ttl: ttl.value })
      : Result.fail("the TTL must be a positive duration, e.g. ttl:30 minutes")
  }
  return Result.fail("expected never, always, lru:<sessions> or ttl:<duration>, or lru and ttl joined by ','")
}

const splitList = (raw: string): Array<string> => raw.split(",").map((s) => s.trim()).filter((s) => s !== "")

// -----------------------------------------------------------------------------
// Config
// -----------------------------------------------------------------------------

/** A `ConfigError` for `name`, quoting the value and saying what was expected. */
export const invalid = (name: string, value: string, reason: string): Config.ConfigError =>
  new Config.ConfigError(
    new Schema.SchemaError(
      new SchemaIssue.Pointer(
        [name],
        new SchemaIssue.InvalidValue({ message: `${name}=${JSON.stringify(value)}: ${reason}` }, value)
      )
    )
  )

/**
 * A configuration error as one line for people: the variable, the value and what was expected
 * for the errors this module raises, Effect's own message otherwise.
 */
export const explain = (error: Config.ConfigError): string => {
  const cause = error.cause
  if (Schema.isSchemaError(cause) && cause.issue._tag === "Pointer" && cause.issue.issue._tag === "InvalidValue") {
    const message = cause.issue.issue.annotations?.message
    if (typeof message === "string") return message
  }
  return error.message
}

/** One optional variable, parsed; absent (or empty) is `None`, invalid is a `ConfigError`. */
export const variable = <A>(
  name: string,
  parse: (raw: string) => Result.Result<A, string>
): Config.Config<Option.Option<A>> =>
  Config.String(name).pipe(
    Config.mapEffect((raw) =>
      Result.match(parse(raw), {
        onSuccess: (a) => Effect.succeed(a),
        onFailure: (reason) => Effect.fail(invalid(name, raw, reason))
      })
    ),
    Config.option
  )

const raw = Config.all({
  strategy: variable("TOOL_SEARCH_STRATEGY", parseChoice(Strategies.names)),
  maxResults: variable("TOOL_SEARCH_MAX_RESULTS", parseInteger(1)),
  maxResultsLimit: variable("TOOL_SEARCH_MAX_RESULTS_LIMIT", parseInteger(1)),
  mode: variable("TOOL_SEARCH_MODE", parseChoice(modes)),
  descriptionDetail: variable("TOOL_SEARCH_DESCRIPTION_DETAIL", parseChoice(details)),
  searchTools: variable("TOOL_SEARCH_SEARCH_TOOLS", parseSearchTools),
  searchToolsThreshold: variable("TOOL_SEARCH_SEARCH_TOOLS_THRESHOLD", parseInteger(0)),
  strict: variable("TOOL_SEARCH_STRICT", parseBoolean),
  select: variable("TOOL_SEARCH_SELECT", parseList),
  connected: variable("TOOL_SEARCH_CONNECTED", parseList),
  resources: variable("TOOL_SEARCH_RESOURCES", parseList),
  explore: variable("TOOL_SEARCH_EXPLORE", parseBoolean),
  platformSources: variable("TOOL_SEARCH_PLATFORM_SOURCES", parseSources),
  tocNamesPerSource: variable("TOOL_SEARCH_TOC_NAMES_PER_SOURCE", parseInteger(0)),
  tocDetail: variable("TOOL_SEARCH_TOC_DETAIL", parseChoice(details)),
  discoveryFirst: variable("TOOL_SEARCH_DISCOVERY_FIRST", parseBoolean),
  activation: variable("TOOL_SEARCH_ACTIVATION", parseChoice(activationPolicies)),
  eviction: variable("TOOL_SEARCH_EVICTION", parseEviction)
})

/** Every setting from the environment (or the `ConfigProvider` in context). */
export const config: Config.Config<Settings> = raw.pipe(
  Config.mapEffect((v) => {
    const or = <A>(o: Option.Option<A>, fallback: A): A => Option.getOrElse(o, () => fallback)
    const limit = or(v.maxResultsLimit, Disclosure.defaults.maxResultsLimit)
    const maxResults = or(v.maxResults, Math.min(Disclosure.defaults.defaultMaxResults, limit))
    if (maxResults > limit) {
      return Effect.fail(
        invalid("TOOL_SEARCH_MAX_RESULTS", String(maxResults), `exceeds TOOL_SEARCH_MAX_RESULTS_LIMIT (${limit})`)
      )
    }
    const discoveryFirst = or(v.discoveryFirst, false)
    const settings: Settings = {
      strategy: or(v.strategy, Strategies.defaultName),
      disclosure: {
        mode: or(v.mode, Disclosure.defaults.mode),
        descriptionDetail: or(v.descriptionDetail, Disclosure.defaults.descriptionDetail),
        defaultMaxResults: maxResults,
        maxResultsLimit: limit,
        // forcing discovery first is an explicit opt-in to the search tool: never leave it out
        searchTools: or(v.searchTools, discoveryFirst ? true : Disclosure.defaults.searchTools),
        searchToolsThreshold: or(v.searchToolsThreshold, Disclosure.defaults.searchToolsThreshold)
      },
      visibility: {
        strict: or(v.strict, Visibility.defaults.strict),
        select: or(v.select, Visibility.defaults.select),
        connected: or(v.connected, Visibility.defaults.connected),
        resources: or(v.resources, Visibility.defaults.resources),
        // naming platform sources turns exploration on for them, as the command line's --allow does
        explore: or(v.explore, Option.isSome(v.platformSources)),
        allow: or(v.platformSources, Visibility.defaults.allow)
      },
      tableOfContents: {
        namesPerSource: or(v.tocNamesPerSource, defaults.tableOfContents.namesPerSource),
        detail: or(v.tocDetail, defaults.tableOfContents.detail)
      },
      discoveryFirst,
      activation: or(v.activation, defaults.activation),
      eviction: or(v.eviction, defaults.eviction)
    }
    return Effect.succeed(settings)
  })
)

// -----------------------------------------------------------------------------
// Layers
// -----------------------------------------------------------------------------

/** The settings in context (what the executor reads); `defaults` unless a layer provided them. */
export const ToolSearchConfig = Context.Reference<Settings>("@tool-search/core/ToolSearchConfig", {
  defaultValue: () => defaults
})

/** Provides the settings, and the strategy, disclosure, visibility and table of contents they describe. */
export const layerFrom = (settings: Settings): Layer.Layer<SearchStrategy> =>
  Layer.mergeAll(
    Strategies.layer(settings.strategy),
    Disclosure.layer(settings.disclosure),
    Visibility.layer(settings.visibility),
    TableOfContents.layer(settings.tableOfContents),
    Layer.succeed(ToolSearchConfig, settings)
  )

/** `layerFrom` the environment; fails with a `ConfigError` naming the first invalid variable. */
export const layer: Layer.Layer<SearchStrategy, Config.ConfigError> = Layer.unwrap(Effect.map(config, layerFrom))

/**
 * `layerFrom` the environment, adjusted by code — for what belongs to one agent rather than the
 * process, such as the sources the user connected.
 */
export const layerWith = (adjust: (settings: Settings) => Settings): Layer.Layer<SearchStrategy, Config.ConfigError> =>
  Layer.unwrap(Effect.map(config, (settings) => layerFrom(adjust(settings))))
