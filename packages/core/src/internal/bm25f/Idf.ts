/**
 * BM25's inverse document frequency, for the modules that read it from the catalog's counts.
 *
 * @internal
 */

/** `ln(1 + (n − df + 0.5) / (df + 0.5))`: the idf of a term `df` of `n` tools hold. */
export const idf = (n: number, df: number): number => Math.log(1 + (n - df + 0.5) / (df + 0.5))
