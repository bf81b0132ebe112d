/**
 * Scores one query over a BM25F store: reads only the postings of the query's terms, adds their
 * impacts per document, then applies the ranking additions (name coverage, clause fusion, quoted
 * values) and keeps the best hits with `TopK`.
 *
 * Scratch arrays are reused across queries: a stamp per slot marks what the current query touched,
 * so nothing is cleared between queries.
 *
 * @internal
 */
import type { Analyzer } from "../../Analyzer.js"
import { clauses } from "../../Analyzer.js"
import type { Hit } from "../../SearchStrategy.js"
import { TopK } from "../TopK.js"
import type { Postings, Store } from "./Store.js"

/** The ranking additions the scorer applies on top of BM25F. */
export interface Additions {
  /** Added to a tool's score times the share of its name's words found in the query; 0 disables. */
  readonly nameCoverage: number
  /** Weight of the best clause score for requests of several clauses; 0 disables. */
  readonly clauseWeight: number
  /** Weight of query terms that occur only inside quotes; 1 disables. */
  readonly quotedWeight: number
}

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

/** A scorer over `store`; the name is field 0. */
export const make = (store: Store, analyzer: Analyzer, additions: Additions): Scorer => {
  const { clauseWeight, nameCoverage, quotedWeight } = additions
  const tfMax = store.tfMax

  let capacity = 0
  let scores = new Float64Array(0)
  // each touched slot's BM25F sum before additions: the numerator of its strength
  let raw = new Float64Array(0)
  // how many clauses the last query had (0: one), for strengths
  let lastClauses = 0
  // the query's term weight: Σ weight · idf over its terms, the most a tool could match; per clause too
  let ceiling = 0
  const clauseCeilings = new Float64Array(MAX_CLAUSES)
  let nameHits = new Float64Array(0)
  let stamps = new Uint32Array(0)
  let touched = new Int32Array(0)
  let stamp = 0
  // Per-clause scores and name hits, [slot * MAX_CLAUSES + clause], allocated by the first request
  // with several clauses.
  let clauseScores = new Float64Array(0)
  let clauseNameHits = new Float64Array(0)
  let slotMasks = new Int32Array(0) // which clauses each touched slot has a score in

  const fit = (): void => {
    const needed = store.capacity()
    if (needed <= capacity) return
    capacity = needed
    scores = new Float64Array(capacity)
    raw = new Float64Array(capacity)
    nameHits = new Float64Array(capacity)
    stamps = new Uint32Array(capacity)
    touched = new Int32Array(capacity)
    stamp = 0
    if (clauseScores.length > 0) allocateClauses()
  }

  const allocateClauses = (): void => {
    clauseScores = new Float64Array(capacity * MAX_CLAUSES)
    clauseNameHits = new Float64Array(capacity * MAX_CLAUSES)
    slotMasks = new Int32Array(capacity)
  }

  const nextStamp = (): void => {
    stamp = (stamp + 1) >>> 0
    if (stamp === 0) {
      stamps.fill(0)
      stamp = 1
    }
  }

  /**
   * Accumulates a query's terms into the scratch arrays; returns how many slots were touched. Each
   * term carries its weight and the clauses it occurs in (a bit mask; 0 with one clause).
   */
  const accumulate = (
    terms: ReadonlyArray<string>,
    weights: ReadonlyArray<number>,
    masks: ReadonlyArray<number> | undefined
  ): number => {
    fit()
    nextStamp()
    let count = 0
    const n = store.size()
    ceiling = 0
    clauseCeilings.fill(0)
    for (let t = 0; t < terms.length; t++) {
      const id = store.vocabulary.find(terms[t] as string)
      const df = id === undefined ? 0 : store.postings(id).size
      const mask = masks?.[t] ?? 0
      const weight = weights[t] ?? 1
      // a term no tool has still counts in the ceiling: a request of unknown words is a weak match
      const most = weight * Math.log(1 + (n - df + 0.5) / (df + 0.5))
      ceiling += most
      for (let c = 0, m = mask; m !== 0; c++, m >>>= 1) {
        if ((m & 1) !== 0) clauseCeilings[c] = (clauseCeilings[c] as number) + most
      }
      if (id === undefined || df === 0) continue
      const p: Postings = store.postings(id)
      const impacts = store.impactsOf(p)
      count = mask === 0
        ? addPostings(p, impacts, weight, tfMax, stamps, stamp, scores, nameHits, touched, count)
        : addClausePostings(p, impacts, weight, tfMax, stamps, stamp, scores, nameHits, touched, count, mask, {
          clauseScores,
          clauseNameHits,
          slotMasks
        })
    }
    return count
  }

  // the name lengths of the current query's slots (the name is field 0), read once per query
  let lengths: Uint16Array = new Uint16Array(0)
  const coverage = (slot: number, hits: number): number => {
    const length = lengths[slot * store.fieldCount] as number
    return hits > 0 && length > 0 ? (nameCoverage * Math.min(hits, length)) / length : 0
  }

  const run = (text: string): number => {
    lengths = store.lengths()
    const parts = clauseWeight > 0 ? clauses(text) : []
    lastClauses = parts.length < 2 ? 0 : Math.min(parts.length, MAX_CLAUSES)
    if (parts.length < 2) {
      const query = analyzer.weightedQueryTerms(text, quotedWeight)
      const count = accumulate(query.terms, query.weights, undefined)
      for (let i = 0; i < count; i++) {
        const slot = touched[i] as number
        raw[slot] = scores[slot] as number
        if (nameCoverage !== 0) scores[slot] = (scores[slot] as number) + coverage(slot, nameHits[slot] as number)
      }
      return count
    }
    // Several clauses: one pass over the postings of the distinct terms, each term adding to the
    // whole request and to the clauses it occurs in.
    fit()
    if (clauseScores.length === 0) allocateClauses()
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
    const count = accumulate(
      terms,
      terms.map((t) => weightOf.get(t) as number),
      terms.map((t) => maskOf.get(t) as number)
    )
    return fuseClauses(count, clauseCount)
  }

  /**
   * Turns whole-request and clause scores into the fused score of every touched slot:
   * `(1 − w) · whole / best whole + w · max over clauses (clause / best of that clause)`.
   */
  const fuseClauses = (count: number, clauseCount: number): number => {
    let best = 0
    const bestOfClause = new Float64Array(clauseCount)
    for (let i = 0; i < count; i++) {
      const slot = touched[i] as number
      raw[slot] = scores[slot] as number
      const s = (scores[slot] as number) + coverage(slot, nameHits[slot] as number)
      scores[slot] = s
      if (s > best) best = s
      const row = slot * MAX_CLAUSES
      for (let c = 0, m = slotMasks[slot] as number; m !== 0; c++, m >>>= 1) {
        if ((m & 1) === 0) continue
        const w = (clauseScores[row + c] as number) + coverage(slot, clauseNameHits[row + c] as number)
        clauseScores[row + c] = w
        if (w > (bestOfClause[c] as number)) bestOfClause[c] = w
      }
    }
    for (let c = 0; c < clauseCount; c++) {
      const b = bestOfClause[c] as number
      bestOfClause[c] = b > 0 ? 1 / b : 0
    }
    const whole = (1 - clauseWeight) / best
    for (let i = 0; i < count; i++) {
      const slot = touched[i] as number
      const row = slot * MAX_CLAUSES
      let clause = 0
      for (let c = 0, m = slotMasks[slot] as number; m !== 0; c++, m >>>= 1) {
        if ((m & 1) === 0) continue
        const v = (clauseScores[row + c] as number) * (bestOfClause[c] as number)
        if (v > clause) clause = v
      }
      scores[slot] = whole * (scores[slot] as number) + clauseWeight * clause
    }
    return count
  }

  /**
   * A hit's strength: its BM25F sum before additions over the query's ceiling, or over a clause's
   * ceiling for the clause it matches best. Computed for returned hits only.
   */
  const strengthOf = (id: string): number => {
    const slot = store.slotOf(id) as number // a returned hit is a touched slot, which holds a document
    let strength = ceiling > 0 ? (raw[slot] as number) / ceiling : 0
    if (lastClauses > 0) {
      const row = slot * MAX_CLAUSES
      for (let c = 0, m = slotMasks[slot] as number; m !== 0; c++, m >>>= 1) {
        const top = clauseCeilings[c] as number
        if ((m & 1) === 0 || top <= 0) continue
        // the clause's score had its name coverage added by `fuseClauses`: take it out again
        const clause = (clauseScores[row + c] as number) - coverage(slot, clauseNameHits[row + c] as number)
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
      const score = scores[slot] as number
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
    score: (slot) => scores[slot] as number,
    select
  }
}

// The two hot loops, as top-level functions over typed arrays so the engine compiles them tight.

/** Adds one term's postings to the scores; returns the new count of touched slots. */
const addPostings = (
  p: Postings,
  impacts: Float32Array,
  weight: number,
  tfMax: number,
  stamps: Uint32Array,
  stamp: number,
  scores: Float64Array,
  nameHits: Float64Array,
  touched: Int32Array,
  count: number
): number => {
  const slots = p.slots
  const tfs = p.tfs
  const df = p.size
  for (let i = 0; i < df; i++) {
    const slot = slots[i] as number
    const impact = (impacts[i] as number) * weight
    const inName = ((tfs[i] as number) & tfMax) * weight // the name is field 0: its frequency is the low bits
    if (stamps[slot] !== stamp) {
      stamps[slot] = stamp
      scores[slot] = impact
      nameHits[slot] = inName
      touched[count++] = slot
    } else {
      scores[slot] = (scores[slot] as number) + impact
      nameHits[slot] = (nameHits[slot] as number) + inName
    }
  }
  return count
}

/** `addPostings` that also adds to the clauses in `mask`. */
const addClausePostings = (
  p: Postings,
  impacts: Float32Array,
  weight: number,
  tfMax: number,
  stamps: Uint32Array,
  stamp: number,
  scores: Float64Array,
  nameHits: Float64Array,
  touched: Int32Array,
  count: number,
  mask: number,
  clause: {
    readonly clauseScores: Float64Array
    readonly clauseNameHits: Float64Array
    readonly slotMasks: Int32Array
  }
): number => {
  const { clauseNameHits, clauseScores, slotMasks } = clause
  const slots = p.slots
  const tfs = p.tfs
  const df = p.size
  for (let i = 0; i < df; i++) {
    const slot = slots[i] as number
    const impact = (impacts[i] as number) * weight
    const inName = ((tfs[i] as number) & tfMax) * weight
    const row = slot * MAX_CLAUSES
    let seen = 0 // the clauses this slot already has a score in; entries of others are stale
    if (stamps[slot] !== stamp) {
      stamps[slot] = stamp
      scores[slot] = impact
      nameHits[slot] = inName
      touched[count++] = slot
    } else {
      scores[slot] = (scores[slot] as number) + impact
      nameHits[slot] = (nameHits[slot] as number) + inName
      seen = slotMasks[slot] as number
    }
    slotMasks[slot] = seen | mask
    for (let c = 0, m = mask; m !== 0; c++, m >>>= 1) {
      if ((m & 1) === 0) continue
      if ((seen & (1 << c)) === 0) {
        clauseScores[row + c] = impact
        clauseNameHits[row + c] = inName
      } else {
        clauseScores[row + c] = (clauseScores[row + c] as number) + impact
        clauseNameHits[row + c] = (clauseNameHits[row + c] as number) + inName
      }
    }
  }
  return count
}
