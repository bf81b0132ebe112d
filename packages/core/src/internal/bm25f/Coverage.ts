/**
 * Name coverage, BM25F's addition for names: `λ · min(hits, length) / length`, where `hits` counts
 * the request's terms (weighted) found in a tool's name of `length` terms. One implementation for
 * the scorer's sums and the store's per-term bounds, so both compute the same number bit for bit.
 *
 * @internal
 */

/** What name coverage `lambda` adds for `hits` weighted name hits in a name of `length` terms. */
export const coverage = (lambda: number, hits: number, length: number): number =>
  hits > 0 && length > 0 ? (lambda * Math.min(hits, length)) / length : 0
