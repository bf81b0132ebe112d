/**
 * Learning from use: evidence that a query and a tool belong together. When a search in one
 * execution unit (a turn or a fork) returns a tool and the unit then calls that tool successfully,
 * the view records `(catalog, query, toolId)` here (`ToolView` does it after every successful call;
 * nothing else needs to). The catalog reads the evidence at each search and indexes each tool's
 * past queries as one more field of BM25F (`queries`, weighted as the tuning protocol chose), so a
 * request phrased like an earlier successful one finds the same tool sooner.
 *
 * The service is deliberately small — `record`, `forget`, `read` — so a database can back it:
 *
 * - evidence is kept per catalog and per tool, at most `Options.perTool` distinct queries per tool
 *   (the most recent; a repeated query moves to the end), each cut to `Options.maxQueryLength`
 *   characters, so no model can grow it without bound;
 * - `forget` runs when tools leave the catalog: a removed tool takes its evidence with it;
 * - `read` returns a `Snapshot` whose `version` changes with every write to that catalog; the
 *   catalog calls it once per search and re-indexes only the tools whose queries changed, so it
 *   must be cheap when nothing changed (the in-memory store reads a `Ref`).
 *
 * Feedback never outranks what the model asked for by name: `select:` is exact and unranked, and a
 * query equal to a tool's name puts that tool first whatever the evidence says.
 *
 * Without a layer, `SearchFeedback` records nothing (`none`); `layerMemory` keeps evidence in
 * memory for the life of the layer; `ToolSearchConfig.layerConfig` provides it unless
 * `TOOL_SEARCH_FEEDBACK=false`.
 *
 * @since 0.2.0
 */
import { Context, Effect, Layer, Ref } from "effect"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * One piece of evidence: `query`, searched in `catalog`, found `toolId`, which was then called
 * successfully in the same unit.
 *
 * @since 0.2.0
 * @category models
 */
export interface Evidence {
  readonly catalog: string
  readonly query: string
  readonly toolId: string
}

/**
 * What ranking reads: the past queries of every tool with evidence in one catalog, oldest first.
 *
 * @since 0.2.0
 * @category models
 */
export interface Snapshot {
  /** Changes with every write to the catalog's evidence; equal versions mean equal queries. */
  readonly version: number
  readonly queries: ReadonlyMap<string, ReadonlyArray<string>>
}

/**
 * The bounds of a store.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** Most distinct queries kept per tool; the oldest leaves first. */
  readonly perTool: number
  /** Longer queries are cut to this many characters. */
  readonly maxQueryLength: number
}

/**
 * 16 queries per tool, 300 characters each.
 *
 * @since 0.2.0
 * @category settings
 */
export const defaults: Options = { perTool: 16, maxQueryLength: 300 }

/**
 * The operations of a feedback store.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** Records one piece of evidence. */
  readonly record: (evidence: Evidence) => Effect.Effect<void>
  /** Forgets every piece of evidence of these tools (they left the catalog). */
  readonly forget: (catalog: string, toolIds: ReadonlyArray<string>) => Effect.Effect<void>
  /** The evidence of one catalog, as ranking reads it. */
  readonly read: (catalog: string) => Effect.Effect<Snapshot>
}

/**
 * The snapshot of a catalog without evidence.
 *
 * @since 0.2.0
 * @category constructors
 */
export const empty: Snapshot = { version: 0, queries: new Map() }

/**
 * A store that records nothing: what `SearchFeedback` is when no layer provides one.
 *
 * @since 0.2.0
 * @category constructors
 */
export const none: Service = {
  record: () => Effect.void,
  forget: () => Effect.void,
  read: () => Effect.succeed(empty)
}

// -----------------------------------------------------------------------------
// Service
// -----------------------------------------------------------------------------

/**
 * The feedback store of the catalogs in context; `none` unless a layer provides one.
 *
 * @since 0.2.0
 * @category models
 */
export const SearchFeedback = Context.Reference<Service>("@tool-search/core/SearchFeedback", {
  defaultValue: () => none
})

// -----------------------------------------------------------------------------
// In memory
// -----------------------------------------------------------------------------

interface CatalogEvidence {
  readonly version: number
  readonly queries: ReadonlyMap<string, ReadonlyArray<string>>
}

/**
 * An in-memory store: one `Ref` of every catalog's evidence, gone with the layer.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeMemory = (options: Partial<Options> = {}): Effect.Effect<Service> =>
  Effect.gen(function*() {
    const { maxQueryLength, perTool } = { ...defaults, ...options }
    // `clock` numbers the writes across catalogs, so a catalog's version is never reused
    const state = yield* Ref.make({ clock: 0, catalogs: new Map<string, CatalogEvidence>() })
    const update = (catalog: string, f: (queries: Map<string, ReadonlyArray<string>>) => boolean) =>
      Ref.update(state, ({ catalogs, clock }) => {
        const queries = new Map(catalogs.get(catalog)?.queries ?? [])
        if (!f(queries)) return { catalogs, clock }
        const next = new Map(catalogs)
        next.set(catalog, { version: clock + 1, queries })
        return { catalogs: next, clock: clock + 1 }
      })
    return {
      record: ({ catalog, query, toolId }) => {
        const text = query.trim().slice(0, maxQueryLength)
        if (text === "" || perTool <= 0) return Effect.void
        return update(catalog, (queries) => {
          const past = queries.get(toolId) ?? []
          if (past[past.length - 1] === text) return false
          queries.set(toolId, [...past.filter((q) => q !== text), text].slice(-perTool))
          return true
        })
      },
      forget: (catalog, toolIds) =>
        update(catalog, (queries) => {
          let changed = false
          for (const id of toolIds) changed = queries.delete(id) || changed
          return changed
        }),
      read: (catalog) => Effect.map(Ref.get(state), ({ catalogs }) => catalogs.get(catalog) ?? empty)
    } satisfies Service
  })

/**
 * Provides an in-memory store with the given bounds.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerMemory = (options: Partial<Options> = {}): Layer.Layer<never> =>
  Layer.effect(SearchFeedback, makeMemory(options))
