/**
 * The tool side of a unit: what the model sees now (eager tools, the meta tools of the mode, the
 * unit's own tools, then activated tools in activation order — a stable order that keeps provider
 * prompt caches warm), how a name the model called resolves, and the one place where tools become
 * active (`search`, which `ToolSearch` and `discover_tools` run).
 *
 * Visibility decides what exists, activation what is sent, permission what may run: three
 * decisions, three mechanisms. Below the deferral threshold (`Disclosure.Options.defer`) every
 * tool is sent and no search tool is offered. In code mode activated tools are not sent: programs
 * call them (`callable`).
 *
 * @internal
 */
import { Effect, Option, Result } from "effect"
import * as CatalogTool from "../../CatalogTool.js"
import * as Disclosure from "../../Disclosure.js"
import * as Query from "../../Query.js"
import type { Service as SearchFeedbackService } from "../../SearchFeedback.js"
import type { Entry, Match, Service as ToolCatalogService } from "../../ToolCatalog.js"
import * as Tracing from "../../Tracing.js"
import * as FoundBy from "../foundBy.js"
import * as Suggest from "../suggest.js"
import type { Disclosed } from "./disclosed.js"
import * as Messages from "./messages.js"
import type * as Unit from "./model.js"
import type { Policies } from "./service.js"
import { UnitService } from "./service.js"

import type { InvalidQuery, Refused, SearchFailed } from "../../Errors.js"
import { ToolExecutionError } from "../../Errors.js"
import * as Deferral from "../deferral.js"

/** The outcome of `search`. */
export interface SearchResult {
  readonly query: Query.Query
  readonly matches: ReadonlyArray<Match>
  /** Ids this search activated that were not active before. */
  readonly newlyActivated: ReadonlyArray<string>
  /** Ids a capacity unloaded to make room. */
  readonly unloaded: ReadonlyArray<string>
  /** Names of a `select:` that were not loaded, and why (empty for other queries). */
  readonly notLoaded: ReadonlyArray<Messages.NotLoaded>
  /** Hits left out as weak matches (`Disclosure.weakHits`), best first. */
  readonly weak: ReadonlyArray<Match>
}

/** The tool side of one unit. */
export interface ToolSide {
  /** The tools for the next model request. */
  readonly visible: Effect.Effect<ReadonlyArray<Unit.ModelTool>>
  /** The tool of a name the model called, or why it may not run. */
  readonly resolve: (name: string) => Effect.Effect<Unit.ModelTool, Refused>
  /** Ranks the searchable deferred tools for a query and activates the hits. */
  readonly search: (
    query: string | Query.Query,
    maxResults?: number
  ) => Effect.Effect<SearchResult, InvalidQuery | SearchFailed>
  /** Ranks candidates without activating them (`search_tools`). */
  readonly browse: (
    query: string,
    options?: BrowseOptions
  ) => Effect.Effect<ReadonlyArray<Match>, InvalidQuery | SearchFailed>
  /** Activates tools by name (`discover_tools`): the schemas of the known ones, an error per unknown name. */
  readonly discover: (names: ReadonlyArray<string>) => Effect.Effect<Messages.DiscoveryAnswer, SearchFailed>
  /** Activated tools that still exist, in activation order. */
  readonly activated: Effect.Effect<ReadonlyArray<Entry>>
  /**
   * The catalog tools that may be called now: eager and activated tools (every tool below the
   * deferral threshold) that exist for the unit and that the permission policy allows.
   */
  readonly callable: Effect.Effect<ReadonlyArray<Unit.ModelTool>>
  /** Deferred tools a search may return. */
  readonly searchable: Effect.Effect<ReadonlyArray<Entry>>
  /** Whether deferral is on: off below the threshold, when every tool is sent. */
  readonly deferring: Effect.Effect<boolean>
  /** The feedback hook: a tool a ranked search of this unit found was called successfully. */
  readonly recordSuccessfulCall: (toolId: string) => Effect.Effect<void>
  /** Names of the meta tools of the mode (they exist for "did you mean" even when not sent). */
  readonly metaNames: ReadonlyArray<string>
  /** The tools with the name `name` would refer to among those this unit may use, for suggestions. */
  readonly unknown: (name: string) => Effect.Effect<Refused>
}

/** What the tool side is built from. */
export interface Inputs {
  readonly catalog: ToolCatalogService
  /** Where successful calls of found tools are recorded. */
  readonly feedback: SearchFeedbackService
  readonly activation: Disclosed
  readonly policies: Policies
  /** The unit's own tools, sent after the meta tools: the resource tools, a dispatcher. */
  readonly own: Effect.Effect<ReadonlyArray<Unit.ModelTool>>
  /** The meta tools of the mode, given the searchable tools and the active ids. */
  readonly metaTools: MetaTools
  /** Whether activated tools join the tool list; not in code mode, where programs call them. */
  readonly listsActivated: boolean
}

/** The meta tools a unit offers: built by `metaTools.ts`, which needs the tool side's operations. */
export interface MetaTools {
  readonly names: ReadonlyArray<string>
  readonly visible: (searchable: ReadonlyArray<Entry>, active: ReadonlySet<string>) => ReadonlyArray<Unit.ModelTool>
  readonly resolve: (name: string, searchable: ReadonlyArray<Entry>) => Option.Option<Unit.ModelTool>
}

/** Catalog tools as `ModelTool`s, one object per entry and kind (stable objects keep per-definition caches warm). */
const modelTools = new WeakMap<Entry, { eager?: Unit.ModelTool; activated?: Unit.ModelTool }>()

/** A catalog tool as the model sees it; a successful call is feedback for the search that found it. */
export const asModelTool = (tool: Entry, kind: "eager" | "activated"): Unit.ModelTool => {
  const cached = modelTools.get(tool) ?? {}
  const hit = cached[kind]
  if (hit !== undefined) return hit
  const made: Unit.ModelTool = {
    name: tool.modelName,
    description: tool.description,
    parameters: tool.parameters,
    kind,
    entry: tool,
    run: (params, context) =>
      tool.handler === undefined
        ? Effect.fail(
          new ToolExecutionError({
            tool: tool.modelName,
            reason: "this tool has no handler in this process"
          })
        )
        : Effect.tap(
          tool.handler(params, context),
          (output) =>
            output.isFailure ? Effect.void : UnitService.use((unit) => unit.tools.recordSuccessfulCall(tool.id))
        )
  }
  modelTools.set(tool, { ...cached, [kind]: made })
  return made
}

/** The options of `browse` (`search_tools`). */
type BrowseOptions = { readonly maxResults?: number; readonly category?: string }

/** What `search` reads of the tool side that runs it. */
interface Searching {
  readonly catalog: ToolCatalogService
  readonly disclosure: Policies["disclosure"]
  readonly activation: Disclosed
  readonly foundBy: FoundBy.FoundBy
  readonly isSearchable: (t: Entry) => boolean
  readonly exists: (t: Entry) => boolean
}

/**
 * Ranks the searchable deferred tools for a query and activates the hits: made once, here, not per
 * unit (a generator function made per call costs V8 a new prototype and cold inline caches).
 */
const searchIn = Effect.fnUntraced(function*(
  searching: Searching,
  input: string | Query.Query,
  maxResults?: number
) {
  const { activation, catalog, disclosure, exists, foundBy, isSearchable } = searching
  const query = typeof input === "string" ? yield* Effect.fromResult(Query.parse(input)) : input
  // explicit names are all honoured up to the hard cap, whatever max_results says
  const limit = query._tag === "Select"
    ? Math.max(maxResults ?? 0, disclosure.maxResultsLimit)
    : maxResults ?? disclosure.defaultMaxResults
  const found = yield* catalog.search(query, { limit, candidates: isSearchable })
  const weak = query._tag === "Select" ? [] : Disclosure.weakHits(found, disclosure)
  const matches = weak.length === 0 ? found : found.filter((m) => !weak.includes(m))
  yield* foundBy.remember(query, matches)
  const before = activation.valuesNow()
  const newlyActivated = activation.addNow(matches.map((m) => m.tool.id))
  const after = new Set(activation.valuesNow())
  const unloaded = before.filter((id) => !after.has(id))
  const notLoaded = query._tag === "Select"
    ? Messages.notLoaded(query.names, matches, (name) => {
      const tool = catalog.findByNameUnsafe(name)
      return tool !== undefined && exists(tool) ? tool : undefined
    })
    : []
  return { query, matches, newlyActivated, unloaded, notLoaded, weak } satisfies SearchResult
}, Tracing.span("tool-search.search"))

/** What `discover` and `browse` read of the tool side that runs them. */
interface Finding extends Searching {
  readonly unknown: ToolSide["unknown"]
  readonly canonicalCategory: (requested: string) => Effect.Effect<string | undefined>
}

/** Activates tools by name (`discover_tools`): the schemas of the known ones, an error per unknown name. */
const discoverIn = Effect.fnUntraced(function*(finding: Finding, names: ReadonlyArray<string>) {
  const { catalog, exists, unknown } = finding
  const errors: Array<{ name: string; error: string }> = []
  const eager: Array<Entry> = []
  const deferred: Array<string> = []
  for (const name of names) {
    const tool = catalog.findByNameUnsafe(name)
    if (tool === undefined || !exists(tool)) errors.push({ name, error: (yield* unknown(name)).message })
    else if (tool.loading === "eager") eager.push(tool) // visible already: its schema, nothing to activate
    else deferred.push(tool.modelName)
  }
  const found = deferred.length === 0
    ? []
    : (yield* searchIn(finding, { _tag: "Select", names: deferred }, deferred.length).pipe(
      Effect.catchTag("InvalidQuery", () => Effect.succeed({ matches: [] as ReadonlyArray<Match> }))
    )).matches.map((m) => m.tool)
  return { tools: [...eager, ...found].map(Messages.definitionOf), errors }
})

/** Ranks candidates without activating them (`search_tools`). */
const browseIn = Effect.fnUntraced(function*(finding: Finding, input: string, options: BrowseOptions) {
  const { canonicalCategory, catalog, disclosure, foundBy, isSearchable } = finding
  const query = yield* Effect.fromResult(Query.parse(input))
  // A category the model spelled differently ("Web", " web ") is the tools' own category; one
  // that no searchable tool has would only cost a second search before the catalog falls back.
  const category = options.category === undefined ? undefined : yield* canonicalCategory(options.category)
  const matches = yield* catalog.search(query, {
    limit: options.maxResults ?? disclosure.defaultMaxResults,
    candidates: isSearchable,
    ...(category === undefined ? {} : { category })
  })
  yield* foundBy.remember(query, matches)
  return matches
})

/** The tool side of a unit. */
export const make = (inputs: Inputs): ToolSide => {
  const { activation, catalog, feedback, listsActivated, metaTools, own, policies } = inputs
  const { disclosure, permission, visibility } = policies
  // This unit's ranked searches, turned into feedback evidence when a tool they found is called.
  const foundBy = FoundBy.make(catalog.name, feedback)

  const exists = (t: Entry) => visibility.includes(t)
  const isSearchable = (t: Entry) => t.loading === "deferred" && exists(t)
  const activationVia = disclosure.mode === "catalog" ? "discovery" as const : "search" as const
  const searchToolName = disclosure.mode === "catalog"
    ? Disclosure.toolNames.discoverTools
    : Disclosure.toolNames.toolSearch

  /** The catalog entries of activated ids that still exist for this agent, in activation order. */
  const entriesOf = (ids: ReadonlyArray<string>): ReadonlyArray<Entry> =>
    ids.flatMap((id) => {
      const t = catalog.getUnsafe(id)
      return t !== undefined && isSearchable(t) ? [t] : []
    })

  // Computed once per policy and catalog version, shared by every unit: every request reads it.
  // The hot reads below (the tool list, a call's resolution) are synchronous inside one effect.
  const existing = () => catalog.visibleToUnsafe(visibility)
  const deferringNow = () => Deferral.defers(disclosure, existing().deferred.length)
  const searchable = Effect.sync(() => existing().deferred)
  const deferring = Effect.sync(deferringNow)

  const searching: Searching = { catalog, disclosure, activation, foundBy, isSearchable, exists }
  const search = (input: string | Query.Query, maxResults?: number) => searchIn(searching, input, maxResults)

  const discover = (names: ReadonlyArray<string>) => discoverIn(finding, names)
  const browse = (input: string, options: BrowseOptions = {}) => browseIn(finding, input, options)

  /** The category of a searchable tool equal to `requested` up to case and spacing. */
  const canonicalCategory = (requested: string) =>
    Effect.map(searchable, (tools) => {
      const wanted = Messages.normalizeCategory(requested)
      return tools.find((t) => t.category !== undefined && Messages.normalizeCategory(t.category) === wanted)
        ?.category
    })

  /** Up to three names close to `name` among the tools this agent may use. */
  const unknownNow = (name: string, mine: ReadonlyArray<Unit.ModelTool>): Refused => {
    const all = catalog.allUnsafe()
    const names = [...metaTools.names, ...mine.map((t) => t.name), ...all.filter(exists).map((t) => t.modelName)]
    const suggestions = Suggest.suggest(name, names)
    return Messages.refused("tool", name, "unknown", Messages.unknownHint(name, suggestions, searchToolName))
  }
  const unknown = (name: string) => Effect.map(own, (mine) => unknownNow(name, mine))
  const finding: Finding = { ...searching, unknown, canonicalCategory }

  const visibleNow = (mine: ReadonlyArray<Unit.ModelTool>): ReadonlyArray<Unit.ModelTool> => {
    const { deferred, eager } = existing()
    if (!Deferral.defers(disclosure, deferred.length)) {
      // below the threshold: every tool is sent, no search tool, nothing to dispatch
      return [
        ...eager.map((t) => asModelTool(t, "eager")),
        ...mine.filter((t) => t.name !== Disclosure.toolNames.callTool),
        ...deferred.map((t) => asModelTool(t, "eager"))
      ]
    }
    const ids = activation.valuesNow()
    return [
      ...eager.map((t) => asModelTool(t, "eager")),
      ...metaTools.visible(deferred, new Set(ids)),
      ...mine,
      ...(listsActivated ? entriesOf(ids).map((t) => asModelTool(t, "activated")) : [])
    ]
  }
  const visible = Effect.flatMap(own, (mine) => Effect.sync(() => visibleNow(mine)))

  const callable = Effect.sync(() => {
    const { deferred, eager } = existing()
    const tools = Deferral.defers(disclosure, deferred.length)
      ? [
        ...eager.map((t) => asModelTool(t, "eager")),
        ...entriesOf(activation.valuesNow()).map((t) => asModelTool(t, "activated"))
      ]
      : [...eager, ...deferred].map((t) => asModelTool(t, "eager"))
    return tools.filter(permits)
  })

  const permits = (tool: Unit.ModelTool): boolean =>
    permission.allows({
      id: tool.entry?.id ?? tool.name,
      name: tool.name,
      declaredName: tool.entry?.name,
      source: tool.entry?.source ?? (tool.kind === "meta" ? "meta" : undefined)
    })

  const permit = (tool: Unit.ModelTool): Result.Result<Unit.ModelTool, Refused> =>
    permits(tool)
      ? Result.succeed(tool)
      : Result.fail(Messages.refused("tool", tool.name, "not-permitted", Messages.notPermittedHint(tool.name)))

  const metaNow = (name: string): Option.Option<Unit.ModelTool> => {
    const { deferred } = existing()
    return Deferral.defers(disclosure, deferred.length) ? metaTools.resolve(name, deferred) : Option.none()
  }

  /** What `resolve` comes to, computed in one synchronous step; `mine` are the unit's own tools. */
  const resolveNow = (raw: string, mine: ReadonlyArray<Unit.ModelTool>): Result.Result<Unit.ModelTool, Refused> => {
    const name = CatalogTool.stripFunctionsPrefix(raw)
    const ownTool = mine.find((t) => t.name === name)
    if (ownTool !== undefined) return permit(ownTool)
    const metaTool = metaNow(name)
    if (Option.isSome(metaTool)) return permit(metaTool.value)
    const tool = catalog.findByNameUnsafe(name)
    if (tool === undefined || !exists(tool)) return Result.fail(unknownNow(name, mine))
    if (tool.loading === "eager") return permit(asModelTool(tool, "eager"))
    const on = deferringNow()
    if (!on || activation.hasNow(tool.id)) {
      activation.touchNow(tool.id)
      return permit(asModelTool(tool, on ? "activated" : "eager"))
    }
    if (!permits(asModelTool(tool, "activated"))) {
      return Result.fail(Messages.refused("tool", tool.modelName, "not-permitted", Messages.notPermittedHint(name)))
    }
    return Result.fail(
      Messages.refused("tool", tool.modelName, "not-active", Messages.activationHint(tool.modelName, activationVia))
    )
  }
  const resolve = (raw: string): Effect.Effect<Unit.ModelTool, Refused> =>
    Effect.flatMap(own, (mine) => Effect.fromResult(resolveNow(raw, mine)))

  return {
    visible,
    resolve,
    search,
    browse,
    discover,
    activated: Effect.sync(() => entriesOf(activation.valuesNow())),
    callable,
    searchable,
    deferring,
    recordSuccessfulCall: foundBy.recordSuccessfulCall,
    metaNames: metaTools.names,
    unknown
  } satisfies ToolSide
}
