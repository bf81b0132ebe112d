/**
 * The hybrid index behind `Hybrid.layer`: BM25F and semantic scores fused, and the confidence rule
 * that answers a clear lexical ranking without embedding the query. Internal: tests and the
 * benchmark reach it directly (`@tool-search/core/internal/bench`); applications use
 * `Hybrid.layerWith`.
 *
 * @internal
 */
import { Effect } from "effect"
import type { EmbeddingModel } from "effect/ai"
import type { SearchIndex } from "../SearchStrategy.js"
import type { Options } from "../strategies/Hybrid.js"
import * as Bm25fIndex from "./bm25fIndex.js"
import * as SemanticIndex from "./semanticIndex.js"
import { byScore, TopK } from "./TopK.js"

/**
 * Whether a lexical ranking is clear enough to answer without embeddings: its best hit leads the
 * second by at least `margin` of its score (a single hit always does).
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
 * Fuses normalized lexical and semantic scores. With `keepAbove`, the lexical hits scoring at least
 * that share of the best lexical score come first, in their lexical order (each with its fused
 * score raised to stay above what follows), and the fusion orders only the rest.
 */
export const fuse = (
  lexical: ReadonlyArray<{ readonly id: string; readonly score: number }>,
  similarities: ReadonlyMap<string, number>,
  options: Pick<Options, "lexicalWeight" | "pool" | "keepAbove">,
  limit: number
) => {
  const w = options.lexicalWeight
  const best = lexical.reduce((m, h) => Math.max(m, h.score), 0)
  const keepAbove = options.keepAbove ?? 0
  // the lexical head: sure enough by its own scores that the semantic side only orders what follows
  const head = keepAbove > 0 && best > 0
    ? lexical.filter((h) => h.score >= keepAbove * best).sort(byScore).slice(0, limit)
    : []
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
  const top = new TopK(limit - head.length)
  const seen = new Set<string>(head.map((h) => h.id))
  for (const id of [...lexicalOf.keys(), ...ranked.map(([id]) => id)]) {
    if (seen.has(id)) continue
    seen.add(id)
    top.offer(id, w * (lexicalOf.get(id) ?? 0) + (1 - w) * semanticOf(id))
  }
  const rest = top.result()
  // the head's scores: its fused scores, each raised just above what follows it when lower
  const heads: Array<{ readonly id: string; readonly score: number }> = []
  let floor = rest[0]?.score ?? 0
  for (const { id } of [...head].reverse()) {
    floor = Math.max(w * (lexicalOf.get(id) ?? 0) + (1 - w) * semanticOf(id), floor + 1e-9)
    heads.push({ id, score: floor })
  }
  return [...heads.reverse(), ...rest]
}

/**
 * A new hybrid index over `model`.
 */
export const make = (model: EmbeddingModel.EmbeddingModel, options: Options): Effect.Effect<SearchIndex> =>
  Effect.gen(function*() {
    const lexical = Bm25fIndex.make(options.bm25f)
    const semantic = yield* SemanticIndex.make(model, options.semantic, "hybrid")
    return {
      add: (docs) => {
        lexical.add(docs)
        semantic.add(docs)
      },
      remove: (ids) => {
        lexical.remove(ids)
        semantic.remove(ids)
      },
      // combinators, not a generator: a generator function made per search costs V8 a new prototype
      search: (request) =>
        Effect.flatMap(
          lexical.search({ ...request, limit: Math.max(options.pool, request.limit) }),
          (hits) =>
            confident(hits, options.confidentMargin)
              ? Effect.succeed(hits.slice(0, request.limit))
              : Effect.map(
                semantic.similarities(request),
                (similarities) => fuse(hits, similarities, options, request.limit)
              )
        )
    } satisfies SearchIndex
  })
