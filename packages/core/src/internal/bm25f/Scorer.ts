/**
 * Scores one query over a BM25F store: reads only the postings of the query's terms, adds their
 * impacts per document, then applies the ranking additions (name coverage, clause fusion, quoted
 * values, a fused second ranker, expansion terms from a term-association table and from
 * pseudo-relevance feedback) and keeps the best hits with `TopK`. A search with a limit adds the
 * postings of the query's most common terms only to the documents its rarer terms touch, when
 * bounds show no other document can matter (`pruned`); when most documents hold several of its
 * common terms, it first finds which of them each document holds, and adds up only the documents
 * whose terms' bounds can reach the results (`bySets`, `TermSets`): the same hits and scores, bit
 * for bit.
 *
 * Scratch arrays are reused across queries: a stamp per slot marks what the current query touched,
 * so nothing is cleared between queries. What a query adds up per touched slot (the BM25F sum, the
 * second ranker's sum, the name hits, then each clause's sum and name hits) sits side by side in a
 * row, and the rows are in the order the slots were first touched, so the passes over the touched
 * slots (the fusion's scales, the clause fusion, the selection) read them in order instead of
 * scattered over the catalog, and the first term of a query writes its rows in order too.
 *
 * @internal
 */
import type { Analyzer } from "../../Analyzer.js"
import type { Hit } from "../../SearchStrategy.js"
import type { Associations, Feedback, Selection } from "../../strategies/Bm25f.js"
import { clauses } from "../analysis.js"
import { TopK } from "../TopK.js"
import { coverage as coverageOf } from "./Coverage.js"
import * as Expansion from "./Expansion.js"
import { idf } from "./Idf.js"
import type { Store } from "./Store.js"
import * as TermSets from "./TermSets.js"

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
  /** How selective the expansion is (`Expansion`); absent: every term. */
  readonly selection?: Selection | undefined
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
  /**
   * `select(run(text), limit, accept)`, adding up fewer postings when it can (see `pruned`): the
   * same hits, scores and strengths. `touched` and `score` are not valid after it.
   */
  readonly search: (text: string, limit: number, accept: (id: string) => boolean) => ReadonlyArray<Hit>
}

// At most this many clauses are ranked separately; later ones join the last.
const MAX_CLAUSES = 8

// A touched slot's row (`Rows`): its sums at these offsets, then from `ROW` a sum and name hits
// per clause of a request of several.
const SCORE = 0
const SECOND = 1
const HITS = 2
const ROW = 3

/**
 * Which terms pruning may skip: those held by at least `minSkippedDf` tools and one in
 * `skippedShare` of the catalog, while the terms read hold `readPerHit` postings per hit asked
 * for and (unless `beyondBounds`, for tests: every skip is then checked, most fail) the skipped
 * terms' bounds stay below the largest impact of a term read. A query whose terms hold
 * `setsMinPostings` postings or more, with a term as common as a skipped one, goes by term sets
 * (`bySets`) when its terms but the most common hold `setsShare` postings per tool or more, or
 * when skipping does not decide the hits, adding up first `setsRead` slots per hit asked for.
 */
export interface Pruning {
  readonly minSkippedDf: number
  readonly skippedShare: number
  readonly readPerHit: number
  readonly beyondBounds: boolean
  readonly setsShare: number
  readonly setsRead: number
  readonly setsMinPostings: number
}

/**
 * Terms of 256 tools and a sixteenth of the catalog or more: below that, reading them costs
 * little; term sets when the terms but the most common hold a posting per four tools, 64 slots
 * per hit first (round numbers: slower below 16 or above 256), for queries of 32,768 postings or
 * more (below that, reading them all costs less than the passes over every tool that term sets
 * make: docs/search.md).
 */
export const defaultPruning: Pruning = {
  minSkippedDf: 256,
  skippedShare: 16,
  readPerHit: 4,
  beyondBounds: false,
  setsShare: 0.25,
  setsRead: 64,
  setsMinPostings: 32_768
}

/**
 * Pruning of any term, however few tools hold it, by skipping (not by term sets) and one slot per
 * hit first by term sets: for tests, which prune small catalogs.
 */
export const boldPruning: Pruning = {
  minSkippedDf: 1,
  skippedShare: Number.POSITIVE_INFINITY,
  readPerHit: 0,
  beyondBounds: false,
  setsShare: Number.POSITIVE_INFINITY,
  setsRead: 1,
  setsMinPostings: 0
}

// A search by term sets adds up the slots of more keys at most this many times.
const SET_ROUNDS = 3

// Bounds are widened by `SLACK`, far more than the rounding of a sum of a query's terms.
const SLACK = 1 + 1e-9

/** A scorer over `store`; the name is field 0. Query stamps start at `firstStamp` (tests start them near a wrap-around). */
export const make = (
  store: Store,
  analyzer: Analyzer,
  additions: Additions,
  pruning: Pruning = defaultPruning,
  firstStamp = 0
): Scorer => {
  const {
    associationWeight,
    associations,
    clauseWeight,
    feedback,
    fusionWeight,
    nameCoverage,
    quotedWeight,
    selection
  } = additions
  const tfMax = store.tfMax
  const fused = fusionWeight > 0
  // Pruning needs every score to grow with every term's contribution: additions that can lower a
  // score (a negative weight) or a fusion outside [0, 1] make every query exhaustive.
  const prunable = nameCoverage >= 0 && clauseWeight >= 0 && clauseWeight <= 1 && fusionWeight >= 0 &&
    fusionWeight <= 1 && quotedWeight >= 0 && !(associationWeight < 0) && !(feedback.weight > 0 && feedback.docs > 0)

  let capacity = 0
  // the slots pruning adds up, marked with the query's stamp
  let marks = new Int32Array(0)
  // the best scores of the last query on each scale of the fusion (set by `finish` when fused or
  // with clauses)
  let bests: Bests = { whole: 0, second: 0, clauses: new Float64Array(0), fused: 0 }
  // how many clauses the last query had (0: one), for strengths
  let lastClauses = 0
  // whether the last query's scores are fused with the second ranker, and how (`finalScore`)
  let mixed = false
  let mixFirst = 0
  let mixSecond = 0
  // the query's term weight: Σ weight · idf over its terms, the most a tool could match; per clause too
  let ceiling = 0
  const clauseCeilings = new Float64Array(MAX_CLAUSES)
  // per clause: its best score over every tool when known without reading it (a clause of one
  // term whose postings pruning skips: `Store.bestAlone`), else 0; set by `pruned` only
  const knownClauses = new Float64Array(MAX_CLAUSES)
  let touched = new Int32Array(0)
  let stamp = 0
  // A row per touched slot, in the order the slots were first touched (`[i * width]` for the
  // `i`-th, `width` = `ROW` + 2 per clause of a request of several, as dense as the query needs):
  // the slot's sums (the second ranker's when fused), then each clause's sum and name hits. The
  // rows grow with the requests (as many as a request can touch).
  let rows = new Float64Array(0)
  let clauseMasks = new Int32Array(0) // which clauses the i-th touched slot has a score in
  let positions = new Int32Array(0) // per touched slot: its place in `touched` (its row)
  let stamps = new Int32Array(0) // per slot: the last query that touched it
  // the i-th touched slot's score before the fusion with the second ranker (when fused or with
  // clauses) and its second ranker's sum, set by `finish`, for the selection to read in order
  let fusedScores = new Float64Array(0)
  let seconds = new Float64Array(0)

  // The current query's terms: term id (-1 when no tool has it), weight, the second ranker's
  // weight, clause mask, whether pruning skips its postings; `terms` of them.
  let terms = 0
  let termIds = new Int32Array(16)
  let termWeights = new Float64Array(16)
  let secondWeights = new Float64Array(16)
  let termMasks = new Int32Array(16)
  let skipped = new Uint8Array(16)
  // per term, its bit in a term-set key (0: none; `setBits`)
  let termBits = new Int32Array(16)

  const fit = (): void => {
    const needed = store.capacity()
    if (needed <= capacity) return
    capacity = needed
    marks = new Int32Array(capacity)
    stamps = new Int32Array(capacity)
    positions = new Int32Array(capacity)
    touched = new Int32Array(capacity)
    clauseMasks = new Int32Array(capacity)
    fusedScores = new Float64Array(capacity)
    seconds = new Float64Array(capacity)
    stamp = firstStamp
  }

  // Stamps stay below 2^30: small integers for the engine, and what `marks` (32-bit signed) holds
  // compares equal to the stamp (from 2^31 on it would not, and pruning would add nothing).
  const nextStamp = (): void => {
    stamp = (stamp + 1) & 0x3fffffff
    if (stamp === 0) {
      marks.fill(0)
      stamps.fill(0)
      stamp = 1
    }
  }

  /**
   * Resolves a query's terms and starts a query: each term carries its weight and the clauses it
   * occurs in (a bit mask; 0 with one clause). Only the first `counted` terms are the request's own
   * (the rest are expansions): only they make the ceiling of strengths.
   */
  const prepare = (
    words: ReadonlyArray<string>,
    weights: ReadonlyArray<number>,
    masks: ReadonlyArray<number> | undefined,
    counted = words.length
  ): void => {
    fit()
    nextStamp()
    if (words.length > termIds.length) {
      const n = words.length * 2
      termIds = new Int32Array(n)
      termWeights = new Float64Array(n)
      secondWeights = new Float64Array(n)
      termMasks = new Int32Array(n)
      skipped = new Uint8Array(n)
      termBits = new Int32Array(n)
    }
    terms = words.length
    const n = store.size()
    ceiling = 0
    clauseCeilings.fill(0)
    knownClauses.fill(0)
    for (let t = 0; t < terms; t++) {
      const id = store.vocabulary.find(words[t] as string)
      const df = id === undefined ? 0 : store.df(id)
      const mask = masks?.[t] ?? 0
      const weight = weights[t] ?? 1
      if (t < counted) {
        // a term no tool has still counts in the ceiling: a request of unknown words is a weak match
        const most = weight * idf(n, df)
        ceiling += most
        for (let c = 0, m = mask; m !== 0; c++, m >>>= 1) {
          if ((m & 1) !== 0) clauseCeilings[c] = (clauseCeilings[c] as number) + most
        }
      }
      termIds[t] = id === undefined || df === 0 ? -1 : id
      termWeights[t] = weight
      // the second ranker reads the same postings, unweighted (plain BM25F: quotes count in full)
      secondWeights[t] = fused ? (t < counted ? 1 : weight) : 0
      termMasks[t] = mask
      skipped[t] = 0
      if (id !== undefined && df > 0) {
        store.impactsOf(id)
        if (fused) store.impactsOf(id, 1)
      }
    }
  }

  /**
   * Adds the postings of the query's term `t` (`only` to the slots marked in `marks` or to the
   * others, or the first `only` of `found`, when given); returns the new count of touched slots.
   */
  const addTerm = (t: number, count: number, only?: "marked" | "unmarked" | number): number => {
    const id = termIds[t] as number
    if (id < 0) return count
    const impacts = store.impactsOf(id)
    const from = typeof only === "number" ? 0 : store.start(id)
    const postings = {
      slots: store.postingSlots(),
      tfs: store.postingFrequencies(),
      from,
      to: typeof only === "number" ? only : from + store.df(id),
      impacts,
      weight: termWeights[t] as number,
      tfMax,
      secondImpacts: fused ? store.impactsOf(id, 1) : impacts,
      secondWeight: secondWeights[t] as number
    }
    // with clauses, every term goes through the clause loop (an expansion term has mask 0) so a
    // slot it touches first gets its clause mask reset
    return addPostings(
      postings,
      stamps,
      stamp,
      touched,
      count,
      termMasks[t] as number,
      { sums: rows, width: ROW + 2 * lastClauses, masks: clauseMasks, positions },
      only === undefined || typeof only === "number" ? undefined : marks,
      only === "marked",
      typeof only === "number" ? found : undefined
    )
  }

  /** Adds the postings of every term of the query; returns how many slots were touched. */
  const addTerms = (): number => {
    let count = 0
    for (let t = 0; t < terms; t++) count = addTerm(t, count)
    return count
  }

  // the name lengths of the current query's slots (the name is field 0), read once per query
  let names: Uint16Array = new Uint16Array(0)
  const coverage = (slot: number, hits: number): number => coverageOf(nameCoverage, hits, names[slot] as number)

  /**
   * Starts scoring a request (split in `parts` when it has several clauses) with expansion terms
   * added: its terms resolved (`prepare`), nothing added yet.
   */
  const plan = (
    text: string,
    parts: ReadonlyArray<string>,
    extra: ReadonlyArray<string>,
    extraWeights: ReadonlyArray<number>
  ): void => {
    names = store.nameLengths()
    lastClauses = parts.length < 2 ? 0 : Math.min(parts.length, MAX_CLAUSES)
    mixed = fused
    if (parts.length < 2) {
      const query = analyzer.weightedQueryTerms(text, quotedWeight)
      prepare(
        extra.length === 0 ? query.terms : [...query.terms, ...extra],
        extra.length === 0 ? query.weights : [...query.weights, ...extraWeights],
        undefined,
        query.terms.length
      )
      sizeRows()
      return
    }
    // Several clauses: one pass over the postings of the distinct terms, each term adding to the
    // whole request and to the clauses it occurs in. Each distinct term once, in order of first
    // appearance, with the clauses it occurs in and its largest weight.
    const at = new Map<string, number>()
    const words: Array<string> = []
    const weights: Array<number> = []
    const masks: Array<number> = []
    for (let c = 0; c < parts.length; c++) {
      const bit = 1 << Math.min(c, MAX_CLAUSES - 1)
      const query = analyzer.weightedQueryTerms(parts[c] as string, quotedWeight)
      for (let i = 0; i < query.terms.length; i++) {
        const term = query.terms[i] as string
        const weight = query.weights[i] as number
        const known = at.get(term)
        if (known === undefined) {
          at.set(term, words.length)
          words.push(term)
          weights.push(Math.max(0, weight))
          masks.push(bit)
        } else {
          masks[known] = (masks[known] as number) | bit
          weights[known] = Math.max(weights[known] as number, weight)
        }
      }
    }
    const own = words.length
    for (let e = 0; e < extra.length; e++) {
      words.push(extra[e] as string)
      weights.push(extraWeights[e] as number)
      masks.push(0)
    }
    prepare(words, weights, masks, own)
    sizeRows()
  }

  /** Room for a row per slot the query can touch: no more than its terms' postings, nor the catalog. */
  const sizeRows = (): void => {
    const width = ROW + 2 * lastClauses
    const needed = Math.min(capacity, postingCounts().all) * width
    if (rows.length < needed) rows = new Float64Array(Math.max(needed, Math.min(rows.length * 2, capacity * width)))
  }

  /** Ends an exhaustive query of `count` touched slots: the clause fusion and the fusion's scales. */
  const finish = (count: number): void => {
    if (lastClauses === 0) {
      if (mixed) {
        bests = wholeBests(touched, count, rows, names, nameCoverage, fusedScores, seconds)
        mix(bests.whole, bests.second)
      }
      return
    }
    bests = fuseClauses(touched, count, lastClauses, {
      names,
      nameCoverage,
      clauseWeight,
      rows,
      clauseMasks,
      scores: fusedScores,
      seconds,
      known: knownClauses
    })
    if (mixed) mix(bests.fused, bests.second)
  }

  /** Scores a request exhaustively (every posting of every term); returns how many slots it touched. */
  const scoreWith = (
    text: string,
    parts: ReadonlyArray<string>,
    extra: ReadonlyArray<string>,
    extraWeights: ReadonlyArray<number>
  ): number => {
    plan(text, parts, extra, extraWeights)
    const count = addTerms()
    finish(count)
    return count
  }
  /** The expansion terms of a request from the association table (`Expansion`), read against this catalog. */
  const catalog: Expansion.Catalog = {
    size: store.size,
    df: (term) => {
      const id = store.vocabulary.find(term)
      return id === undefined ? 0 : store.df(id)
    },
    named: (term) => {
      const id = store.vocabulary.find(term)
      if (id === undefined || store.df(id) === 0) return false
      store.impactsOf(id)
      return store.maxNameShare(id) > 0
    }
  }
  const associated = (terms: ReadonlyArray<string>) =>
    Expansion.expand(terms, associations, associationWeight, selection, catalog)

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
        mass.set(term, (mass.get(term) ?? 0) + share * (tf / length) * idf(n, store.df(term)))
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

  /**
   * A request's clauses (when clauses are ranked), its own terms (when expansion or feedback needs
   * them) and its expansion terms from the association table: what `run` and `search` start from.
   */
  const requestOf = (text: string) => {
    const parts = clauseWeight > 0 ? clauses(text) : []
    const own = associations !== undefined && associationWeight > 0 || feedback.weight > 0
      ? analyzer.queryTerms(text)
      : []
    return { parts, own, expansion: associated(own) }
  }

  const run = (text: string): number => {
    const { expansion, own, parts } = requestOf(text)
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
   * scores of most slots, which never reach the results, are never written back. A request of
   * several clauses reads the slot's fused score from its place in `touched` (`scoreAt`).
   */
  const finalScore = (slot: number): number => {
    if (lastClauses > 0) return scoreAt(positions[slot] as number)
    const at = (positions[slot] as number) * ROW
    let v = rows[at + SCORE] as number
    if (nameCoverage !== 0) {
      const hits = rows[at + HITS] as number
      const length = names[slot] as number
      v = v + coverageOf(nameCoverage, hits, length)
    }
    return mixed ? mixFirst * v + mixSecond * (rows[at + SECOND] as number) : v
  }

  /** `finalScore` of the `i`-th touched slot, from what `finish` wrote (a request fused or of several clauses). */
  const scoreAt = (i: number): number => {
    const v = fusedScores[i] as number
    return mixed ? mixFirst * v + mixSecond * (seconds[i] as number) : v
  }

  /**
   * A hit's strength: its BM25F sum before additions over the query's ceiling, or over a clause's
   * ceiling for the clause it matches best. Computed for returned hits only.
   */
  const strengthOf = (id: string): number => {
    const slot = store.slotOf(id) as number // a returned hit is a touched slot, which holds a document
    // the slot's sums are in its row
    const row = (positions[slot] as number) * (ROW + 2 * lastClauses)
    const sum = rows[row + SCORE] as number
    let strength = ceiling > 0 ? sum / ceiling : 0
    if (lastClauses > 0) {
      for (let c = 0, m = clauseMasks[positions[slot] as number] as number; m !== 0; c++, m >>>= 1) {
        const top = clauseCeilings[c] as number
        if ((m & 1) === 0 || top <= 0) continue
        // the clause's score had its name coverage added by `fuseClauses`: take it out again
        const at = row + ROW + 2 * c
        const clause = (rows[at] as number) - coverage(slot, rows[at + 1] as number)
        strength = Math.max(strength, clause / top)
      }
    }
    return Math.min(1, strength)
  }

  // ---------------------------------------------------------------------------------------------
  // Pruning: a search with a limit scores only the slots the query's rarer terms touch, when the
  // bounds of its most common terms show that no other slot can matter.
  // ---------------------------------------------------------------------------------------------

  // per clause: the most the skipped terms add to it
  const restClause = new Float64Array(MAX_CLAUSES)

  /** How many tools a term must be held by for pruning to skip it, or to go by term sets. */
  const commonDf = (): number => Math.max(pruning.minSkippedDf, store.size() / pruning.skippedShare)

  /**
   * Marks query terms held by a large share of the catalog as skipped, most common first: their
   * postings add only to slots a rarer term touched. A term is skipped only while the skipped
   * terms' bounds stay below the largest impact of a term still read (some slot scores that
   * much), the rarest term of each clause is read (unless the clause is that term alone, at
   * weight 1: its best score is known, see `pruned`), and the terms read hold a few postings per hit
   * asked for (so the best `limit` can be found among their slots); returns how many are skipped.
   */
  const chooseSkipped = (limit: number): number => {
    const least = commonDf()
    let read = postingCounts().all
    let rest = 0
    let count = 0
    for (;;) {
      // the most common term still read, and the largest impact among the others
      let common = -1
      for (let t = 0; t < terms; t++) {
        const id = termIds[t] as number
        if (id < 0 || skipped[t] === 1) continue
        if (common < 0 || store.df(id) > store.df(termIds[common] as number)) common = t
      }
      if (common < 0) break
      const id = termIds[common] as number
      const df = store.df(id)
      if (df < least || read - df < limit * pruning.readPerHit || readsClauseAlone(common)) break
      let strongest = 0
      for (let t = 0; t < terms; t++) {
        if (t === common || skipped[t] === 1 || (termIds[t] as number) < 0) continue
        strongest = Math.max(strongest, (termWeights[t] as number) * store.maxImpact(termIds[t] as number))
      }
      const most = boundOf(common)
      if (rest + most > strongest && !pruning.beyondBounds) break
      rest += most
      skipped[common] = 1
      read -= df
      count++
    }
    return count
  }

  /**
   * The most query term `t` adds to a slot's score: its largest impact, and its most to name
   * coverage (coverage grows with name hits, never faster than in proportion).
   */
  const boundOf = (t: number): number => {
    const id = termIds[t] as number
    const weight = termWeights[t] as number
    return weight * store.maxImpact(id) + nameCoverage * Math.min(1, weight * store.maxNameShare(id))
  }

  /** How many postings the query's terms hold, and how many but the most common one's. */
  const postingCounts = (): { readonly all: number; readonly rarer: number } => {
    let all = 0
    let most = 0
    for (let t = 0; t < terms; t++) {
      const id = termIds[t] as number
      if (id < 0) continue
      all += store.df(id)
      most = Math.max(most, store.df(id))
    }
    return { all, rarer: all - most }
  }

  /**
   * Whether term `t` is the only term read of one of the query's clauses whose best score is not
   * known without reading it (see `aloneIn`).
   */
  const readsClauseAlone = (t: number): boolean => {
    for (let c = 0, m = termMasks[t] as number; m !== 0; c++, m >>>= 1) {
      if ((m & 1) === 0) continue
      let others = false
      for (let u = 0; u < terms && !others; u++) {
        others = u !== t && skipped[u] === 0 && (termIds[u] as number) >= 0 &&
          (((termMasks[u] as number) >>> c) & 1) !== 0
      }
      if (!others && aloneIn(c) !== t) return true
    }
    return false
  }

  /**
   * The query term that is clause `c`'s only term held by any tool, when its weight is 1: the
   * clause's best score over every tool is then the store's `bestAlone` of that term; else -1.
   */
  const aloneIn = (c: number): number => {
    let alone = -1
    for (let t = 0; t < terms; t++) {
      if ((termIds[t] as number) < 0 || (((termMasks[t] as number) >>> c) & 1) === 0) continue
      if (alone >= 0) return -1
      alone = t
    }
    return alone >= 0 && termWeights[alone] === 1 ? alone : -1
  }

  /**
   * The best `limit` hits of the query `plan` prepared, as `select` would return them after an
   * exhaustive `run`, or `undefined` when the skipped terms' bounds do not decide them (the caller
   * then reads every posting).
   *
   * The slots the kept terms touch are marked, then every term is added in query order to the
   * marked slots only: their sums are the exhaustive ones, bit for bit, and a skipped term's long
   * list costs a check per posting. Every other slot holds skipped terms only, so its score is at
   * most their bounds (each term's largest impact, and its most to name coverage: coverage grows
   * with name hits, never faster than in proportion), widened by `SLACK` against rounding. When
   * those bounds are below every scale of the fusion (the best whole, clause and second-ranker
   * scores, the best fused score) and below the `limit`-th best score, the marked slots decide the
   * results exactly. A clause of one term (at weight 1) whose postings are skipped has its scale
   * known without them: the store keeps each term's best score alone (`Store.bestAlone`), computed
   * as a clause of that term only is scored, so the clause is normalised exactly as when read, and
   * no other slot can exceed it.
   */
  const pruned = (limit: number, accept: (id: string) => boolean): ReadonlyArray<Hit> | undefined => {
    let restWhole = 0
    let restSecond = 0
    restClause.fill(0)
    const slots = store.postingSlots()
    for (let t = 0; t < terms; t++) {
      const id = termIds[t] as number
      if (id < 0) continue
      if (skipped[t] === 0) {
        markPostings(slots, store.start(id), store.start(id) + store.df(id), marks, stamp)
        continue
      }
      const most = boundOf(t)
      restWhole += most
      for (let c = 0, m = termMasks[t] as number; m !== 0; c++, m >>>= 1) {
        if ((m & 1) !== 0) restClause[c] = (restClause[c] as number) + most
      }
      if (fused) restSecond += (secondWeights[t] as number) * store.maxImpact(id, 1)
    }
    for (let c = 0; c < lastClauses; c++) {
      const alone = aloneIn(c)
      if (alone >= 0 && skipped[alone] === 1) knownClauses[c] = store.bestAlone(termIds[alone] as number)
    }
    let count = 0
    for (let t = 0; t < terms; t++) count = addTerm(t, count, skipped[t] === 1 ? "marked" : undefined)
    const hits = decided(count, limit, accept, restWhole * SLACK, restSecond * SLACK)
    if (hits !== undefined || lastClauses > 0) return hits
    // One clause: the sums of the marked slots are final, so the slots of skipped terms only are
    // added (their postings in query order) and the whole request is finished as without pruning.
    for (let t = 0; t < terms; t++) if (skipped[t] === 1) count = addTerm(t, count, "unmarked")
    finish(count)
    return select(count, limit, accept)
  }

  // the `limit`-th best score of the hits found last by `decided` or `bySets` (0 with fewer)
  let lastFloor = 0

  /**
   * The best hits of the marked slots (`count` touched), when no slot of skipped terms only,
   * bounded by `restWhole` (and `restClause`) and `restSecond`, can change a scale of the fusion
   * or reach the results.
   */
  const decided = (
    count: number,
    limit: number,
    accept: (id: string) => boolean,
    restWhole: number,
    restSecond: number
  ): ReadonlyArray<Hit> | undefined => {
    const hits = finishAndSelect(count, limit, accept)
    return matters(restWhole, restSecond, restClause, 0) ? undefined : hits
  }

  /** `finish` and `select` the `count` touched slots, keeping the `limit`-th best score (`lastFloor`). */
  const finishAndSelect = (count: number, limit: number, accept: (id: string) => boolean): ReadonlyArray<Hit> => {
    finish(count)
    const hits = select(count, limit, accept)
    lastFloor = hits.length < limit ? 0 : (hits[limit - 1] as Hit).score
    return hits
  }

  /**
   * Whether a slot not added up, of whole score at most `whole`, second ranker's sum at most
   * `second` (both widened by `SLACK`) and clause scores at most `clauses[at + c]`, could change a
   * scale of the fusion (the `bests` of the last `finish`) or reach the results (`lastFloor`).
   */
  const matters = (whole: number, second: number, clauses: Float64Array, at: number): boolean => {
    if ((mixed || lastClauses > 0) && whole > bests.whole) return true
    if (mixed && second > bests.second) return true
    let first = whole
    if (lastClauses > 0) {
      let clause = 0
      for (let c = 0; c < lastClauses; c++) {
        const most = (clauses[at + c] as number) * SLACK
        const best = bests.clauses[c] as number
        // a known best is the clause's best over every tool: no other slot exceeds it
        if (most > best && !((knownClauses[c] as number) > 0)) return true
        if (best > 0) clause = Math.max(clause, Math.min(most, best) / best)
      }
      first = ((1 - clauseWeight) / bests.whole) * whole + clauseWeight * clause
      if (first > bests.fused) return true
    }
    const most = mixed ? mixFirst * first + mixSecond * second : first
    return !(lastFloor > 0 && most * SLACK < lastFloor)
  }

  // ---------------------------------------------------------------------------------------------
  // Pruning by term sets: which of the query's terms each slot holds, and which its name holds,
  // bound its scores, so a search with a limit adds up only the slots whose bounds can matter.
  // ---------------------------------------------------------------------------------------------

  // per slot, its key (`TermSets`); per key, how many slots have it, whether they are added up
  // (1), and the most their scores can be: whole, second ranker's sum and per clause
  // (`MAX_CLAUSES` per key); where a term's postings of the slots taken are; allocated by the
  // first search needing them
  let keys = new Uint16Array(0)
  let found = new Int32Array(0)
  let keyCounts = new Int32Array(0)
  let keyTaken = new Uint8Array(0)
  let keyWhole = new Float64Array(0)
  let keySecond = new Float64Array(0)
  let keyClauses = new Float64Array(0)

  /** Room for the keys of every slot and of every key. */
  const fitKeys = (): void => {
    if (keys.length < capacity) {
      keys = new Uint16Array(capacity)
      found = new Int32Array(capacity)
    }
    if (keyCounts.length === 0) {
      const all = TermSets.keysOf(TermSets.MAX_TERMS)
      keyCounts = new Int32Array(all)
      keyTaken = new Uint8Array(all)
      keyWhole = new Float64Array(all)
      keySecond = new Float64Array(all)
      keyClauses = new Float64Array(all * MAX_CLAUSES)
    }
  }

  /**
   * The best `limit` hits of the query `plan` prepared, as `select` would return them after an
   * exhaustive `run`, or `undefined` when the term sets do not decide them; `bits` is what
   * `setBits` gave.
   *
   * One pass over the postings finds each slot's key: the query terms it holds and those its name
   * holds (`TermSets`). A key's slots score at most the sum of its terms' bounds: a term in the
   * name its largest impact and its most to name coverage (`boundOf`), a term outside it its
   * largest impact outside names; on the whole request, the second ranker and each clause. The
   * slots of the keys of the largest whole bounds, a few per hit asked for, are added up exactly
   * (every term in query order, as in `pruned`); then the slots of every key whose bounds could
   * change a scale of the fusion or reach the results (`matters`, against what the slots added up
   * so far scored), and so on, until no key left matters: the slots added up then decide the
   * results exactly.
   */
  const bySets = (bits: number, limit: number, accept: (id: string) => boolean): ReadonlyArray<Hit> | undefined => {
    const all = TermSets.keysOf(bits)
    const used = store.used()
    fitKeys()
    keys.fill(0, 0, used)
    keyCounts.fill(0, 0, all)
    keyTaken.fill(0, 0, all)
    const slots = store.postingSlots()
    const tfs = store.postingFrequencies()
    for (let t = 0; t < terms; t++) {
      const id = termIds[t] as number
      if (id < 0) continue
      const from = store.start(id)
      TermSets.addTerm(slots, tfs, from, from + store.df(id), tfMax, keys, termBits[t] as number, bits)
    }
    TermSets.count(keys, used, keyCounts)
    // each key's bounds, and the keys by their whole bound, largest first
    const order: Array<number> = []
    for (let key = 1; key < all; key++) {
      if ((keyCounts[key] as number) === 0) continue
      order.push(key)
      boundKey(key, bits)
    }
    order.sort((a, b) => (keyWhole[b] as number) - (keyWhole[a] as number))
    for (let c = 0; c < lastClauses; c++) {
      const alone = aloneIn(c)
      if (alone >= 0) knownClauses[c] = store.bestAlone(termIds[alone] as number)
    }
    // first the keys of the largest bounds, `setsRead` slots per hit asked for
    let taken = 0
    for (const key of order) {
      if (taken >= limit * pruning.setsRead) break
      keyTaken[key] = 1
      taken += keyCounts[key] as number
    }
    for (let round = 0; round < SET_ROUNDS; round++) {
      // each round adds up every slot taken from scratch: `finish` changes the rows it reads
      if (round > 0) nextStamp()
      let count = 0
      for (let t = 0; t < terms; t++) {
        const id = termIds[t] as number
        if (id < 0) continue
        const from = store.start(id)
        count = addTerm(t, count, TermSets.find(slots, from, from + store.df(id), keys, keyTaken, found))
      }
      const hits = finishAndSelect(count, limit, accept)
      // the slots of a key not taken score at most its bounds: the hits stand if none matters
      let more = false
      for (const key of order) {
        if (keyTaken[key] === 1) continue
        if (
          matters((keyWhole[key] as number) * SLACK, (keySecond[key] as number) * SLACK, keyClauses, key * MAX_CLAUSES)
        ) {
          keyTaken[key] = 1
          more = true
        }
      }
      if (!more) return hits
    }
    return undefined
  }

  /**
   * Gives each of the query's terms held by a tool its bit (`termBits`); returns how many have
   * one, or -1 when term sets are not worth finding: no term held by as many tools as
   * `chooseSkipped` skips, or more terms than a key holds.
   */
  const setBits = (): number => {
    const least = commonDf()
    let bits = 0
    let common = false
    for (let t = 0; t < terms; t++) {
      const id = termIds[t] as number
      termBits[t] = id < 0 || bits >= TermSets.MAX_TERMS ? 0 : 1 << bits
      if (id < 0) continue
      bits++
      if (store.df(id) >= least) common = true
    }
    return common && bits <= TermSets.MAX_TERMS ? bits : -1
  }

  /**
   * The bounds of the slots of `key` (of a query of `bits` terms with bits): each term it holds
   * adds its bound (`boundOf`) when the key's name holds it, else its largest impact outside names.
   */
  const boundKey = (key: number, bits: number): void => {
    let whole = 0
    let second = 0
    keyClauses.fill(0, key * MAX_CLAUSES, (key + 1) * MAX_CLAUSES)
    for (let t = 0; t < terms; t++) {
      const bit = termBits[t] as number
      if ((key & bit) === 0) continue
      const id = termIds[t] as number
      const inName = (key & (bit << bits)) !== 0
      const most = inName ? boundOf(t) : (termWeights[t] as number) * store.maxUnnamedImpact(id)
      whole += most
      if (fused) {
        second += (secondWeights[t] as number) * (inName ? store.maxImpact(id, 1) : store.maxUnnamedImpact(id, 1))
      }
      for (let c = 0, m = termMasks[t] as number; m !== 0; c++, m >>>= 1) {
        const at = key * MAX_CLAUSES + c
        if ((m & 1) !== 0) keyClauses[at] = (keyClauses[at] as number) + most
      }
    }
    keyWhole[key] = whole
    keySecond[key] = second
  }

  /** The best `limit` hits of a request, read with pruning when it decides them (same hits as `select(run(text))`). */
  const search = (text: string, limit: number, accept: (id: string) => boolean): ReadonlyArray<Hit> => {
    if (limit <= 0) return []
    if (!prunable) return select(run(text), limit, accept)
    const { expansion, parts } = requestOf(text)
    plan(text, parts, expansion.terms, expansion.weights)
    // a query of many postings goes by term sets when most slots hold several of its terms, or
    // when skipping does not decide the hits (a query of few postings is read at less cost)
    const { all, rarer } = postingCounts()
    const bits = all >= pruning.setsMinPostings ? setBits() : -1
    if (!(bits >= 0 && rarer >= pruning.setsShare * store.size()) && chooseSkipped(limit) > 0) {
      const hits = pruned(limit, accept)
      if (hits !== undefined) return hits
      nextStamp()
      skipped.fill(0)
      knownClauses.fill(0)
    }
    if (bits >= 0) {
      const hits = bySets(bits, limit, accept)
      if (hits !== undefined) return hits
      nextStamp()
      knownClauses.fill(0)
    }
    const count = addTerms()
    finish(count)
    return select(count, limit, accept)
  }

  const select = (count: number, limit: number, accept: (id: string) => boolean): ReadonlyArray<Hit> => {
    const top = new TopK(limit)
    if (limit <= 0) return []
    // most slots fail on the score alone; the id is looked up, and `accept` asked, only for the rest
    let floor = 0
    for (let i = 0; i < count; i++) {
      const slot = touched[i] as number
      const score = lastClauses > 0 || mixed ? scoreAt(i) : finalScore(slot)
      if (!(score > 0) || score < floor) continue
      const id = store.idAt(slot)
      if (top.wouldKeep(id, score) && accept(id)) {
        top.offer(id, score)
        floor = top.floor()
      }
    }
    return hitsOf(top)
  }

  const hitsOf = (top: TopK): ReadonlyArray<Hit> =>
    top.result().map((hit) => ({ id: hit.id, score: hit.score, strength: strengthOf(hit.id) }))

  return {
    run,
    touched: (i) => touched[i] as number,
    score: finalScore,
    select,
    search
  }
}

// The hot loops, as top-level functions over typed arrays so the engine compiles them tight.
// Each slot's sums add the query's terms in query order, whichever loop runs.

/** The index of the lowest set bit of `m` (not 0): the hot loops visit a mask's clauses by their set bits only. */
const lowestBit = (m: number): number => 31 - Math.clz32(m & -m)

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

/** Marks the slots of postings `[from, to)` with `stamp`. */
const markPostings = (slots: Int32Array, from: number, to: number, marks: Int32Array, stamp: number): void => {
  for (let i = from; i < to; i++) marks[slots[i] as number] = stamp
}

/**
 * The sums of the touched slots: a row of `width` numbers (the whole request's sums at `SCORE`,
 * `SECOND` and `HITS`, then from `ROW` a sum and name hits per clause of a request of several) per
 * touched slot in the order first touched, which clauses each row has a score in, and each
 * touched slot's row.
 */
interface Rows {
  readonly sums: Float64Array
  readonly width: number
  readonly masks: Int32Array
  readonly positions: Int32Array
}

/**
 * Adds one term's postings (with `marks`, only to the slots marked with `stamp`, or only to the
 * others; with `found`, only the postings at `found[from, to)`) to their slots' rows: the whole
 * request's sums, and those of the clauses in `mask`. A slot not stamped with `stamp` yet is
 * touched first: it gets the next row. Returns the new count of touched slots.
 */
const addPostings = (
  p: TermPostings,
  stamps: Int32Array,
  stamp: number,
  touched: Int32Array,
  count: number,
  mask: number,
  target: Rows,
  marks: Int32Array | undefined,
  marked: boolean,
  found?: Int32Array
): number => {
  const { from, impacts, secondImpacts, secondWeight, slots, tfMax, tfs, to, weight } = p
  const { masks, positions, sums: rows, width } = target
  for (let k = from; k < to; k++) {
    const i = found === undefined ? k : (found[k] as number)
    const slot = slots[i] as number
    if (marks !== undefined && (marks[slot] === stamp) !== marked) continue
    const impact = (impacts[i] as number) * weight
    const inName = ((tfs[i] as number) & tfMax) * weight // the name is field 0: its frequency is the low bits
    let seen = 0 // the clauses this slot already has a score in; entries of others are stale
    let position = count
    if (stamps[slot] !== stamp) {
      stamps[slot] = stamp
      const at = count * width
      rows[at + SCORE] = impact
      rows[at + HITS] = inName
      rows[at + SECOND] = (secondImpacts[i] as number) * secondWeight
      positions[slot] = count
      touched[count++] = slot
    } else {
      position = positions[slot] as number
      const at = position * width
      rows[at + SCORE] = (rows[at + SCORE] as number) + impact
      rows[at + HITS] = (rows[at + HITS] as number) + inName
      rows[at + SECOND] = (rows[at + SECOND] as number) + (secondImpacts[i] as number) * secondWeight
      seen = masks[position] as number
    }
    masks[position] = seen | mask
    const row = position * width + ROW
    for (let m = mask; m !== 0; m &= m - 1) {
      const c = lowestBit(m)
      const cat = row + 2 * c
      if ((seen & (1 << c)) === 0) {
        rows[cat] = impact
        rows[cat + 1] = inName
      } else {
        rows[cat] = (rows[cat] as number) + impact
        rows[cat + 1] = (rows[cat + 1] as number) + inName
      }
    }
  }
  return count
}

/**
 * The best score of a request of one clause (its BM25F sum plus name coverage) and the best sum
 * of the second ranker, over the touched slots' `rows`: the scales of the fusion. Writes each
 * slot's score (`scores`) and second ranker's sum (`seconds`) in `touched` order, for the
 * selection to read.
 */
const wholeBests = (
  touched: Int32Array,
  count: number,
  rows: Float64Array,
  names: Uint16Array,
  nameCoverage: number,
  scores: Float64Array,
  seconds: Float64Array
): Bests => {
  let best = 0
  let bestSecond = 0
  for (let i = 0; i < count; i++) {
    const slot = touched[i] as number
    const at = i * ROW
    let score = rows[at + SCORE] as number
    if (nameCoverage !== 0) {
      const hits = rows[at + HITS] as number
      const length = names[slot] as number
      score = score + coverageOf(nameCoverage, hits, length)
    }
    scores[i] = score
    if (score > best) best = score
    const other = rows[at + SECOND] as number
    seconds[i] = other
    if (other > bestSecond) bestSecond = other
  }
  return { whole: best, second: bestSecond, clauses: NO_CLAUSES, fused: best }
}

const NO_CLAUSES = new Float64Array(0)

/** The best scores of the touched slots on each scale of the fusion. */
interface Bests {
  /** The whole request's score (BM25F sum plus name coverage). */
  readonly whole: number
  /** The second ranker's sum. */
  readonly second: number
  /** Each clause's score (with name coverage), with several clauses. */
  readonly clauses: Float64Array
  /** The clause fusion's score, with several clauses. */
  readonly fused: number
}

/**
 * Turns whole-request and clause scores into the fused score of every touched slot:
 * `(1 − w) · whole / best whole + w · max over clauses (clause / best of that clause)`, name
 * coverage added to the whole and to each clause first. Writes each slot's fused score
 * (`scores`) and second ranker's sum (`seconds`) in `touched` order, as the clause rows, so the
 * later passes read them in order; each slot's sum before additions stays in its row (the
 * numerator of its strength). Returns the best score on each scale.
 */
const fuseClauses = (
  touched: Int32Array,
  count: number,
  clauseCount: number,
  state: {
    readonly names: Uint16Array
    readonly nameCoverage: number
    readonly clauseWeight: number
    /** The clause rows of the touched slots, in `touched` order (`Rows`). */
    readonly rows: Float64Array
    readonly clauseMasks: Int32Array
    /** Where the fused score and the second ranker's sum of each touched slot go, in `touched` order. */
    readonly scores: Float64Array
    readonly seconds: Float64Array
    /** Each clause's best score over every tool when known (0: the best of the touched slots). */
    readonly known: Float64Array
  }
): Bests => {
  const { clauseMasks, rows, clauseWeight, known, nameCoverage, names, scores, seconds } = state
  const width = ROW + 2 * clauseCount
  let best = 0
  let bestSecond = 0
  const bestOfClause = known.slice(0, clauseCount)
  for (let i = 0; i < count; i++) {
    const at = i * width
    const length = names[touched[i] as number] as number
    const hits = rows[at + HITS] as number
    const r = rows[at + SCORE] as number
    const s = r + coverageOf(nameCoverage, hits, length)
    scores[i] = s
    if (s > best) best = s
    const other = rows[at + SECOND] as number
    seconds[i] = other
    if (other > bestSecond) bestSecond = other
    const row = at + ROW
    for (let m = clauseMasks[i] as number; m !== 0; m &= m - 1) {
      const c = lowestBit(m)
      const cat = row + 2 * c
      const h = rows[cat + 1] as number
      const w = (rows[cat] as number) + coverageOf(nameCoverage, h, length)
      rows[cat] = w
      if (w > (bestOfClause[c] as number)) bestOfClause[c] = w
    }
  }
  const clauses = bestOfClause.slice()
  for (let c = 0; c < clauseCount; c++) {
    const b = bestOfClause[c] as number
    bestOfClause[c] = b > 0 ? 1 / b : 0
  }
  const whole = (1 - clauseWeight) / best
  let bestFused = 0
  for (let i = 0; i < count; i++) {
    const row = i * width + ROW
    let clause = 0
    for (let m = clauseMasks[i] as number; m !== 0; m &= m - 1) {
      const c = lowestBit(m)
      const v = (rows[row + 2 * c] as number) * (bestOfClause[c] as number)
      if (v > clause) clause = v
    }
    const v = whole * (scores[i] as number) + clauseWeight * clause
    scores[i] = v
    if (v > bestFused) bestFused = v
  }
  return { whole: best, second: bestSecond, clauses, fused: bestFused }
}
