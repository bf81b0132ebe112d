/**
 * Semantic search: tools and queries become vectors through an `EmbeddingModel` (`effect/ai`), and
 * tools rank by cosine similarity to the query. Any provider plugs in as an `EmbeddingModel` layer;
 * `OfflineEmbeddings.layer` is the default that needs no network and no key.
 *
 * The index stays synchronous for the catalog: `add` only records the tool's text and queues it;
 * the next `search` embeds what is queued (in batches, skipping texts found in the `VectorCache`),
 * then ranks. A query never sees a snapshot: a tool registered a moment ago is embedded by the
 * next search that runs.
 *
 * A failing model — it cannot load, the provider is down — fails the search with `SearchFailed`,
 * which the model and the operator see. It is never reported as "no results"; the queued tools
 * stay queued and the next search tries again.
 *
 * @since 0.1.0
 */
import type { Effect, Layer } from "effect"
import type { EmbeddingModel } from "effect/ai"
import type { SearchFailed } from "../Errors.js"
import * as EmbeddingStrategy from "../internal/embeddingStrategy.js"
import * as SemanticIndex from "../internal/semanticIndex.js"
import * as VectorCaches from "../internal/vectorCaches.js"
import type { SearchIndex, SearchRequest, SearchStrategy } from "../SearchStrategy.js"
import type * as VectorCache from "../VectorCache.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * How the semantic strategy embeds and caches.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Names the embedding model in cache keys: change it when the model changes. */
  readonly model: string
  /**
   * Where tool vectors are kept between searches and runs; when absent, the cache of `model` in
   * the `VectorCache.Store` in context.
   */
  readonly cache?: VectorCache.VectorCache
  /** How many tool texts one provider call embeds. */
  readonly batchSize: number
  /** Called while queued tools are embedded (done, total): long first runs can show progress. */
  readonly onProgress?: (done: number, total: number) => void
}

/**
 * No cache, batches of 64.
 *
 * @since 0.1.0
 * @category models
 */
export const defaults: Options = { model: "default", cache: VectorCaches.none, batchSize: 64 }

/**
 * The live semantic index: the `SearchIndex` operations plus raw similarities for fusion.
 *
 * @since 0.1.0
 * @category models
 */
export interface Index extends SearchIndex {
  /** Cosine similarity of every accepted tool to the query, after embedding what is queued. */
  readonly similarities: (
    request: Omit<SearchRequest, "limit">
  ) => Effect.Effect<ReadonlyMap<string, number>, SearchFailed>
}

// -----------------------------------------------------------------------------
// Layers
// -----------------------------------------------------------------------------

/**
 * The semantic strategy over the `EmbeddingModel` in context, with explicit options; without a
 * `cache`, its indexes use the model's cache in the `VectorCache.Store` of the layer's context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWith = (options: Options): Layer.Layer<SearchStrategy, never, EmbeddingModel.EmbeddingModel> =>
  EmbeddingStrategy.layer("semantic", (model) => SemanticIndex.make(model, options))

/**
 * The semantic strategy over the `EmbeddingModel` in context, without a vector cache.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<SearchStrategy, never, EmbeddingModel.EmbeddingModel> = layerWith(defaults)
