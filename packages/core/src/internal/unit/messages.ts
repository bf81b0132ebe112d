/**
 * What the model reads of the tools that find other tools — their descriptions, parameter schemas,
 * input decoding, the JSON they answer with, and the corrective messages of refused calls. The
 * unit's meta tools (`metaTools.ts`) use them; nothing here is public.
 *
 * - `ToolSearch` (`search` and `staged` modes): query + `max_results`; answers
 *   `{"functions":[{name, description, parameters}]}` and activates the hits: search is load.
 * - `discover_tools` (`catalog` mode): its description lists the deferred names; it takes
 *   `{toolNames}` and answers each tool's description and schema, plus an error per unknown name.
 * - `search_tools` (`staged` mode): browses candidates (name, category, first sentence); activates
 *   nothing.
 *
 * @internal
 */
import type { JsonSchema } from "effect"
import { Schema } from "effect"
import { firstSentence } from "../../CatalogTool.js"
import { type DescriptionDetail, toolNames } from "../../Disclosure.js"
import type { Entry, Match } from "../../ToolCatalog.js"
import { memoNumbers } from "../memo.js"

import { Refused } from "../../Errors.js"

// -----------------------------------------------------------------------------
// ToolSearch
// -----------------------------------------------------------------------------

/**
 * The description of `ToolSearch`, written for the model.
 */
export const toolSearchDescription = (
  limit: number,
  defaultMax: number,
  style: QueryStyle = "keywords",
  answers: Answers = "definitions"
): string =>
  [
    answers === "definitions"
      ? "Search the deferred tools and load the ones found: their full definitions are returned and they" +
        " can be called from your next step."
      : "Search the deferred tools and load the ones found: their TypeScript declarations are returned and" +
        ` your programs (${toolNames.executeCode}) can call them as tools.name(args).`,
    style === "regex"
      ? "Query forms: a regular expression over tool names (RE2 syntax, " +
        "case-insensitive, at most 200 characters, e.g. 'slack_(send|post)'); exact names ('select:Read,Edit');" +
        " a required name part plus a pattern ('+slack send')."
      : "Query forms: keywords ('read file'); exact names" +
        " ('select:Read,Edit'); a required name part plus ranking words ('+slack send').",
    `Returns at most max_results tools (default ${defaultMax}, at most ${limit}).`
  ].join(" ")

/**
 * What the search tools answer for the tools they load: their definitions (JSON Schemas), or in
 * code mode their declarations for a program.
 */
export type Answers = "definitions" | "declarations"

/**
 * How a strategy reads the ranking text of a query: keywords, or a pattern over names (`regex`).
 */
export type QueryStyle = "keywords" | "regex"

/**
 * The parameter schema of `ToolSearch`.
 */
export const toolSearchParameters = memoNumbers((limit: number, defaultMax: number): JsonSchema.JsonSchema => ({
  type: "object",
  properties: {
    query: {
      type: "string",
      description: "What to find, 'select:Name1,Name2' for exact names, or '+part words' to require a name part"
    },
    max_results: {
      type: "number",
      description: `How many tools to return (1-${limit}, default ${defaultMax})`
    }
  },
  required: ["query"],
  additionalProperties: false
}))

/**
 * The decoded input of `ToolSearch`: lenient, so the handler can answer with precise errors.
 */
export const ToolSearchInput = Schema.Struct({
  query: Schema.optionalKey(Schema.Unknown),
  max_results: Schema.optionalKey(Schema.Unknown)
})

/**
 * One function definition, as `ToolSearch` returns it.
 */
export interface FunctionDefinition {
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchema.JsonSchema
}

/**
 * The full definition of a tool under the name the model sees.
 */
export const definitionOf = (tool: Entry): FunctionDefinition => ({
  name: tool.modelName,
  description: tool.description,
  parameters: tool.parameters
})

/**
 * The answer of `ToolSearch`; `note` tells the model something about the answer itself.
 */
export const renderFunctions = (
  tools: ReadonlyArray<Entry>,
  note?: string
): { readonly functions: ReadonlyArray<FunctionDefinition>; readonly note?: string } => ({
  functions: tools.map(definitionOf),
  ...(note === undefined ? {} : { note })
})

/**
 * The note of a `ToolSearch` answer that left weak matches out ("no good match").
 */
export const weakMatchesNote = (kept: number, weak: ReadonlyArray<string>): string =>
  kept === 0
    ? `No good match: the closest tools (${weak.join(", ")}) match these words weakly and were not loaded. ` +
      `Try other words, or load one by name with 'select:${weak[0] ?? "name"}'.`
    : `Only ${kept} tool${kept === 1 ? "" : "s"} matched well; weaker matches were not loaded: ${weak.join(", ")}.`

/**
 * A name of a `select:` that was not loaded, and why.
 */
export interface NotLoaded {
  readonly name: string
  readonly reason: "unknown" | "eager" | "over-limit"
}

/**
 * The note of a `ToolSearch` answer that did not load every selected name.
 */
export const notLoadedNote = (notLoaded: ReadonlyArray<NotLoaded>, limit: number): string => {
  const of = (reason: NotLoaded["reason"]) => notLoaded.filter((n) => n.reason === reason).map((n) => n.name)
  const parts: Array<string> = []
  const unknown = of("unknown")
  const eager = of("eager")
  const over = of("over-limit")
  if (unknown.length > 0) parts.push(`No tool is named ${unknown.join(", ")}.`)
  if (eager.length > 0) parts.push(`Already available, call directly: ${eager.join(", ")}.`)
  if (over.length > 0) {
    parts.push(
      `Not loaded, one search loads at most ${limit} tools: ${over.join(", ")}. ` +
        `Load them with another ${toolNames.toolSearch} call ('select:${over.join(",")}').`
    )
  }
  return parts.join(" ")
}

// -----------------------------------------------------------------------------
// discover_tools
// -----------------------------------------------------------------------------

/**
 * The description of the discovery tool: the deferred names, with as much text as configured.
 */
export const discoveryDescription = (deferred: ReadonlyArray<Entry>, detail: DescriptionDetail): string => {
  const lines = deferred.map((t) => {
    const text = detail === "none" ? "" : detail === "first-sentence" ? firstSentence(t.description) : t.description
    return text.length === 0 ? `- ${t.modelName}` : `- ${t.modelName} — ${text.replace(/\s+/g, " ").trim()}`
  })
  return [
    "Discover tools before calling them: pass the names you need in toolNames and receive each tool's",
    "full description and parameter schema. Discovered tools can be called from your next step.",
    "Available tools:",
    ...lines
  ].join("\n")
}

/**
 * The parameter schema of the discovery tool.
 */
export const discoveryParameters: JsonSchema.JsonSchema = {
  type: "object",
  properties: {
    toolNames: {
      type: "array",
      items: { type: "string" },
      description: "Names of the tools to discover, as listed in this tool's description"
    }
  },
  required: ["toolNames"],
  additionalProperties: false
}

/**
 * The decoded input of the discovery tool.
 */
export const DiscoveryInput = Schema.Struct({ toolNames: Schema.Array(Schema.String) })

/**
 * The answer of the discovery tool.
 */
export interface DiscoveryAnswer {
  readonly tools: ReadonlyArray<FunctionDefinition>
  readonly errors: ReadonlyArray<{ readonly name: string; readonly error: string }>
}

// -----------------------------------------------------------------------------
// search_tools
// -----------------------------------------------------------------------------

/**
 * The description of `search_tools`.
 */
export const searchToolsDescription = (limit: number, defaultMax: number): string =>
  [
    "Browse the tool catalog: returns candidate tools with their category and a one-line summary,",
    `without loading them (default ${defaultMax}, at most ${limit} results). Load the ones you need`,
    `with ${toolNames.toolSearch} (for example 'select:name1,name2') before calling them.`
  ].join(" ")

/**
 * The parameter schema of `search_tools`.
 */
export const searchToolsParameters = memoNumbers((limit: number, defaultMax: number): JsonSchema.JsonSchema => ({
  type: "object",
  properties: {
    query: { type: "string", description: "What you need to do, in a few words" },
    category: { type: "string", description: "Only tools of this category (ignored when it matches nothing)" },
    max_results: { type: "number", description: `How many candidates to return (1-${limit}, default ${defaultMax})` }
  },
  required: ["query"],
  additionalProperties: false
}))

/**
 * The decoded input of `search_tools`.
 */
export const SearchToolsInput = Schema.Struct({
  query: Schema.optionalKey(Schema.Unknown),
  category: Schema.optionalKey(Schema.Unknown),
  max_results: Schema.optionalKey(Schema.Unknown)
})

/**
 * One browsed candidate.
 */
export interface Candidate {
  readonly name: string
  readonly category: string | null
  readonly summary: string
}

/**
 * The answer of `search_tools`; `note` tells the model something about the answer itself.
 */
export const renderCandidates = (
  tools: ReadonlyArray<Entry>,
  note?: string
): { readonly tools: ReadonlyArray<Candidate>; readonly note?: string } => ({
  tools: tools.map((t) => ({ name: t.modelName, category: t.category ?? null, summary: firstSentence(t.description) })),
  ...(note === undefined ? {} : { note })
})

/**
 * The note of a `search_tools` answer whose category filter matched nothing, so every category was searched.
 */
export const categoryFallbackNote = (category: string): string =>
  `No tool in category '${category}' matched; these results come from every category.`

// -----------------------------------------------------------------------------
// Corrective messages
// -----------------------------------------------------------------------------

/**
 * What a model must call to activate `name`, in the current mode's vocabulary.
 */
export const activationHint = (name: string, via: "search" | "discovery"): string =>
  via === "discovery"
    ? `Tool '${name}' must be discovered first. Call ${toolNames.discoverTools} with {"toolNames": ["${name}"]} to discover it, then call '${name}' again.`
    : `Tool '${name}' is not loaded yet. Call ${toolNames.toolSearch} with {"query": "select:${name}"} to load it, then call '${name}' again.`

/**
 * The message for an unknown tool name.
 */
export const unknownHint = (name: string, suggestions: ReadonlyArray<string>, searchTool: string): string =>
  suggestions.length > 0
    ? `Unknown tool '${name}'. Did you mean: ${suggestions.join(", ")}?`
    : `Unknown tool '${name}'. Use ${searchTool} to find the tool you need.`

/** The message for a tool this agent may not run. */
export const notPermittedHint = (name: string): string => `Tool '${name}' is not permitted for this agent.`

/** A category as compared with what a model typed: case and spacing do not count. */
export const normalizeCategory = (category: string): string => category.trim().replace(/\s+/g, " ").toLowerCase()

/** A refused call of a tool, resource or prompt: the hint is the message, written for the model. */
export const refused = (kind: Refused["kind"], name: string, reason: Refused["reason"], hint: string): Refused =>
  new Refused({ kind, name, reason, hint })

/** The selected names a search did not load: unknown (or not visible), eager (visible already), or over the limit. */
export const notLoaded = (
  names: ReadonlyArray<string>,
  matches: ReadonlyArray<Match>,
  find: (name: string) => Entry | undefined
): Array<NotLoaded> => {
  const loaded = new Set(matches.map((m) => m.tool.id))
  return names.flatMap((name): Array<NotLoaded> => {
    const tool = find(name)
    if (tool === undefined) return [{ name, reason: "unknown" }]
    if (loaded.has(tool.id)) return []
    return [{ name, reason: tool.loading === "eager" ? "eager" : "over-limit" }]
  })
}

/** The note of a search that loaded tools, in a unit that offers a dispatcher (`call_tool`). */
export const dispatcherNote = (loaded: ReadonlyArray<string>, dispatcher: string): string =>
  `Loaded: ${loaded.join(", ")}. Call them directly, or with ${dispatcher} ` +
  `({"name": "${loaded[0] ?? "name"}", "arguments": {...}}) if they are not in your tool list yet.`

/** The note of a search whose loads unloaded other tools to keep the loaded set within its capacity. */
export const unloadedNote = (unloaded: ReadonlyArray<string>, capacity: number): string =>
  `Unloaded to keep at most ${capacity} tools loaded: ${unloaded.join(", ")}.`

/** The note of a search that could not search some sources. */
export const unsearchedNote = (sources: ReadonlyArray<{ readonly name: string; readonly reason: string }>): string =>
  `Not searched: ${sources.map((s) => `${s.name}: ${s.reason}`).join("; ")}.`
