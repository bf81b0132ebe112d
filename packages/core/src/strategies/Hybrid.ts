/**
 * Hybrid search: BM25F and semantic similarity, each normalized to [0, 1] and fused by a weighted
 * sum. Lexical matching is precise on names and rare words; embeddings find tools described in
 * other words. Fusing scores (rather than ranks) keeps how sure each side is.
 *
 * For a query, BM25F scores are divided by the best BM25F score; cosine similarities are min-max
 * normalized over the `pool` most similar tools (tools below the pool get 0). The fused score is
 * `w · lexical + (1 − w) · semantic` over the union of both pools.
 *
 * Per-query confidence: when BM25F's best hit leads the second by at least `confidentMargin` of its
 * score, the lexical ranking is answered as is and the query is not embedded at all — a clear
 * lexical winner is where a weak embedding model can only do harm. `w` and the margin were chosen
 * leave one data set out so that the hybrid stays at or above BM25F on every development set
 * (`npm run bench -- --hybrid`, docs/search.md).
 *
 * Both indexes are live: `add` and `remove` update both; the semantic side embeds what is queued
 * at the next search. A failing embedding model fails the search with `SearchFailed`.
 *
 * @since 0.1.0
 */
import { Effect, type Layer } from "effect"
import type { EmbeddingModel } from "effect/ai"
import * as EmbeddingStrategy from "../internal/embeddingStrategy.js"
import { TopK } from "../internal/TopK.js"
import type { SearchIndex, SearchStrategy } from "../SearchStrategy.js"
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
  readonly bm25f: Bm25f.Parameters
  readonly semantic: Semantic.Options
}

/**
 * Lexical weight 0.9, tuned on development queries only (`node dist/bench/tune-hybrid.js`, see
 * docs/search.md); a pool of 50; default BM25F and semantic options.
 *
 * @since 0.1.0
 * @category models
 */
export const defaults: Options = {
  lexicalWeight: 0.9,
  pool: 50,
  bm25f: Bm25f.defaults,
  semantic: Semantic.defaults
}

/**
 * Whether a lexical ranking is clear enough to answer without embeddings: its best hit leads the
 * second by at least `margin` of its score (a single hit always does).
 *
 * @since 0.3.0
 * @category ranking
 */
export const confident = (
  lexical: ReadonlyArray<{ readonly score: number }>,
  margin: number | undefined
): boolean => {
  const first = lexical[0]?.score ?? 0
  if (margin === undefined || !(first > 0)) return false
  return (first - (lexical[1]?.score ?? 0)) / first >= margin
}

/**
 * Fuses normalized lexical and semantic scores.
 *
 * @since 0.1.0
 * @category ranking
 */
export const fuse = (
  lexical: ReadonlyArray<{ readonly id: string; readonly score: number }>,
  similarities: ReadonlyMap<string, number>,
  options: Pick<Options, "lexicalWeight" | "pool">,
  limit: number
) => {
  const w = options.lexicalWeight
  const best = lexical.reduce((m, h) => Math.max(m, h.score), 0)
  const ranked = [...similarities].sort((a, b) => b[1] - a[1]).slice(0, options.pool)
  const max = ranked[0]?.[1] ?? 0
  const min = ranked[ranked.length - 1]?.[1] ?? 0
  const span = max - min
  const semanticOf = (id: string): number => {
    const c = similarities.get(id)
    if (c === undefined || c <= min) return 0
    return span > 0 ? (c - min) / span : 1
  }
  const lexicalOf = new Map(lexical.map((h) => [h.id, best > 0 ? h.score / best : 0]))
  const top = new TopK(limit)
  const seen = new Set<string>()
  for (const id of [...lexicalOf.keys(), ...ranked.map(([id]) => id)]) {
    if (seen.has(id)) continue
    seen.add(id)
    top.offer(id, w * (lexicalOf.get(id) ?? 0) + (1 - w) * semanticOf(id))
  }
  return top.result()
}

/**
 * A new hybrid index over `model`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeIndexWith = (model: EmbeddingModel.EmbeddingModel, options: Options): Effect.Effect<SearchIndex> =>
  Effect.gen(function*() {
    const lexical = Bm25f.makeIndexWith(options.bm25f)
    const semantic = yield* Semantic.makeIndexWith(model, options.semantic, "hybrid")
    return {
      add: (docs) => {
        lexical.add(docs)
        semantic.add(docs)
      },
      remove: (ids) => {
        lexical.remove(ids)
        semantic.remove(ids)
      },
      search: (request) =>
        Effect.gen(function*() {
          const hits = yield* lexical.search({ ...request, limit: Math.max(options.pool, request.limit) })
          if (confident(hits, options.confidentMargin)) return hits.slice(0, request.limit)
          const similarities = yield* semantic.similarities(request)
          return fuse(hits, similarities, options, request.limit)
        })
    } satisfies SearchIndex
  })

/**
 * The hybrid strategy over the `EmbeddingModel` in context, with explicit options.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWith = (options: Options): Layer.Layer<SearchStrategy, never, EmbeddingModel.EmbeddingModel> =>
  EmbeddingStrategy.layer("hybrid", (model) => makeIndexWith(model, options))

/**
 * The hybrid strategy with the tuned defaults.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<SearchStrategy, never, EmbeddingModel.EmbeddingModel> = layerWith(defaults)
