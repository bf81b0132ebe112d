/**
 * Hybrid search: BM25F and semantic similarity, each normalized to [0, 1] and fused by a weighted
 * sum. Lexical matching is precise on names and rare words; embeddings find tools described in
 * other words. Fusing scores (rather than ranks) keeps how sure each side is.
 *
 * For a query, BM25F scores are divided by the best BM25F score; cosine similarities are min-max
 * normalized over the `pool` most similar tools (tools below the pool get 0). The fused score is
 * `w · lexical + (1 − w) · semantic` over the union of both pools.
 *
 * The lexical head (`keepAbove`): BM25F hits scoring at least that share of the best BM25F score
 * keep their lexical order at the top, and the fusion orders only what follows — the embedding
 * model adds the tools BM25F ranks weakly or misses, and never reorders the ones it is sure of.
 *
 * Per-query confidence: when BM25F's best hit leads the second by at least `confidentMargin` of its
 * score, the lexical ranking is answered as is and the query is not embedded at all — a clear
 * lexical winner is where a weak embedding model can only do harm. `w`, the head and the margin
 * were chosen on the five development sets by the tuning protocol's rule, at or above BM25F on
 * every one (`npm run bench -- --hybrid`, docs/search.md, which also shows where that choice does
 * not hold leave one set out).
 *
 * Both indexes are live: `add` and `remove` update both; the semantic side embeds what is queued
 * at the next search. A failing embedding model fails the search with `SearchFailed`.
 *
 * @since 0.1.0
 */
import type { Layer } from "effect"
import type { EmbeddingModel } from "effect/ai"
import * as EmbeddingStrategy from "../internal/embeddingStrategy.js"
import * as HybridIndex from "../internal/hybridIndex.js"
import type { SearchStrategy } from "../SearchStrategy.js"
import * as Bm25f from "./Bm25f.js"
import * as Semantic from "./Semantic.js"

/**
 * How the two rankings are fused.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Weight of the lexical (BM25F) score; the semantic score gets the rest. */
  readonly lexicalWeight: number
  /** How many of the best tools of each side take part in the fusion. */
  readonly pool: number
  /**
   * The lexical ranking is kept as is (no embedding) when its best hit leads the second by at least
   * this share of its score; above 1, never.
   */
  readonly confidentMargin?: number | undefined
  /**
   * BM25F hits scoring at least this share of the best BM25F score keep their lexical order at the
   * top; the fusion orders only the rest (absent or 0: everything is fused).
   */
  readonly keepAbove?: number | undefined
  readonly bm25f: Bm25f.Parameters
  readonly semantic: Semantic.Options
}

/**
 * Lexical weight 0.7, a lexical head of the hits scoring at least half the best BM25F score, and no
 * confidence margin (always fused), chosen on the five development sets by the protocol's rule, at
 * or above BM25F on every one (`npm run bench -- --hybrid`, docs/search.md); a pool of 50; default
 * BM25F and semantic options.
 *
 * @since 0.1.0
 * @category models
 */
export const defaults: Options = {
  lexicalWeight: 0.7,
  keepAbove: 0.5,
  pool: 50,
  bm25f: Bm25f.defaults,
  semantic: Semantic.defaults
}

/**
 * The hybrid strategy over the `EmbeddingModel` in context, with explicit options.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWith = (options: Options): Layer.Layer<SearchStrategy, never, EmbeddingModel.EmbeddingModel> =>
  EmbeddingStrategy.layer("hybrid", (model) => HybridIndex.make(model, options))

/**
 * The hybrid strategy with the tuned defaults.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<SearchStrategy, never, EmbeddingModel.EmbeddingModel> = layerWith(defaults)
