/**
 * What the model sees in one execution unit (a turn or a fork): the catalog seen through this
 * unit's `Activation`, its `Visibility`, `Permission` and `Disclosure` settings.
 *
 * The view is read-only with respect to the catalog — its type has no way to register or
 * unregister a tool — and `searchAndActivate` is the only place where anything becomes active.
 * `visible` is derived on every read (eager tools, the meta tools of the mode, then activated tools
 * in activation order, a stable order that keeps provider prompt caches warm), so tools activated
 * in one model call are in the next request, and tools registered meanwhile are found by the next
 * search.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option, Ref, Schema } from "effect"
import type { JsonSchema } from "effect"
import { Activation } from "./Activation.js"
import { type CallContext, type Output, stripFunctionsPrefix, ToolExecutionError } from "./CatalogTool.js"
import * as Disclosure from "./Disclosure.js"
import * as SearchAnswer from "./internal/searchAnswer.js"
import { cachedByVersion } from "./internal/versioned.js"
import * as MetaTools from "./MetaTools.js"
import * as Permission from "./Permission.js"
import * as Query from "./Query.js"
import { SearchFeedback } from "./SearchFeedback.js"
import type { SearchFailed } from "./SearchStrategy.js"
import { type Entry, type Match, ToolCatalog } from "./ToolCatalog.js"
import * as Visibility from "./Visibility.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/** A tool as sent to the model, and how to run it. */
export interface ModelTool {
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchema.JsonSchema
  /** `meta` for the search tools, `eager` for always-visible tools, `activated` for found ones. */
  readonly kind: "meta" | "eager" | "activated"
  /** The catalog tool behind it; absent for meta tools. */
  readonly tool?: Entry
  readonly run: (params: unknown, context: CallContext) => Effect.Effect<MetaOutput, ToolExecutionError>
}

/** A tool result, with what a meta tool found and activated (for progress events). */
export interface MetaOutput extends Output {
  /** Model names the call found (meta tools only). */
  readonly found?: ReadonlyArray<string>
  /** Model names the call activated that were not active before (meta tools only). */
  readonly activated?: ReadonlyArray<string>
}

/** The outcome of `searchAndActivate`. */
export interface SearchResult {
  readonly query: Query.Query
  readonly matches: ReadonlyArray<Match>
  /** Ids that this search activated and that were not active before. */
  readonly newlyActivated: ReadonlyArray<string>
  /** Names of a `select:` that were not loaded, and why (empty for other queries). */
  readonly notLoaded: ReadonlyArray<MetaTools.NotLoaded>
  /** Hits left out as weak matches ("no good match": `Disclosure.minScore`), best first. */
  readonly weak: ReadonlyArray<Match>
}

/** A deferred tool was called before being activated. The message tells the model the fixing call. */
export class ToolNotActive extends Schema.TaggedError<ToolNotActive>()("ToolNotActive", {
  name: Schema.String,
  hint: Schema.String
}) {
  override get message(): string {
    return this.hint
  }
}

/** No tool of that name exists for this agent. Carries up to three "did you mean" names. */
export class UnknownTool extends Schema.TaggedError<UnknownTool>()("UnknownTool", {
  name: Schema.String,
  suggestions: Schema.Array(Schema.String),
  hint: Schema.String
}) {
  override get message(): string {
    return this.hint
  }
}

/** Why `resolve` refused a name. */
export type ResolveError = ToolNotActive | UnknownTool | Permission.ToolNotPermitted

// -----------------------------------------------------------------------------
// Service
// -----------------------------------------------------------------------------

/** The view of one execution unit. */
export class ToolView extends Context.Service<ToolView, {
  /** The tools for the next model request, in a stable order. */
  readonly visible: Effect.Effect<ReadonlyArray<ModelTool>>
  /** Parses and runs a query over the searchable deferred tools, and activates the hits. */
  readonly searchAndActivate: (
    query: string | Query.Query,
    maxResults?: number
  ) => Effect.Effect<SearchResult, Query.InvalidQuery | SearchFailed>
  /** The discovery tool's operation: activates the named tools, reports unknown names. */
  readonly discover: (names: ReadonlyArray<string>) => Effect.Effect<MetaTools.DiscoveryAnswer, SearchFailed>
  /** Ranks candidates without activating them (`search_tools`). */
  readonly browse: (
    query: string,
    options?: { readonly maxResults?: number; readonly category?: string }
  ) => Effect.Effect<ReadonlyArray<Match>, Query.InvalidQuery | SearchFailed>
  /**
   * The feedback hook: call it after a successful call of a catalog tool. When a ranked search of
   * this unit (`ToolSearch` keywords, `search_tools`) returned the tool, the pair (that query, the
   * tool) is recorded in `SearchFeedback`. Tools run through `visible` or `resolve` call it
   * themselves; an executor that runs handlers some other way calls it.
   */
  readonly recordSuccessfulCall: (toolId: string) => Effect.Effect<void>
  /** The tool to run for a name the model called, or why it may not run. */
  readonly resolve: (name: string) => Effect.Effect<ModelTool, ResolveError>
  /** Activated tools, in activation order. */
  readonly activated: Effect.Effect<ReadonlyArray<Entry>>
  /** Deferred tools a search may return. */
  readonly searchable: Effect.Effect<ReadonlyArray<Entry>>
  /** The disclosure settings this view applies. */
  readonly disclosure: Disclosure.Options
  /** The visibility policy this view applies (tables of contents read it). */
  readonly visibility: Visibility.Policy
}>()("@tool-search/core/ToolView") {
  /** A view over the catalog and the unit's activation in context. */
  static readonly layer: Layer.Layer<ToolView, never, ToolCatalog | Activation> = Layer.effect(
    ToolView,
    Effect.suspend(() => make)
  )
  /**
   * A view with its own fresh activation: provide it to one turn or fork, and the activation lives
   * exactly as long as that effect.
   */
  static readonly unit: Layer.Layer<ToolView, never, ToolCatalog> = ToolView.layer.pipe(
    Layer.provide(Activation.layer),
    Layer.fresh
  )
}

/** Runs `effect` as one execution unit: a fresh activation, gone when `effect` ends. */
export const withUnit = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, Exclude<R, ToolView> | ToolCatalog> => Effect.provide(effect, ToolView.unit)

// -----------------------------------------------------------------------------
// Implementation
// -----------------------------------------------------------------------------

/** Builds a view from the catalog, activation and policies in context. */
export const make: Effect.Effect<ToolView["Service"], never, ToolCatalog | Activation> = Effect.gen(function*() {
  const catalog = yield* ToolCatalog
  const activation = yield* Activation
  const disclosure = yield* Disclosure.Disclosure
  const visibility = yield* Visibility.Visibility
  const permission = yield* Permission.Permission
  const feedback = yield* SearchFeedback
  // This unit's ranked searches: the last query that returned each tool (evidence once it is called).
  const foundBy = yield* Ref.make(new Map<string, string>())

  /** Remembers which query found these tools, for `recordSuccessfulCall`. */
  const rememberFound = (query: Query.Query, matches: ReadonlyArray<Match>) => {
    if (query._tag === "Select" || matches.length === 0) return Effect.void
    const text = query._tag === "Required" ? [...query.required, query.text].join(" ").trim() : query.text
    return Ref.update(foundBy, (found) => {
      const next = new Map(found)
      for (const m of matches) next.set(m.tool.id, text)
      return next
    })
  }

  const recordSuccessfulCall = (toolId: string) =>
    Effect.flatMap(Ref.get(foundBy), (found) => {
      const query = found.get(toolId)
      return query === undefined ? Effect.void : feedback.record({ catalog: catalog.name, query, toolId })
    })

  const exists = (t: Entry) => visibility.includes(t)
  const isSearchable = (t: Entry) => t.loading === "deferred" && exists(t)
  const activationVia = disclosure.mode === "catalog" ? "discovery" as const : "search" as const
  const searchToolName = disclosure.mode === "catalog" ? Disclosure.DISCOVER_TOOLS : Disclosure.TOOL_SEARCH

  /** The catalog entries of activated ids that still exist for this agent, in activation order. */
  const entriesOf = (ids: ReadonlyArray<string>): ReadonlyArray<Entry> =>
    ids.flatMap((id) => {
      const t = catalog.unsafe.get(id)
      return t !== undefined && isSearchable(t) ? [t] : []
    })

  const activatedEntries = Effect.map(activation.ids, entriesOf)

  // Recomputed only when the catalog changes: staged and catalog modes read it on every request.
  const searchable = cachedByVersion(catalog.unsafe.version, Effect.map(catalog.deferred, (ts) => ts.filter(exists)))

  const searchAndActivate = (input: string | Query.Query, maxResults?: number) =>
    Effect.gen(function*() {
      const query = typeof input === "string" ? yield* Effect.fromResult(Query.parse(input)) : input
      // explicit names are all honoured up to the hard cap, whatever max_results says
      const limit = query._tag === "Select"
        ? Math.max(maxResults ?? 0, disclosure.maxResultsLimit)
        : maxResults ?? disclosure.defaultMaxResults
      const found = yield* catalog.search(query, { limit, candidates: isSearchable })
      const weak = query._tag === "Select" ? [] : SearchAnswer.weak(found, disclosure)
      const matches = weak.length === 0 ? found : found.filter((m) => !weak.includes(m))
      yield* rememberFound(query, matches)
      const newlyActivated = yield* activation.activate(matches.map((m) => m.tool.id))
      const notLoaded = query._tag === "Select"
        ? SearchAnswer.notLoaded(query.names, matches, (name) => {
          const tool = catalog.unsafe.findByName(name)
          return tool !== undefined && exists(tool) ? tool : undefined
        })
        : []
      return { query, matches, newlyActivated, notLoaded, weak } satisfies SearchResult
    }).pipe(Effect.withSpan("tool-search.search", undefined, { captureStackTrace: false }))

  const discover = (names: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const errors: Array<{ name: string; error: string }> = []
      const eager: Array<Entry> = []
      const deferred: Array<string> = []
      for (const name of names) {
        const tool = catalog.unsafe.findByName(name)
        if (tool === undefined || !exists(tool)) errors.push({ name, error: (yield* unknown(name)).hint })
        else if (tool.loading === "eager") eager.push(tool) // visible already: its schema, nothing to activate
        else deferred.push(tool.modelName)
      }
      const found = deferred.length === 0
        ? []
        : (yield* searchAndActivate(Query.select(deferred), deferred.length).pipe(
          Effect.catchTag("InvalidQuery", () => Effect.succeed({ matches: [] as ReadonlyArray<Match> }))
        )).matches.map((m) => m.tool)
      return { tools: [...eager, ...found].map(MetaTools.definitionOf), errors }
    })

  const browse = (input: string, options: { readonly maxResults?: number; readonly category?: string } = {}) =>
    Effect.gen(function*() {
      const query = yield* Effect.fromResult(Query.parse(input))
      // A category the model spelled differently ("Web", " web ") is the tools' own category; one
      // that no searchable tool has would only cost a second search before the catalog falls back.
      const category = options.category === undefined ? undefined : yield* canonicalCategory(options.category)
      const matches = yield* catalog.search(query, {
        limit: options.maxResults ?? disclosure.defaultMaxResults,
        candidates: isSearchable,
        ...(category === undefined ? {} : { category })
      })
      yield* rememberFound(query, matches)
      return matches
    })

  /** The category of a searchable tool equal to `requested` up to case and spacing. */
  const canonicalCategory = (requested: string) =>
    Effect.map(searchable, (tools) => {
      const wanted = normalizeCategory(requested)
      return tools.find((t) => t.category !== undefined && normalizeCategory(t.category) === wanted)?.category
    })

  /** Up to three names close to `name` among the tools this agent may use. */
  const unknown = (name: string) =>
    Effect.map(catalog.all, (all) => {
      const names = [...metaNames(), ...all.filter(exists).map((t) => t.modelName)]
      const suggestions = suggest(name, names)
      return new UnknownTool({ name, suggestions, hint: MetaTools.unknownHint(name, suggestions, searchToolName) })
    })

  // ---------------------------------------------------------------------------
  // Meta tools, bound to this view
  // ---------------------------------------------------------------------------

  const limit = disclosure.maxResultsLimit
  const defaultMax = disclosure.defaultMaxResults
  const failure = (message: string): MetaOutput => ({ isFailure: true, result: message })

  const toolSearch: ModelTool = {
    name: Disclosure.TOOL_SEARCH,
    description: MetaTools.toolSearchDescription(limit, defaultMax, MetaTools.queryStyleOf(catalog.strategy)),
    parameters: MetaTools.toolSearchParameters(limit, defaultMax),
    kind: "meta",
    run: (params) => {
      const input = Schema.decodeUnknownOption(MetaTools.ToolSearchInput)(params)
      const query = Option.isSome(input) ? input.value.query : undefined
      if (typeof query !== "string" || query.trim() === "") return Effect.succeed(failure("Query cannot be empty"))
      const max = Disclosure.clampMaxResults(Option.isSome(input) ? input.value.max_results : undefined, disclosure)
      return searchAndActivate(query, max).pipe(
        Effect.map((r): MetaOutput => {
          const tools = r.matches.map((m) => m.tool)
          const added = new Set(r.newlyActivated)
          const note = r.notLoaded.length > 0
            ? MetaTools.notLoadedNote(r.notLoaded, limit)
            : r.weak.length > 0
            ? MetaTools.weakMatchesNote(tools.length, r.weak.map((m) => m.tool.modelName))
            : undefined
          return {
            isFailure: false,
            result: MetaTools.renderFunctions(tools, note),
            found: tools.map((t) => t.modelName),
            activated: tools.filter((t) => added.has(t.id)).map((t) => t.modelName)
          }
        }),
        Effect.catch((e) => Effect.succeed(failure(e.message)))
      )
    }
  }

  const searchTools: ModelTool = {
    name: Disclosure.SEARCH_TOOLS,
    description: MetaTools.searchToolsDescription(limit, defaultMax),
    parameters: MetaTools.searchToolsParameters(limit, defaultMax),
    kind: "meta",
    run: (params) => {
      const input = Schema.decodeUnknownOption(MetaTools.SearchToolsInput)(params)
      const value = Option.getOrUndefined(input)
      const query = value?.query
      if (typeof query !== "string" || query.trim() === "") return Effect.succeed(failure("Query cannot be empty"))
      const category = typeof value?.category === "string" && value.category.trim() !== "" ? value.category : undefined
      return browse(query, {
        maxResults: Disclosure.clampMaxResults(value?.max_results, disclosure),
        ...(category === undefined ? {} : { category })
      }).pipe(
        Effect.map((matches): MetaOutput => {
          const tools = matches.map((m) => m.tool)
          // the filter matched nothing and the search fell back to every category: say so
          const fellBack = category !== undefined && tools.length > 0 &&
            !tools.some((t) =>
              t.category !== undefined && normalizeCategory(t.category) === normalizeCategory(category)
            )
          return {
            isFailure: false,
            result: MetaTools.renderCandidates(tools, fellBack ? MetaTools.categoryFallbackNote(category) : undefined),
            found: tools.map((t) => t.modelName),
            activated: []
          }
        }),
        Effect.catch((e) => Effect.succeed(failure(e.message)))
      )
    }
  }

  const discoveryTool = (deferred: ReadonlyArray<Entry>): ModelTool => ({
    name: Disclosure.DISCOVER_TOOLS,
    description: MetaTools.discoveryDescription(deferred, disclosure.descriptionDetail),
    parameters: MetaTools.discoveryParameters,
    kind: "meta",
    run: (params) => {
      const input = Schema.decodeUnknownOption(MetaTools.DiscoveryInput)(params)
      if (Option.isNone(input)) {
        return Effect.succeed(failure(`${Disclosure.DISCOVER_TOOLS} needs {"toolNames": ["name", ...]}`))
      }
      return Effect.zip(activation.ids, discover(input.value.toolNames)).pipe(
        Effect.flatMap(([before, answer]) =>
          Effect.map(activation.ids, (after): MetaOutput => {
            const was = new Set(before)
            return {
              isFailure: false,
              result: answer,
              found: answer.tools.map((t) => t.name),
              activated: after.filter((id) => !was.has(id)).flatMap((id) => catalog.unsafe.get(id)?.modelName ?? [])
            }
          })
        ),
        Effect.catch((e) => Effect.succeed(failure(e.message)))
      )
    }
  })

  const metaNames = (): ReadonlyArray<string> =>
    disclosure.mode === "catalog"
      ? [Disclosure.DISCOVER_TOOLS]
      : disclosure.mode === "staged" && disclosure.searchTools !== false
      ? [Disclosure.SEARCH_TOOLS, Disclosure.TOOL_SEARCH]
      : [Disclosure.TOOL_SEARCH]

  /** The meta tools sent in the next request. */
  const visibleMeta = (deferred: ReadonlyArray<Entry>, activeIds: ReadonlySet<string>): ReadonlyArray<ModelTool> => {
    switch (disclosure.mode) {
      case "search":
        return [toolSearch]
      case "staged":
        return Disclosure.offersSearchTools(disclosure, deferred.length) ? [searchTools, toolSearch] : [toolSearch]
      case "catalog":
        // absent when nothing is deferred; leaves the list once everything was discovered
        return deferred.some((t) => !activeIds.has(t.id)) ? [discoveryTool(deferred)] : []
    }
  }

  const runCatalogTool = (tool: Entry) => (params: unknown, context: CallContext) =>
    tool.handler === undefined
      ? Effect.fail(
        new ToolExecutionError({ tool: tool.modelName, reason: "this tool has no handler in this process" })
      )
      : Effect.tap(
        tool.handler(params, context),
        (output) => output.isFailure ? Effect.void : recordSuccessfulCall(tool.id)
      )

  const asModelTool = (tool: Entry, kind: "eager" | "activated"): ModelTool => ({
    name: tool.modelName,
    description: tool.description,
    parameters: tool.parameters,
    kind,
    tool,
    run: runCatalogTool(tool)
  })

  const visible = Effect.gen(function*() {
    const eager = (yield* catalog.eager).filter(exists)
    const ids = yield* activation.ids
    const active = entriesOf(ids)
    const meta = visibleMeta(disclosure.mode === "search" ? [] : yield* searchable, new Set(ids))
    return [
      ...eager.map((t) => asModelTool(t, "eager")),
      ...meta,
      ...active.map((t) => asModelTool(t, "activated"))
    ]
  })

  const resolveMeta = (name: string): ModelTool | undefined => {
    if (!metaNames().includes(name)) return undefined
    if (name === Disclosure.TOOL_SEARCH) return toolSearch
    if (name === Disclosure.SEARCH_TOOLS) return searchTools
    return undefined
  }

  const permit = (tool: ModelTool): Effect.Effect<ModelTool, Permission.ToolNotPermitted> =>
    permission.allows({
        id: tool.tool?.id ?? tool.name,
        name: tool.name,
        declaredName: tool.tool?.name,
        source: tool.tool?.source ?? (tool.kind === "meta" ? "meta" : undefined)
      })
      ? Effect.succeed(tool)
      : Effect.fail(new Permission.ToolNotPermitted({ name: tool.name }))

  const resolve = (raw: string): Effect.Effect<ModelTool, ResolveError> =>
    Effect.gen(function*() {
      const name = stripFunctionsPrefix(raw)
      if (name === Disclosure.DISCOVER_TOOLS && disclosure.mode === "catalog") {
        return yield* permit(discoveryTool(yield* searchable))
      }
      const meta = resolveMeta(name)
      if (meta !== undefined) return yield* permit(meta)
      const tool = catalog.unsafe.findByName(name)
      if (tool === undefined || !exists(tool)) return yield* (yield* unknown(name))
      if (!permission.allows({ id: tool.id, name: tool.modelName, declaredName: tool.name, source: tool.source })) {
        return yield* new Permission.ToolNotPermitted({ name: tool.modelName })
      }
      if (tool.loading === "eager") return asModelTool(tool, "eager")
      if (yield* activation.has(tool.id)) return asModelTool(tool, "activated")
      return yield* new ToolNotActive({
        name: tool.modelName,
        hint: MetaTools.activationHint(tool.modelName, activationVia)
      })
    })

  return ToolView.of({
    visible,
    searchAndActivate,
    discover,
    browse,
    recordSuccessfulCall,
    resolve,
    activated: activatedEntries,
    searchable,
    disclosure,
    visibility
  })
})

// -----------------------------------------------------------------------------
// Categories
// -----------------------------------------------------------------------------

/** A category as compared with what a model typed: case and spacing do not count. */
const normalizeCategory = (category: string): string => category.trim().replace(/\s+/g, " ").toLowerCase()

// -----------------------------------------------------------------------------
// Suggestions
// -----------------------------------------------------------------------------

/** Up to three names close to `name`: containment first, then small edit distances. */
export const suggest = (name: string, names: ReadonlyArray<string>): ReadonlyArray<string> => {
  const target = name.toLowerCase()
  const budget = Math.max(2, Math.floor(target.length / 3))
  const scored: Array<readonly [string, number]> = []
  for (const candidate of new Set(names)) {
    const lower = candidate.toLowerCase()
    if (lower === target) continue
    const contained = target.length >= 3 && (lower.includes(target) || target.includes(lower))
    const distance = contained ? 0 : editDistance(target, lower, budget)
    if (contained || distance <= budget) {
      scored.push([candidate, contained ? Math.abs(lower.length - target.length) / 100 : distance])
    }
  }
  scored.sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]))
  return scored.slice(0, 3).map(([n]) => n)
}

/** Levenshtein distance, giving up (returning `budget + 1`) once it exceeds `budget`. */
const editDistance = (a: string, b: string, budget: number): number => {
  if (Math.abs(a.length - b.length) > budget) return budget + 1
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    let best = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      const value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost)
      current.push(value)
      best = Math.min(best, value)
    }
    if (best > budget) return budget + 1
    previous = current
  }
  return previous[b.length] ?? budget + 1
}
