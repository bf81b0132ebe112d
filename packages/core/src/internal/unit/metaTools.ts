/**
 * The search tools — `ToolSearch`, `search_tools`, `discover_tools` — as `ModelTool`s, and the one
 * implementation of each answer. Every surface runs these: the executor, an app's own loop, every
 * gateway session and `tool-search search`; what differs between them (a loaded-set capacity,
 * sources that are still starting, a dispatcher, an audit) is the unit's configuration, read here.
 *
 * A meta tool's `run` reads the unit from the context of the call, so it acts on the unit that runs
 * it. Each decodes its input, runs the unit's operation and answers with JSON, or with a message the
 * model can act on: nothing here fails.
 *
 * @internal
 */
import { Effect, Option, Schema } from "effect"
import type { CallContext } from "../../CatalogTool.js"
import * as Disclosure from "../../Disclosure.js"
import type { Entry, Match } from "../../ToolCatalog.js"
import * as Messages from "./messages.js"
import type * as Unit from "./model.js"
import { type State, UnitService } from "./service.js"
import * as Sources from "./sources.js"
import type { MetaTools } from "./tools.js"

import type { InvalidQuery, SearchFailed } from "../../Errors.js"
import * as Deferral from "../deferral.js"

const failure = (message: string): Unit.Output => ({ isFailure: true, result: message })

const EMPTY_QUERY = "Query cannot be empty"

/** A meta tool whose `run` is `answer` on the unit in context. */
const metaTool = (
  name: string,
  description: string,
  parameters: Unit.ModelTool["parameters"],
  answer: (unit: State, params: unknown, context: CallContext) => Effect.Effect<Unit.Output>
): Unit.ModelTool => ({
  name,
  description,
  parameters,
  kind: "meta",
  run: (params, context) => UnitService.use((unit) => answer(unit, params, context))
})

// -----------------------------------------------------------------------------
// ToolSearch
// -----------------------------------------------------------------------------

/** What one search of `ToolSearch` came to: the hits it loaded, and what its answer says besides. */
export interface Searched {
  readonly matches: ReadonlyArray<Match>
  /** Ids this search activated that were not active before. */
  readonly activated: ReadonlyArray<string>
  /** Not loaded `select:` names, weak matches, the dispatcher, unloaded tools, sources not searched. */
  readonly note?: string
}

/**
 * The search of `ToolSearch`, on a query already known to be non-empty: rank, leave the weak hits
 * out, load the rest, and say what was not loaded and why — `select:` names not loaded, weak
 * matches, tools a capacity unloaded, sources that could not be searched (only those the unit's
 * visibility exposes). A query that names only sources that cannot answer loads nothing rather than
 * unrelated tools. Every surface runs this: the model's `ToolSearch`, a gateway session's, and
 * `tool-search search`.
 */
export const search: (
  unit: State,
  query: string,
  maxResults: number | undefined,
  context: CallContext
) => Effect.Effect<Searched, InvalidQuery | SearchFailed> = Effect.fnUntraced(
  function*(unit: State, query: string, maxResults: number | undefined, context: CallContext) {
    const { disclosure, visibility } = unit.policies
    const sources = unit.sources === undefined ? undefined : Sources.exposed(unit.sources, visibility)
    const down = sources === undefined ? [] : yield* sources.unavailable
    const named = down.filter((s) => Sources.mentions(query, s.name))
    const namesAvailable = sources?.names.some((n) => !named.some((d) => d.name === n) && Sources.mentions(query, n))
    if (named.length > 0 && namesAvailable !== true) {
      // the query is about sources that cannot answer: say so rather than load unrelated tools
      yield* observe(unit, context, Disclosure.toolNames.toolSearch, query, [], [])
      return { matches: [], activated: [], note: Messages.unsearchedNote(named) }
    }
    const r = yield* unit.tools.search(query, maxResults)
    const tools = r.matches.map((m) => m.tool)
    const added = new Set(r.newlyActivated)
    const loaded = tools.filter((t) => added.has(t.id)).map((t) => t.modelName)
    const unloaded = r.unloaded.flatMap((id) => unit.catalog.getUnsafe(id)?.modelName ?? [])
    const unsearched = tools.length === 0 ? down : named
    const notes = [
      r.notLoaded.length > 0 ? Messages.notLoadedNote(r.notLoaded, disclosure.maxResultsLimit) : undefined,
      r.notLoaded.length === 0 && r.weak.length > 0
        ? Messages.weakMatchesNote(tools.length, r.weak.map((m) => m.tool.modelName))
        : undefined,
      unit.dispatcher !== undefined && loaded.length > 0 ? Messages.dispatcherNote(loaded, unit.dispatcher) : undefined,
      unloaded.length > 0 && unit.capacity !== undefined ? Messages.unloadedNote(unloaded, unit.capacity) : undefined,
      unsearched.length > 0 ? Messages.unsearchedNote(unsearched) : undefined
    ].filter((n) => n !== undefined)
    yield* observe(unit, context, Disclosure.toolNames.toolSearch, query, tools.map((t) => t.modelName), loaded)
    return {
      matches: r.matches,
      activated: r.newlyActivated,
      ...(notes.length === 0 ? {} : { note: notes.join(" ") })
    }
  }
)

/** The answer of `ToolSearch`: its input decoded, `search`, the found tools' full definitions and the note. */
export const toolSearch = (
  unit: State,
  params: unknown,
  context: CallContext = { toolCallId: "" }
): Effect.Effect<Unit.Output> => {
  const input = Option.getOrUndefined(Schema.decodeUnknownOption(Messages.ToolSearchInput)(params))
  const query = input?.query
  if (typeof query !== "string" || query.trim() === "") return Effect.succeed(failure(EMPTY_QUERY))
  const max = Deferral.clampMaxResults(input?.max_results, unit.policies.disclosure)
  return search(unit, query, max, context).pipe(
    Effect.map((r): Unit.Output => {
      const tools = r.matches.map((m) => m.tool)
      const added = new Set(r.activated)
      return {
        isFailure: false,
        // code mode: declarations for a program instead of JSON Schemas
        result: unit.code === undefined
          ? Messages.renderFunctions(tools, r.note)
          : unit.code.declare(tools.map(Messages.definitionOf), r.note),
        found: tools.map((t) => t.modelName),
        activated: tools.filter((t) => added.has(t.id)).map((t) => t.modelName)
      }
    }),
    Effect.catch((e) => Effect.succeed(failure(e.message)))
  )
}

/** Tells the unit's observer what a search found and loaded. */
const observe = (
  unit: State,
  context: CallContext,
  tool: string,
  query: string,
  found: ReadonlyArray<string>,
  activated: ReadonlyArray<string>
) =>
  unit.observer?.onSearch === undefined
    ? Effect.void
    : unit.observer.onSearch({ tool, query, found, activated, toolCallId: context.toolCallId })

// -----------------------------------------------------------------------------
// search_tools
// -----------------------------------------------------------------------------

/** The answer of `search_tools`: candidates, loading nothing. */
const searchTools = (unit: State, params: unknown, context: CallContext): Effect.Effect<Unit.Output> => {
  const { disclosure } = unit.policies
  const input = Option.getOrUndefined(Schema.decodeUnknownOption(Messages.SearchToolsInput)(params))
  const query = input?.query
  if (typeof query !== "string" || query.trim() === "") return Effect.succeed(failure(EMPTY_QUERY))
  const category = typeof input?.category === "string" && input.category.trim() !== "" ? input.category : undefined
  return unit.tools.browse(query, {
    maxResults: Deferral.clampMaxResults(input?.max_results, disclosure),
    ...(category === undefined ? {} : { category })
  }).pipe(
    Effect.tap((matches) =>
      observe(unit, context, Disclosure.toolNames.searchTools, query, matches.map((m) => m.tool.modelName), [])
    ),
    Effect.map((matches): Unit.Output => {
      const tools = matches.map((m) => m.tool)
      // the filter matched nothing and the search fell back to every category: say so
      const wanted = category === undefined ? undefined : Messages.normalizeCategory(category)
      const fellBack = category !== undefined && tools.length > 0 &&
        !tools.some((t) => t.category !== undefined && Messages.normalizeCategory(t.category) === wanted)
      return {
        isFailure: false,
        result: Messages.renderCandidates(tools, fellBack ? Messages.categoryFallbackNote(category) : undefined),
        found: tools.map((t) => t.modelName),
        activated: []
      }
    }),
    Effect.catch((e) => Effect.succeed(failure(e.message)))
  )
}

// -----------------------------------------------------------------------------
// discover_tools
// -----------------------------------------------------------------------------

/** The answer of `discover_tools`: the named tools' schemas, activated. */
const discoverTools = (unit: State, params: unknown, context: CallContext): Effect.Effect<Unit.Output> => {
  const input = Schema.decodeUnknownOption(Messages.DiscoveryInput)(params)
  if (Option.isNone(input)) {
    return Effect.succeed(failure(`${Disclosure.toolNames.discoverTools} needs {"toolNames": ["name", ...]}`))
  }
  return discovered(unit, input.value.toolNames, context).pipe(
    Effect.catch((e) => Effect.succeed(failure(e.message)))
  )
}

/** `discover_tools` for names already decoded. */
const discovered = Effect.fnUntraced(function*(unit: State, toolNames: ReadonlyArray<string>, context: CallContext) {
  const before = new Set(yield* unit.activation.values)
  const answer = yield* unit.tools.discover(toolNames)
  const after = yield* unit.activation.values
  const activated = after.filter((id) => !before.has(id)).flatMap((id) => unit.catalog.getUnsafe(id)?.modelName ?? [])
  const found = answer.tools.map((t) => t.name)
  yield* observe(
    unit,
    context,
    Disclosure.toolNames.discoverTools,
    toolNames.join(", "),
    found,
    activated
  )
  const result = unit.code === undefined
    ? answer
    : unit.code.declare(
      answer.tools,
      answer.errors.length === 0 ? undefined : answer.errors.map((e) => e.error).join(" ")
    )
  return { isFailure: false, result, found, activated } satisfies Unit.Output
})

// -----------------------------------------------------------------------------
// The meta tools of a mode
// -----------------------------------------------------------------------------

/** Meta tools by settings: units with the same settings share them (their definitions are data). */
const made = new WeakMap<Disclosure.Options, Map<string, MetaTools>>()

/**
 * The meta tools of a unit with `disclosure`, over a catalog ranked by `strategy`, answering with
 * definitions or (code mode) declarations; shared between units.
 */
export const of = (disclosure: Disclosure.Options, strategy: string, answers: Messages.Answers): MetaTools => {
  let byStrategy = made.get(disclosure)
  if (byStrategy === undefined) made.set(disclosure, byStrategy = new Map())
  const key = `${answers} ${strategy}`
  let tools = byStrategy.get(key)
  if (tools === undefined) byStrategy.set(key, tools = make(disclosure, strategy, answers))
  return tools
}

/** The meta tools of a unit with `disclosure`, over a catalog ranked by `strategy`. */
const make = (disclosure: Disclosure.Options, strategy: string, answers: Messages.Answers): MetaTools => {
  const limit = disclosure.maxResultsLimit
  const defaultMax = disclosure.defaultMaxResults

  const toolSearchTool = metaTool(
    Disclosure.toolNames.toolSearch,
    Messages.toolSearchDescription(limit, defaultMax, strategy === "regex" ? "regex" : "keywords", answers),
    Messages.toolSearchParameters(limit, defaultMax),
    toolSearch
  )
  const searchToolsTool = metaTool(
    Disclosure.toolNames.searchTools,
    Messages.searchToolsDescription(limit, defaultMax),
    Messages.searchToolsParameters(limit, defaultMax),
    searchTools
  )
  const discoverToolsTool = (deferred: ReadonlyArray<Entry>): Unit.ModelTool =>
    metaTool(
      Disclosure.toolNames.discoverTools,
      Messages.discoveryDescription(deferred, disclosure.descriptionDetail),
      Messages.discoveryParameters,
      discoverTools
    )

  const names: ReadonlyArray<string> = disclosure.mode === "catalog"
    ? [Disclosure.toolNames.discoverTools]
    : disclosure.mode === "staged" && disclosure.searchTools !== false
    ? [Disclosure.toolNames.searchTools, Disclosure.toolNames.toolSearch]
    : [Disclosure.toolNames.toolSearch]

  const visible = (searchable: ReadonlyArray<Entry>, active: ReadonlySet<string>): ReadonlyArray<Unit.ModelTool> => {
    switch (disclosure.mode) {
      case "search":
        return [toolSearchTool]
      case "staged":
        return Deferral.offersSearchTools(disclosure, searchable.length)
          ? [searchToolsTool, toolSearchTool]
          : [toolSearchTool]
      case "catalog":
        // absent when nothing is deferred; leaves the list once everything was discovered
        return searchable.some((t) => !active.has(t.id)) ? [discoverToolsTool(searchable)] : []
    }
  }

  const resolve = (name: string, searchable: ReadonlyArray<Entry>): Option.Option<Unit.ModelTool> => {
    if (!names.includes(name)) return Option.none()
    switch (name) {
      case Disclosure.toolNames.toolSearch:
        return Option.some(toolSearchTool)
      case Disclosure.toolNames.searchTools:
        return Option.some(searchToolsTool)
      default:
        return Option.some(discoverToolsTool(searchable))
    }
  }

  return { names, visible, resolve }
}
