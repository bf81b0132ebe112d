/**
 * Field weights that adapt to the catalog, three ways, each an option of BM25F (off by default;
 * the tuning protocol of docs/search.md measured them and kept none):
 *
 * - **PRMS** (`fieldMapping`, `mapped`): a term's weight in each field follows where that term
 *   lives in this catalog, after the probabilistic retrieval model for semistructured data (Kim,
 *   Xue and Croft, ECIR 2009). With `cf(t, f)` the occurrences of `t` in field `f` over every tool
 *   and `|f|` the field's length over every tool, `P(t | f) = cf(t, f) / |f|`, and with a uniform
 *   prior over the fields, `P(f | t) = P(t | f) / Σ_g P(t | g)`: a term that fills names (`mysql`
 *   among `mysql_*` tools) maps to the name, one mostly said in parameter names (`location`,
 *   `unit`) maps there.
 * - **Informativeness** (`informativeness`, `informative`): each field's weight follows how rare its
 *   words are in this catalog against all its words.
 * - **Boilerplate** (`boilerplate`, `boilerplate`): a term's weight in a field falls with the share
 *   of tools that carry it there.
 *
 * All of them depend only on the catalog (postings and field lengths), never on the query: the
 * weights are fixed between writes, so impacts, and the bounds pruning computes from them, hold.
 *
 * @internal
 */

/** How far BM25F's field weights adapt to the catalog; 0 or absent: the fixed weights. */
export interface Adaptation {
  /** The share of a term's weight over its fields that follows PRMS (`mapped`), 0 to 1. */
  readonly fieldMapping?: number | undefined
  /** The exponent of each field's relative informativeness (`informative`). */
  readonly informativeness?: number | undefined
  /** The exponent of a term's non-boilerplate share per field (`boilerplate`). */
  readonly boilerplate?: number | undefined
}

/** The statistics of a catalog the weights are computed from, as a BM25F store keeps them. */
export interface Catalog {
  /** Live tools. */
  readonly size: number
  /** Every field's total length over the catalog. */
  readonly lengths: Float64Array
  /** How many terms there are; term ids are below it. */
  readonly terms: number
  /** Where a term's postings start and how many there are. */
  readonly start: (term: number) => number
  readonly df: (term: number) => number
  readonly idf: (term: number) => number
  /** The packed field frequencies of every posting (`tfBits` bits per field, at most `tfMax`). */
  readonly frequencies: Int32Array
  readonly tfBits: number
  readonly tfMax: number
}

/** Whether `a` changes any weight. */
export const adapts = (a: Adaptation): boolean =>
  (a.fieldMapping ?? 0) > 0 || (a.informativeness ?? 0) > 0 || (a.boilerplate ?? 0) > 0

/**
 * The field weights of one scoring over a catalog: `catalog` once per write (the fixed weights,
 * adapted by `informativeness`: a pass over every posting), then `term` per term (adapted by
 * `boilerplate` and `fieldMapping` from the term's postings). Each returns scratch that the next call
 * overwrites.
 */
export const make = (fieldCount: number, fixed: Float64Array, adaptation: Adaptation) => {
  const catalogWeights = new Float64Array(fieldCount)
  const termWeights = new Float64Array(fieldCount)
  const counts = new Float64Array(fieldCount)
  const beta = adaptation.informativeness ?? 0
  const mapping = adaptation.fieldMapping ?? 0
  const discount = adaptation.boilerplate ?? 0
  return {
    catalog: (c: Catalog): Float64Array => {
      if (!(beta > 0)) return fixed
      counts.fill(0)
      for (let t = 0; t < c.terms; t++) {
        const df = c.df(t)
        if (df === 0) continue
        const idf = c.idf(t)
        const from = c.start(t)
        for (let i = from; i < from + df; i++) {
          for (let f = 0, packed = c.frequencies[i] as number; packed !== 0; f++, packed >>>= c.tfBits) {
            counts[f] = (counts[f] as number) + idf * (packed & c.tfMax)
          }
        }
      }
      return informative(fixed, beta, counts, c.lengths, catalogWeights)
    },
    term: (c: Catalog, base: Float64Array, term: number): Float64Array => {
      if (!(mapping > 0) && !(discount > 0)) return base
      const from = c.start(term)
      const to = from + c.df(term)
      let weights = base
      if (discount > 0) {
        // the tools holding the term, per field
        counts.fill(0)
        for (let i = from; i < to; i++) {
          for (let f = 0, packed = c.frequencies[i] as number; packed !== 0; f++, packed >>>= c.tfBits) {
            if ((packed & c.tfMax) > 0) counts[f] = (counts[f] as number) + 1
          }
        }
        weights = boilerplate(weights, discount, counts, c.size, termWeights)
      }
      if (mapping > 0) {
        // the term's occurrences, per field
        counts.fill(0)
        for (let i = from; i < to; i++) {
          for (let f = 0, packed = c.frequencies[i] as number; packed !== 0; f++, packed >>>= c.tfBits) {
            counts[f] = (counts[f] as number) + (packed & c.tfMax)
          }
        }
        // per field, reads `weights[f]` before writing `termWeights[f]`: the same array is fine
        weights = mapped(weights, mapping, counts, c.lengths, termWeights)
      }
      return weights
    }
  }
}

/**
 * The weight of each field for one term, written into `out`: `base` (the fixed weights) mixed
 * with the term's PRMS mapping at `gamma`. `occurrences` is the term's `cf(t, f)` per field and
 * `lengths` each field's total length `|f|` over the catalog. The term's weight over the fields it
 * occurs in, `M(t) = Σ w_f` over them, is redistributed:
 *
 * ```
 * w_f(t) = (1 − γ) · w_f + γ · M(t) · P(f | t)
 * ```
 *
 * so `γ = 0` is the fixed weights and the term's total weight stays `M(t)` for every `γ`. Fields
 * where the term never occurs have no posting of it: their weight does not matter.
 */
export const mapped = (
  base: Float64Array,
  gamma: number,
  occurrences: Float64Array,
  lengths: Float64Array,
  out: Float64Array
): Float64Array => {
  let likelihood = 0 // Σ_g P(t | g)
  let mass = 0 // M(t)
  for (let f = 0; f < base.length; f++) {
    const cf = occurrences[f] as number
    const length = lengths[f] as number
    if (cf > 0 && length > 0) {
      likelihood += cf / length
      mass += base[f] as number
    }
  }
  for (let f = 0; f < base.length; f++) {
    const cf = occurrences[f] as number
    const length = lengths[f] as number
    const share = likelihood > 0 && cf > 0 && length > 0 ? cf / length / likelihood : 0
    out[f] = (1 - gamma) * (base[f] as number) + gamma * mass * share
  }
  return out
}

/**
 * The fixed field weights adapted to how informative each field is in this catalog, written into
 * `out`: a field whose words are rare across the catalog (specific names, specific parameter
 * names) says more about which tool is meant than one of words every tool shares (boilerplate
 * parameters such as `subscription` or `tenant`, marketing one-liners). With `I_f` the mean idf of
 * the words of field `f` (each occurrence counted) and `I` the same over every field,
 *
 * ```
 * w_f' = w_f · (I_f / I)^β
 * ```
 *
 * so `β = 0` is the fixed weights. `idfMass` is `Σ_t cf(t, f) · idf(t)` per field and `lengths`
 * each field's total length; an empty field keeps its weight (it has no postings).
 */
export const informative = (
  base: Float64Array,
  beta: number,
  idfMass: Float64Array,
  lengths: Float64Array,
  out: Float64Array
): Float64Array => {
  let mass = 0
  let length = 0
  for (let f = 0; f < base.length; f++) {
    mass += idfMass[f] as number
    length += lengths[f] as number
  }
  const overall = length > 0 ? mass / length : 0
  for (let f = 0; f < base.length; f++) {
    const fieldLength = lengths[f] as number
    const mean = fieldLength > 0 ? (idfMass[f] as number) / fieldLength : 0
    out[f] = (base[f] as number) * (overall > 0 && mean > 0 ? Math.pow(mean / overall, beta) : 1)
  }
  return out
}

/**
 * A term's field weights discounted where the term is boilerplate in this catalog, written into
 * `out`: a word that most tools carry in a field (`subscription` and `tenant` among the parameter
 * names of one cloud's tools) tells those tools apart by that field no more than a stop word does.
 * With `df_f(t)` the tools that hold `t` in field `f` and `N` the tools,
 *
 * ```
 * w_f(t) = w_f · (1 − df_f(t) / N)^β
 * ```
 *
 * so `β = 0` is the fixed weights and a word in few tools' field keeps its weight.
 */
export const boilerplate = (
  base: Float64Array,
  beta: number,
  fieldDf: Float64Array,
  n: number,
  out: Float64Array
): Float64Array => {
  for (let f = 0; f < base.length; f++) {
    const share = n > 0 ? Math.min(1, (fieldDf[f] as number) / n) : 0
    out[f] = (base[f] as number) * Math.pow(1 - share, beta)
  }
  return out
}
