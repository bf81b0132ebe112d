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
import { Context, Effect, Layer, Option, Schema } from "effect"
import type { JsonSchema } from "effect"
import { Activation } from "./Activation.js"
import { type CallContext, type Output, stripFunctionsPrefix, ToolExecutionError } from "./CatalogTool.js"
import * as Disclosure from "./Disclosure.js"
import * as FoundBy from "./internal/foundBy.js"
import * as MetaToolkit from "./internal/metaToolkit.js"
import * as SearchAnswer from "./internal/searchAnswer.js"
import * as Suggest from "./internal/suggest.js"
import { cachedByVersion } from "./internal/versioned.js"
import * as MetaTools from "./MetaTools.js"
import * as Permission from "./Permission.js"
import * as Query from "./Query.js"
import type { SearchFailed } from "./SearchStrategy.js"
import { type Entry, type Match, ToolCatalog } from "./ToolCatalog.js"
import * as Visibility from "./Visibility.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * A tool as sent to the model, and how to run it.
 *
 * @since 0.1.0
 * @category models
 */
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

/**
 * A tool result, with what a meta tool found and activated (for progress events).
 *
 * @since 0.1.0
 * @category models
 */
export interface MetaOutput extends Output {
  /** Model names the call found (meta tools only). */
  readonly found?: ReadonlyArray<string>
  /** Model names the call activated that were not active before (meta tools only). */
  readonly activated?: ReadonlyArray<string>
}

/**
 * The outcome of `searchAndActivate`.
 *
 * @since 0.1.0
 * @category models
 */
export interface SearchResult {
  readonly query: Query.Query
  readonly matches: ReadonlyArray<Match>
  /** Ids that this search activated and that were not active before. */
  readonly newlyActivated: ReadonlyArray<string>
  /** Names of a `select:` that were not loaded, and why (empty for other queries). */
  readonly notLoaded: ReadonlyArray<MetaTools.NotLoaded>
  /** Hits left out as weak matches ("no good match": `Disclosure.weakHits`), best first. */
  readonly weak: ReadonlyArray<Match>
}

/**
 * A deferred tool was called before being activated. The message tells the model the fixing call.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolNotActive extends Schema.TaggedError<ToolNotActive>()("ToolNotActive", {
  name: Schema.String,
  hint: Schema.String
}) {
  override get message(): string {
    return this.hint
  }
}

/**
 * No tool of that name exists for this agent. Carries up to three "did you mean" names.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnknownTool extends Schema.TaggedError<UnknownTool>()("UnknownTool", {
  name: Schema.String,
  suggestions: Schema.Array(Schema.String),
  hint: Schema.String
}) {
  override get message(): string {
    return this.hint
  }
}

/**
 * Why `resolve` refused a name.
 *
 * @since 0.1.0
 * @category errors
 */
export type ResolveError = ToolNotActive | UnknownTool | Permission.ToolNotPermitted

/**
 * The operations of one unit's view. It has no way to register or unregister a tool.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
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
  readonly visibility: Visibility.Visibility
}

// -----------------------------------------------------------------------------
// Implementation
// -----------------------------------------------------------------------------

/**
 * Builds a view from the catalog, activation and policies in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Service, never, ToolCatalog | Activation> = Effect.gen(function*() {
  const catalog = yield* ToolCatalog
  const activation = yield* Activation
  const disclosure = yield* Disclosure.Disclosure
  const visibility = yield* Visibility.Visibility
  const permission = yield* Permission.Permission
  // This unit's ranked searches, turned into feedback evidence when a tool they found is called.
  const foundBy = yield* FoundBy.make(catalog.name)

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
      const weak = query._tag === "Select" ? [] : Disclosure.weakHits(found, disclosure)
      const matches = weak.length === 0 ? found : found.filter((m) => !weak.includes(m))
      yield* foundBy.remember(query, matches)
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
      yield* foundBy.remember(query, matches)
      return matches
    })

  /** The category of a searchable tool equal to `requested` up to case and spacing. */
  const canonicalCategory = (requested: string) =>
    Effect.map(searchable, (tools) => {
      const wanted = MetaToolkit.normalizeCategory(requested)
      return tools.find((t) => t.category !== undefined && MetaToolkit.normalizeCategory(t.category) === wanted)
        ?.category
    })

  /** Up to three names close to `name` among the tools this agent may use. */
  const unknown = (name: string) =>
    Effect.map(catalog.all, (all) => {
      const names = [...meta.names, ...all.filter(exists).map((t) => t.modelName)]
      const suggestions = Suggest.suggest(name, names)
      return new UnknownTool({ name, suggestions, hint: MetaTools.unknownHint(name, suggestions, searchToolName) })
    })

  const meta = MetaToolkit.make(disclosure, catalog.strategy, {
    searchAndActivate,
    browse,
    discover,
    searchable,
    activated: activation.ids,
    modelNameOf: (id) => catalog.unsafe.get(id)?.modelName
  })

  const runCatalogTool = (tool: Entry) => (params: unknown, context: CallContext) =>
    tool.handler === undefined
      ? Effect.fail(
        new ToolExecutionError({ tool: tool.modelName, reason: "this tool has no handler in this process" })
      )
      : Effect.tap(
        tool.handler(params, context),
        (output) => output.isFailure ? Effect.void : foundBy.recordSuccessfulCall(tool.id)
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
    const metaTools = meta.visible(disclosure.mode === "search" ? [] : yield* searchable, new Set(ids))
    return [
      ...eager.map((t) => asModelTool(t, "eager")),
      ...metaTools,
      ...active.map((t) => asModelTool(t, "activated"))
    ]
  })

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
      const metaTool = yield* meta.resolve(name)
      if (Option.isSome(metaTool)) return yield* permit(metaTool.value)
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

  return {
    visible,
    searchAndActivate,
    discover,
    browse,
    recordSuccessfulCall: foundBy.recordSuccessfulCall,
    resolve,
    activated: activatedEntries,
    searchable,
    disclosure,
    visibility
  }
})

// -----------------------------------------------------------------------------
// Service
// -----------------------------------------------------------------------------

/**
 * The view of one execution unit.
 *
 * @since 0.1.0
 * @category services
 */
export class ToolView extends Context.Service<ToolView, Service>()("@tool-search/core/ToolView") {
  /** A view over the catalog and the unit's activation in context. */
  static readonly layer: Layer.Layer<ToolView, never, ToolCatalog | Activation> = Layer.effect(ToolView, make)
  /**
   * A view with its own fresh activation: provide it to one turn or fork, and the activation lives
   * exactly as long as that effect.
   */
  static readonly unit: Layer.Layer<ToolView, never, ToolCatalog> = ToolView.layer.pipe(
    Layer.provide(Activation.layer),
    Layer.fresh
  )
}

/**
 * Runs `effect` as one execution unit: a fresh activation, gone when `effect` ends.
 *
 * @since 0.1.0
 * @category constructors
 */
export const withUnit = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, Exclude<R, ToolView> | ToolCatalog> => Effect.provide(effect, ToolView.unit)

/**
 * Up to three names close to `name`: containment first, then small edit distances.
 *
 * @deprecated Kept for `@tool-search/mcp`'s config file checks; the view's own suggestions are in
 * `UnknownTool.suggestions`.
 * @since 0.1.0
 * @category suggestions
 */
export const suggest: (name: string, names: ReadonlyArray<string>) => ReadonlyArray<string> = Suggest.suggest
