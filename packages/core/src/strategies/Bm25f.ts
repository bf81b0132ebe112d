/**
 * BM25F, the default strategy: the probabilistic ranking of BM25 over several fields of different
 * importance, on an incremental inverted index.
 *
 * For a query term `t` and a tool `d`, each field `f` contributes its term frequency, weighted by
 * the field and normalized by the field's length against its average length:
 *
 * ```
 * tf~(t, d) = Σ_f  w_f · tf(t, d, f) / (1 − b + b · len(d, f) / avglen(f))
 * score(d)  = Σ_t  idf(t) · tf~(t, d) / (k1 + tf~(t, d))
 * idf(t)    = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
 * ```
 *
 * `N` is the number of tools and `df` the number of tools containing the term in any field. Terms
 * come from an `Analyzer` with `Parameters.analyzer`. The weights, `k1`, `b`, the analyzer steps
 * and three additions for how agents ask for tools are parameters, chosen by the tuning protocol
 * of docs/search.md:
 * - name coverage: `λ · (name words found in the request / name words)` is added;
 * - clauses: a request of several clauses (split at sentence ends and connectives such as "and then") scores each tool as
 *   `(1 − w) · whole / best whole + w · max over clauses (clause / best of that clause)`, so the
 *   best tool of every clause reaches the top instead of being buried by the wordiest clause;
 * - quoted values (`"…"`, `'…'`) are arguments, not words about the tool: their terms weigh less.
 *
 * The index is incremental (`internal/bm25f/Store`): `add` and `remove` update postings, document
 * frequencies and field length totals in place, so the next query sees them; only a batch of a
 * quarter of the catalog or more (a catalog loaded at once) has its postings written in one
 * counting sort. A query reads only the postings of its own terms (`internal/bm25f/Scorer`), and
 * adds those of its most common terms only to the tools its rarer terms match when their bounds
 * show that no other tool can reach the results (exact: the same results as reading everything).
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import * as Analyzer from "../Analyzer.js"
import * as Bm25fIndex from "../internal/bm25fIndex.js"
import { type SearchIndex, SearchStrategy } from "../SearchStrategy.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * One indexed field.
 *
 * @since 0.1.0
 * @category models
 */
export type Field =
  | "name"
  | "aliases"
  | "parameterNames"
  | "category"
  | "description"
  | "parameterDescriptions"
  | "queries"

/**
 * The ranking parameters.
 *
 * @since 0.1.0
 * @category models
 */
export interface Parameters {
  /** Term frequency saturation. */
  readonly k1: number
  /** Length normalization, 0 (none) to 1 (full). */
  readonly b: number
  /** Weight of each field. */
  readonly weights: Readonly<Record<Field, number>>
  /** Added to a tool's score times the share of its name's words found in the query; 0 disables. */
  readonly nameCoverage: number
  /**
   * For a request of several clauses (sentences, or parts joined by "and then", "also"…): the weight of the tool's best clause
   * score, the whole-request score getting the rest (both scaled by the best score); 0 disables.
   */
  readonly clauseWeight: number
  /** Weight of query terms that occur only inside quotes (values, not words about the tool); 1 disables. */
  readonly quotedWeight: number
  /**
   * A second, plain ranker over the same index (`fusion.weights`, `k1`, `b`; no additions), fused
   * with the first by max-normalized scores: `(1 − weight) · first / best first + weight · second /
   * best second`; weight 0 disables.
   */
  readonly fusion?: Fusion | undefined
  /** RM3-style pseudo-relevance feedback from the best hits; weight 0 (or absent) disables. */
  readonly feedback?: Feedback | undefined
  /**
   * Expansion of query terms by a term-association model; weight 0 disables. With `selection`, only
   * where the request's words mismatch the catalog's (`Selection`).
   */
  readonly associations?:
    | { readonly table: Associations; readonly weight: number; readonly selection?: Selection | undefined }
    | undefined
  /**
   * Field weights that adapt to the catalog, after PRMS (Kim, Xue and Croft): the share, 0 to 1,
   * of each term's weight over its fields that follows where the term lives in this catalog (its
   * likelihood in each field's text, normalized over the fields) rather than `weights`; 0 (or
   * absent) disables. Measured, not on by default (docs/search.md).
   */
  readonly fieldMapping?: number | undefined
  /**
   * Field weights that adapt to the catalog: each field's weight times (the mean idf of its words /
   * the mean idf of every field's words)^informativeness, so fields of words many tools share
   * weigh less; 0 (or absent) disables. Measured, not on by default (docs/search.md).
   */
  readonly informativeness?: number | undefined
  /**
   * Field weights that adapt to the catalog: a term's weight in a field times (1 − the share of
   * tools holding it in that field)^boilerplate, so words most tools carry in a field (boilerplate
   * parameter names) count little there; 0 (or absent) disables. Measured, not on by default
   * (docs/search.md).
   */
  readonly boilerplate?: number | undefined
  /**
   * BM25+ (Lv and Zhai, CIKM 2011): every term a tool matches adds at least `lowerBound · idf`,
   * however long the fields it matches in, so length normalization never makes a match count as
   * (almost) none; 0 (or absent) disables.
   */
  readonly lowerBound?: number | undefined
  /**
   * Term proximity: the best hits of the ranking gain by how close together a tool holds the
   * request's adjacent terms (`Proximity`); weight 0 (or absent) disables. Measured, not on by
   * default (docs/search.md).
   */
  readonly proximity?: Proximity | undefined
  /** The analysis steps of documents and queries. */
  readonly analyzer: Analyzer.Options
}

/**
 * Pseudo-relevance feedback (RM3-style): the best `terms` terms of the top `docs` hits (each hit's
 * term distribution weighted by its share of their scores and by idf) join the query with
 * `weight` relative to the strongest.
 *
 * @since 0.3.0
 * @category models
 */
export interface Feedback {
  readonly docs: number
  readonly terms: number
  readonly weight: number
}

/**
 * A term-association table: for an analyzed query term, the index terms associated with it and
 * their strengths, best first.
 *
 * @since 0.3.0
 * @category models
 */
export interface Associations {
  readonly get: (term: string) => ReadonlyArray<readonly [string, number]> | undefined
}

/**
 * Selective expansion by a term-association table, read against the catalog searched at query
 * time: which request terms are expanded (`terms`: `"all"`; `"unnamed"`, those no tool's name
 * holds; `"rarer"`, those, toward associated terms more tools hold than the request's own;
 * `"absent"`, those no tool holds), which requests (`missing`: at least this share of their terms
 * held by no tool; 0 every request), and how much an associated term counts (only terms some tool
 * holds, their strength times `(idf / idf of a term no tool holds)^targetIdf`).
 *
 * @since 0.3.0
 * @category models
 */
export interface Selection {
  readonly terms: "all" | "unnamed" | "rarer" | "absent"
  readonly missing: number
  readonly targetIdf: number
}

/**
 * Term proximity, after the sequential dependence model (Metzler and Croft) and BM25 with
 * proximity (Tao and Zhai; Rasolofo and Savoy): each pair of adjacent request terms that a tool
 * holds within `window` analyzed terms of each other in one text (a field, or one item of a list),
 * the second after the first when `ordered`, counts `1 / distance`; a tool's proximity is the mean
 * over the pairs, weighted by their terms' idf, 0 to 1. Each of the 50 best hits of the ranking
 * gains `weight · best score · proximity`, and they are ranked again; hits below keep their scores.
 *
 * @since 0.3.0
 * @category models
 */
export interface Proximity {
  readonly weight: number
  readonly window: number
  readonly ordered: boolean
}

/**
 * The second ranker of a fusion.
 *
 * @since 0.3.0
 * @category models
 */
export interface Fusion {
  readonly weight: number
  readonly k1: number
  readonly b: number
  readonly weights: Readonly<Record<Field, number>>
}

/**
 * The parameters the tuning protocol chose (docs/search.md).
 *
 * @since 0.1.0
 * @category settings
 */
export const defaults: Parameters = {
  k1: 1.5,
  b: 0.9,
  weights: {
    name: 2,
    aliases: 2,
    parameterNames: 0.5,
    category: 1.5,
    description: 1.5,
    parameterDescriptions: 0.5,
    queries: 0.25
  },
  nameCoverage: 2,
  clauseWeight: 0.5,
  quotedWeight: 0.3,
  fusion: { ...Bm25fIndex.stockRanker, weight: 0.25 },
  analyzer: Analyzer.defaults
}

/**
 * The live BM25F index: the `SearchIndex` operations plus `score` for tests and tools.
 *
 * @since 0.1.0
 * @category models
 */
export interface Index extends SearchIndex {
  /** The score `search` would give one document for a query, 0 when absent or unmatched. */
  readonly score: (id: string, text: string) => number
  /** How many documents are indexed. */
  readonly size: () => number
}

// -----------------------------------------------------------------------------
// Layers
// -----------------------------------------------------------------------------

/**
 * The BM25F strategy with explicit parameters.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWith = (parameters: Parameters): Layer.Layer<SearchStrategy> =>
  Layer.succeed(SearchStrategy, { name: "bm25f", makeIndex: Effect.sync(() => Bm25fIndex.make(parameters)) })

/**
 * The BM25F strategy with the default parameters.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<SearchStrategy> = layerWith(defaults)
