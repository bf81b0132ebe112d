/**
 * BM25's inverse document frequency: the one formula the store, the scorer, the expansion and the
 * proximity re-scoring read.
 *
 * @internal
 */

/** `ln(1 + (n − df + 0.5) / (df + 0.5))`: the idf of a term `df` of `n` tools hold. */
export const idf = (n: number, df: number): number => Math.log(1 + (n - df + 0.5) / (df + 0.5))
