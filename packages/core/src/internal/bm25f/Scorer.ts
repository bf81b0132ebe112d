/**
 * Scores one query over a BM25F store: reads only the postings of the query's terms, adds their
 * impacts per document, then applies the ranking additions (name coverage, clause fusion, quoted
 * values, a fused second ranker, expansion terms from a term-association table and from
 * pseudo-relevance feedback) and keeps the best hits with `TopK`.
 *
 * Scratch arrays are reused across queries: a stamp per slot marks what the current query touched,
 * so nothing is cleared between queries. What a query adds up per slot (the BM25F sum, the second
 * ranker's sum, the name hits, the stamp) sits side by side in one array, so a posting reads and
 * writes one cache line, and so do the passes over the touched slots; the clause sums of a slot
 * sit side by side too.
 *
 * @internal
 */
import type { Analyzer } from "../../Analyzer.js"
import type { Hit } from "../../SearchStrategy.js"
import type { Associations, Feedback } from "../../strategies/Bm25f.js"
import { clauses } from "../analysis.js"
import { TopK } from "../TopK.js"
import type { Store } from "./Store.js"

/** The ranking additions the scorer applies on top of BM25F. */
export interface Additions {
  /** Added to a tool's score times the share of its name's words found in the query; 0 disables. */
  readonly nameCoverage: number
  /** Weight of the best clause score for requests of several clauses; 0 disables. */
  readonly clauseWeight: number
  /** Weight of query terms that occur only inside quotes; 1 disables. */
  readonly quotedWeight: number
  /**
   * Weight of the second ranker (the store's second scoring, plain: no additions) in a fusion of
   * max-normalized scores; 0 disables (the store then needs only one scoring).
   */
  readonly fusionWeight: number
  /** Pseudo-relevance feedback (RM3-style); `weight` 0 disables. */
  readonly feedback: Feedback
  /** Expansion terms of query terms (a term-association model), weighted `associationWeight`; 0 disables. */
  readonly associations: Associations | undefined
  readonly associationWeight: number
}

// At most this many expansion terms are added to a query (associations and feedback each).
const MAX_EXPANSION = 10

/** Scores queries over one store. */
export interface Scorer {
  /** Scores a query; returns how many slots it touched (read them with `touched` and `score`). */
  readonly run: (text: string) => number
  /** The `i`-th slot touched by the last `run`. */
  readonly touched: (i: number) => number
  /** The last `run`'s score of a touched slot. */
  readonly score: (slot: number) => number
  /** The best `limit` touched slots, best first, ties by id; `accept` is asked only for hits that would enter. */
  readonly select: (count: number, limit: number, accept: (id: string) => boolean) => ReadonlyArray<Hit>
}

// At most this many clauses are ranked separately; later ones join the last.
const MAX_CLAUSES = 8

// The per-slot accumulators: `ACC` numbers per slot, at these offsets.
const ACC = 4
const SCORE = 0
const SECOND = 1
const HITS = 2
const STAMP = 3

/** A scorer over `store`; the name is field 0. */
export const make = (store: Store, analyzer: Analyzer, additions: Additions): Scorer => {
  const { associationWeight, associations, clauseWeight, feedback, fusionWeight, nameCoverage, quotedWeight } =
    additions
  const tfMax = store.tfMax

  let capacity = 0
  // per slot: the BM25F sum, the second ranker's sum (when fused), the name hits, the stamp
  let acc = new Float64Array(0)
  // each touched slot's BM25F sum before additions, for requests of several clauses (one clause
  // keeps it in `acc`): the numerator of its strength
  let raw = new Float64Array(0)
  // how many clauses the last query had (0: one), for strengths
  let lastClauses = 0
  // whether the last query's scores are fused with the second ranker, and how (`finalScore`)
  let mixed = false
  let mixFirst = 0
  let mixSecond = 0
  // the query's term weight: Σ weight · idf over its terms, the most a tool could match; per clause too
  let ceiling = 0
  const clauseCeilings = new Float64Array(MAX_CLAUSES)
  let touched = new Int32Array(0)
  let stamp = 0
  // Per-clause scores and name hits, side by side: a row of two per clause of the query per slot
  // (`[slot * 2 * clauses + 2 * clause]`, as dense as the query needs), allocated by the first
  // request with several clauses.
  let clauseSums = new Float64Array(0)
  let slotMasks = new Int32Array(0) // which clauses each touched slot has a score in

  const fit = (): void => {
    const needed = store.capacity()
    if (needed <= capacity) return
    capacity = needed
    acc = new Float64Array(capacity * ACC)
    raw = new Float64Array(capacity)
    touched = new Int32Array(capacity)
    stamp = 0
    if (clauseSums.length > 0) allocateClauses()
  }

  const allocateClauses = (): void => {
    clauseSums = new Float64Array(capacity * 2 * MAX_CLAUSES)
    slotMasks = new Int32Array(capacity)
  }

  const nextStamp = (): void => {
    stamp = (stamp + 1) >>> 0
    if (stamp === 0) {
      for (let at = STAMP; at < acc.length; at += ACC) acc[at] = 0
      stamp = 1
    }
  }

  /**
   * Accumulates a query's terms into the scratch arrays; returns how many slots were touched. Each
   * term carries its weight and the clauses it occurs in (a bit mask; 0 with one clause). Only the
   * first `counted` terms are the request's own (the rest are expansions): only they make the
   * ceiling of strengths.
   */
  const accumulate = (
    terms: ReadonlyArray<string>,
    weights: ReadonlyArray<number>,
    masks: ReadonlyArray<number> | undefined,
    counted = terms.length
  ): number => {
    fit()
    nextStamp()
    let count = 0
    const n = store.size()
    ceiling = 0
    clauseCeilings.fill(0)
    for (let t = 0; t < terms.length; t++) {
      const id = store.vocabulary.find(terms[t] as string)
      const df = id === undefined ? 0 : store.df(id)
      const mask = masks?.[t] ?? 0
      const weight = weights[t] ?? 1
      if (t < counted) {
        // a term no tool has still counts in the ceiling: a request of unknown words is a weak match
        const most = weight * Math.log(1 + (n - df + 0.5) / (df + 0.5))
        ceiling += most
        for (let c = 0, m = mask; m !== 0; c++, m >>>= 1) {
          if ((m & 1) !== 0) clauseCeilings[c] = (clauseCeilings[c] as number) + most
        }
      }
      if (id === undefined || df === 0) continue
      const impacts = store.impactsOf(id)
      const postings = {
        slots: store.postingSlots(),
        tfs: store.postingFrequencies(),
        from: store.start(id),
        to: store.start(id) + df,
        impacts,
        weight,
        tfMax,
        // the second ranker reads the same postings, unweighted (plain BM25F: quotes count in full)
        secondImpacts: fusionWeight > 0 ? store.impactsOf(id, 1) : impacts,
        secondWeight: fusionWeight > 0 ? (t < counted ? 1 : weight) : 0
      }
      // with clauses, every term goes through the clause loop (an expansion term has mask 0) so a
      // slot it touches first gets its clause mask reset
      count = masks !== undefined
        ? addClausePostings(postings, acc, stamp, touched, count, mask, clauseSums, 2 * lastClauses, slotMasks)
        : addPostings(postings, acc, stamp, touched, count)
    }
    return count
  }

  // the name lengths of the current query's slots (the name is field 0), read once per query
  let names: Uint16Array = new Uint16Array(0)
  const coverage = (slot: number, hits: number): number => {
    const length = names[slot] as number
    return hits > 0 && length > 0 ? (nameCoverage * Math.min(hits, length)) / length : 0
  }

  /** Scores a request (split in `parts` when it has several clauses) with expansion terms added. */
  const scoreWith = (
    text: string,
    parts: ReadonlyArray<string>,
    extra: ReadonlyArray<string>,
    extraWeights: ReadonlyArray<number>
  ): number => {
    names = store.nameLengths()
    lastClauses = parts.length < 2 ? 0 : Math.min(parts.length, MAX_CLAUSES)
    if (parts.length < 2) {
      const query = analyzer.weightedQueryTerms(text, quotedWeight)
      const count = accumulate(
        extra.length === 0 ? query.terms : [...query.terms, ...extra],
        extra.length === 0 ? query.weights : [...query.weights, ...extraWeights],
        undefined,
        query.terms.length
      )
      mixed = fusionWeight > 0
      if (mixed) {
        const best = wholeBests(touched, count, acc, names, nameCoverage)
        mix(best.first, best.second)
      }
      return count
    }
    // Several clauses: one pass over the postings of the distinct terms, each term adding to the
    // whole request and to the clauses it occurs in.
    fit()
    if (clauseSums.length === 0) allocateClauses()
    const clauseCount = Math.min(parts.length, MAX_CLAUSES)
    const maskOf = new Map<string, number>()
    const weightOf = new Map<string, number>()
    parts.forEach((part, c) => {
      const bit = 1 << Math.min(c, MAX_CLAUSES - 1)
      const query = analyzer.weightedQueryTerms(part, quotedWeight)
      query.terms.forEach((term, i) => {
        maskOf.set(term, (maskOf.get(term) ?? 0) | bit)
        weightOf.set(term, Math.max(weightOf.get(term) ?? 0, query.weights[i] as number))
      })
    })
    const terms = [...maskOf.keys()]
    const own = terms.length
    const count = accumulate(
      [...terms, ...extra],
      [...terms.map((t) => weightOf.get(t) as number), ...extraWeights],
      [...terms.map((t) => maskOf.get(t) as number), ...extra.map(() => 0)],
      own
    )
    const best = fuseClauses(touched, count, clauseCount, {
      acc,
      raw,
      names,
      nameCoverage,
      clauseWeight,
      clauseSums,
      slotMasks
    })
    mixed = fusionWeight > 0
    if (mixed) mix(best.fused, best.second)
    return count
  }

  /** The expansion terms of a request from the association table: the most probable, not already asked. */
  const associated = (terms: ReadonlyArray<string>): { terms: Array<string>; weights: Array<number> } => {
    if (associations === undefined || !(associationWeight > 0)) return { terms: [], weights: [] }
    const asked = new Set(terms)
    const mass = new Map<string, number>()
    for (const term of asked) {
      for (const [other, p] of associations.get(term) ?? []) {
        if (!asked.has(other)) mass.set(other, (mass.get(other) ?? 0) + p)
      }
    }
    const best = [...mass].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, MAX_EXPANSION)
    return {
      terms: best.map(([t]) => t),
      weights: best.map(([, p]) => associationWeight * Math.min(1, p))
    }
  }

  /**
   * RM3-style feedback: the terms of the best `docs` hits (each document's term distribution,
   * weighted by its share of their scores and by the term's idf), the best `terms` of them not
   * already in the query, weighted by `weight` relative to the strongest.
   */
  const feedbackTerms = (
    count: number,
    asked: ReadonlySet<number>
  ): { terms: Array<string>; weights: Array<number> } => {
    const top = new TopK(feedback.docs)
    for (let i = 0; i < count; i++) {
      const slot = touched[i] as number
      const score = finalScore(slot)
      // ties are broken by tool id, as in the results, so the same catalog always feeds back the same
      if (score > 0 && score >= top.floor()) top.offer(store.idAt(slot), score)
    }
    const hits = top.result()
    const total = hits.reduce((sum, h) => sum + h.score, 0)
    const mass = new Map<number, number>()
    const n = store.size()
    for (const hit of hits) {
      const slot = store.slotOf(hit.id) as number // a kept hit is a touched slot's document
      const terms = store.termsAt(slot)
      const tfs = store.frequenciesAt(slot)
      if (terms === undefined || tfs === undefined) continue
      let length = 0
      for (let f = 0; f < store.fieldCount; f++) length += store.lengthAt(slot, f)
      if (length === 0) continue
      const share = hit.score / total
      for (let i = 0; i < terms.length; i++) {
        const term = terms[i] as number
        if (asked.has(term)) continue
        let packed = tfs[i] as number
        let tf = 0
        for (; packed !== 0; packed >>>= store.tfBits) tf += packed & tfMax
        const df = store.df(term)
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
        mass.set(term, (mass.get(term) ?? 0) + share * (tf / length) * idf)
      }
    }
    const best = [...mass].map(([id, m]) => [store.vocabulary.termOf(id), m] as const)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, feedback.terms)
    const strongest = best[0]?.[1] ?? 0
    return {
      terms: best.map(([term]) => term),
      weights: best.map(([, m]) => (feedback.weight * m) / strongest)
    }
  }

  const run = (text: string): number => {
    const parts = clauseWeight > 0 ? clauses(text) : []
    const own = associations !== undefined && associationWeight > 0 || feedback.weight > 0
      ? analyzer.queryTerms(text)
      : []
    const expansion = associated(own)
    const count = scoreWith(text, parts, expansion.terms, expansion.weights)
    if (!(feedback.weight > 0) || feedback.docs <= 0 || count === 0) return count
    const asked = new Set<number>()
    for (const term of [...own, ...expansion.terms]) {
      const id = store.vocabulary.find(term)
      if (id !== undefined) asked.add(id)
    }
    const fed = feedbackTerms(count, asked)
    if (fed.terms.length === 0) return count
    return scoreWith(text, parts, [...expansion.terms, ...fed.terms], [...expansion.weights, ...fed.weights])
  }

  /** The coefficients of the fusion with the second ranker, from the best score of each. */
  const mix = (best: number, bestSecond: number): void => {
    mixFirst = best > 0 ? (1 - fusionWeight) / best : 0
    mixSecond = bestSecond > 0 ? fusionWeight / bestSecond : 0
  }

  /**
   * The last `run`'s score of a touched slot. A request of one clause keeps each slot's BM25F sum
   * and adds name coverage here; the fusion with the second ranker is applied here too, so the
   * scores of most slots, which never reach the results, are never written back.
   */
  const finalScore = (slot: number): number => {
    const at = slot * ACC
    let v = acc[at + SCORE] as number
    if (lastClauses === 0 && nameCoverage !== 0) {
      const hits = acc[at + HITS] as number
      const length = names[slot] as number
      v = v + (hits > 0 && length > 0 ? (nameCoverage * Math.min(hits, length)) / length : 0)
    }
    return mixed ? mixFirst * v + mixSecond * (acc[at + SECOND] as number) : v
  }

  /**
   * A hit's strength: its BM25F sum before additions over the query's ceiling, or over a clause's
   * ceiling for the clause it matches best. Computed for returned hits only.
   */
  const strengthOf = (id: string): number => {
    const slot = store.slotOf(id) as number // a returned hit is a touched slot, which holds a document
    const sum = lastClauses > 0 ? raw[slot] as number : acc[slot * ACC + SCORE] as number
    let strength = ceiling > 0 ? sum / ceiling : 0
    if (lastClauses > 0) {
      for (let c = 0, m = slotMasks[slot] as number; m !== 0; c++, m >>>= 1) {
        const top = clauseCeilings[c] as number
        if ((m & 1) === 0 || top <= 0) continue
        // the clause's score had its name coverage added by `fuseClauses`: take it out again
        const at = slot * 2 * lastClauses + 2 * c
        const clause = (clauseSums[at] as number) - coverage(slot, clauseSums[at + 1] as number)
        strength = Math.max(strength, clause / top)
      }
    }
    return Math.min(1, strength)
  }

  const select = (count: number, limit: number, accept: (id: string) => boolean): ReadonlyArray<Hit> => {
    const top = new TopK(limit)
    if (limit <= 0) return []
    // most slots fail on the score alone; the id is looked up, and `accept` asked, only for the rest
    let floor = 0
    for (let i = 0; i < count; i++) {
      const slot = touched[i] as number
      const score = finalScore(slot)
      if (!(score > 0) || score < floor) continue
      const id = store.idAt(slot)
      if (top.wouldKeep(id, score) && accept(id)) {
        top.offer(id, score)
        floor = top.floor()
      }
    }
    return top.result().map((hit) => ({ id: hit.id, score: hit.score, strength: strengthOf(hit.id) }))
  }

  return {
    run,
    touched: (i) => touched[i] as number,
    score: finalScore,
    select
  }
}

// The hot loops, as top-level functions over typed arrays so the engine compiles them tight.
// Each slot's sums add the query's terms in query order, whichever loop runs.

/** One term's postings (`[from, to)` of the store's arenas) and how they count. */
interface TermPostings {
  readonly slots: Int32Array
  readonly tfs: Int32Array
  readonly from: number
  readonly to: number
  readonly impacts: Float32Array
  readonly weight: number
  readonly tfMax: number
  /** The second ranker's impacts, weighted `secondWeight` (0 when not fused: its sums are never read). */
  readonly secondImpacts: Float32Array
  readonly secondWeight: number
}

/** Adds one term's postings to the accumulators; returns the new count of touched slots. */
const addPostings = (
  p: TermPostings,
  acc: Float64Array,
  stamp: number,
  touched: Int32Array,
  count: number
): number => {
  const { from, impacts, secondImpacts, secondWeight, slots, tfMax, tfs, to, weight } = p
  for (let i = from; i < to; i++) {
    const slot = slots[i] as number
    const at = slot * ACC
    const impact = (impacts[i] as number) * weight
    const inName = ((tfs[i] as number) & tfMax) * weight // the name is field 0: its frequency is the low bits
    const other = (secondImpacts[i] as number) * secondWeight
    if (acc[at + STAMP] !== stamp) {
      acc[at + STAMP] = stamp
      acc[at + SCORE] = impact
      acc[at + SECOND] = other
      acc[at + HITS] = inName
      touched[count++] = slot
    } else {
      acc[at + SCORE] = (acc[at + SCORE] as number) + impact
      acc[at + SECOND] = (acc[at + SECOND] as number) + other
      acc[at + HITS] = (acc[at + HITS] as number) + inName
    }
  }
  return count
}

/** `addPostings` that also adds to the clauses in `mask`. */
const addClausePostings = (
  p: TermPostings,
  acc: Float64Array,
  stamp: number,
  touched: Int32Array,
  count: number,
  mask: number,
  clauseSums: Float64Array,
  rowWidth: number,
  slotMasks: Int32Array
): number => {
  const { from, impacts, secondImpacts, secondWeight, slots, tfMax, tfs, to, weight } = p
  for (let i = from; i < to; i++) {
    const slot = slots[i] as number
    const at = slot * ACC
    const impact = (impacts[i] as number) * weight
    const inName = ((tfs[i] as number) & tfMax) * weight
    let seen = 0 // the clauses this slot already has a score in; entries of others are stale
    if (acc[at + STAMP] !== stamp) {
      acc[at + STAMP] = stamp
      acc[at + SCORE] = impact
      acc[at + HITS] = inName
      acc[at + SECOND] = (secondImpacts[i] as number) * secondWeight
      touched[count++] = slot
    } else {
      acc[at + SCORE] = (acc[at + SCORE] as number) + impact
      acc[at + HITS] = (acc[at + HITS] as number) + inName
      acc[at + SECOND] = (acc[at + SECOND] as number) + (secondImpacts[i] as number) * secondWeight
      seen = slotMasks[slot] as number
    }
    slotMasks[slot] = seen | mask
    const row = slot * rowWidth
    for (let c = 0, m = mask; m !== 0; c++, m >>>= 1) {
      if ((m & 1) === 0) continue
      const cat = row + 2 * c
      if ((seen & (1 << c)) === 0) {
        clauseSums[cat] = impact
        clauseSums[cat + 1] = inName
      } else {
        clauseSums[cat] = (clauseSums[cat] as number) + impact
        clauseSums[cat + 1] = (clauseSums[cat + 1] as number) + inName
      }
    }
  }
  return count
}

/**
 * The best score of a request of one clause (its BM25F sum plus name coverage) and the best sum
 * of the second ranker, over the touched slots: the scales of the fusion.
 */
const wholeBests = (
  touched: Int32Array,
  count: number,
  acc: Float64Array,
  names: Uint16Array,
  nameCoverage: number
): { readonly first: number; readonly second: number } => {
  let best = 0
  let bestSecond = 0
  for (let i = 0; i < count; i++) {
    const slot = touched[i] as number
    const at = slot * ACC
    let score = acc[at + SCORE] as number
    if (nameCoverage !== 0) {
      const hits = acc[at + HITS] as number
      const length = names[slot] as number
      score = score + (hits > 0 && length > 0 ? (nameCoverage * Math.min(hits, length)) / length : 0)
    }
    if (score > best) best = score
    const other = acc[at + SECOND] as number
    if (other > bestSecond) bestSecond = other
  }
  return { first: best, second: bestSecond }
}

/**
 * Turns whole-request and clause scores into the fused score of every touched slot:
 * `(1 − w) · whole / best whole + w · max over clauses (clause / best of that clause)`, name
 * coverage added to the whole and to each clause first; keeps each slot's sum before additions
 * in `raw`; returns the best fused score and the best of the second ranker.
 */
const fuseClauses = (
  touched: Int32Array,
  count: number,
  clauseCount: number,
  state: {
    readonly acc: Float64Array
    readonly raw: Float64Array
    readonly names: Uint16Array
    readonly nameCoverage: number
    readonly clauseWeight: number
    readonly clauseSums: Float64Array
    readonly slotMasks: Int32Array
  }
): { readonly fused: number; readonly second: number } => {
  const { acc, clauseSums, clauseWeight, nameCoverage, names, raw, slotMasks } = state
  let best = 0
  let bestSecond = 0
  const bestOfClause = new Float64Array(clauseCount)
  for (let i = 0; i < count; i++) {
    const slot = touched[i] as number
    const at = slot * ACC
    const length = names[slot] as number
    const hits = acc[at + HITS] as number
    const r = acc[at + SCORE] as number
    raw[slot] = r
    const s = r + (hits > 0 && length > 0 ? (nameCoverage * Math.min(hits, length)) / length : 0)
    acc[at + SCORE] = s
    if (s > best) best = s
    const other = acc[at + SECOND] as number
    if (other > bestSecond) bestSecond = other
    const row = slot * 2 * clauseCount
    for (let c = 0, m = slotMasks[slot] as number; m !== 0; c++, m >>>= 1) {
      if ((m & 1) === 0) continue
      const cat = row + 2 * c
      const h = clauseSums[cat + 1] as number
      const w = (clauseSums[cat] as number) +
        (h > 0 && length > 0 ? (nameCoverage * Math.min(h, length)) / length : 0)
      clauseSums[cat] = w
      if (w > (bestOfClause[c] as number)) bestOfClause[c] = w
    }
  }
  for (let c = 0; c < clauseCount; c++) {
    const b = bestOfClause[c] as number
    bestOfClause[c] = b > 0 ? 1 / b : 0
  }
  const whole = (1 - clauseWeight) / best
  let bestFused = 0
  for (let i = 0; i < count; i++) {
    const slot = touched[i] as number
    const row = slot * 2 * clauseCount
    let clause = 0
    for (let c = 0, m = slotMasks[slot] as number; m !== 0; c++, m >>>= 1) {
      if ((m & 1) === 0) continue
      const v = (clauseSums[row + 2 * c] as number) * (bestOfClause[c] as number)
      if (v > clause) clause = v
    }
    const at = slot * ACC
    const v = whole * (acc[at + SCORE] as number) + clauseWeight * clause
    acc[at + SCORE] = v
    if (v > bestFused) bestFused = v
  }
  return { fused: bestFused, second: bestSecond }
}
