/**
 * Dynamic pruning for the BM25F scorer (MaxScore with per-term upper bounds, over the scorer's
 * term-at-a-time partial sums): once the terms read so far decide, the slots that can no longer
 * be among the best `limit` hits leave the query, and the remaining terms are added to the slots
 * left only, from their postings or from the forward index. The sums of the slots left are made
 * in the scorer's order and arithmetic, so pruning never changes a score, only how fast it comes.
 *
 * The scorer's normalizations (clauses, fusion) divide by the best score of each ranking, so the
 * holders of those bests are found exactly (scored in full) and kept.
 *
 * @internal
 */
import { TopK } from "../TopK.js"
import type { Postings, Store } from "./Store.js"

/** At most this many clauses are ranked separately; the clause rows of the scratch arrays have this width. */
export const MAX_CLAUSES = 8

// How many of the most promising slots a pruning check scores in full to raise its threshold, and
// how many it scores in full at most (at least 4 × the limit) before it gives up for now.
const EXACT_PICKS = 32
const EXACT_CAP = 512

// Pruning widens its bounds by this factor: sums in another order may round differently.
const SLACK = 1 + 1e-9

/** A query term some tool has, with what pruning needs to know of it. */
export interface Term {
  readonly id: number
  readonly p: Postings
  /** The term's weight in the first ranker and in the second (expansions weigh the same in both). */
  readonly weight: number
  readonly secondWeight: number
  /** The clauses it occurs in (a bit mask; 0 with one clause or for an expansion). */
  readonly mask: number
  /** The most it can add to a tool's first score (impact and name coverage) and to its second. */
  readonly bound: number
  readonly secondBound: number
  /** Its place in the request, the tie-breaker of the order. */
  readonly index: number
}

/**
 * The scorer's per-query state, read at the start of each call (the arrays are reallocated when
 * the store grows; the pruner writes into them).
 */
export interface Scratch {
  /** The first ranker's sums (before name coverage), per slot. */
  readonly scores: Float64Array
  /** The second ranker's sums, when fused. */
  readonly second: Float64Array
  /** The name hits of the first ranker's sums, per slot. */
  readonly nameHits: Float64Array
  /** The slots of the query: `stamps[slot] === stamp`; a pruned slot's stamp is set to 0. */
  readonly stamps: Uint32Array
  readonly stamp: number
  /** The query's slots; the slots left are moved to the front. */
  readonly touched: Int32Array
  /** Per-clause sums and name hits, `[slot * MAX_CLAUSES + clause]`, and which clauses a slot has. */
  readonly clauseScores: Float64Array
  readonly clauseNameHits: Float64Array
  readonly slotMasks: Int32Array
  /** How many clauses the query has (0: one). */
  readonly clauses: number
  /** The name coverage bonus of a slot with `hits` name hits. */
  readonly coverage: (slot: number, hits: number) => number
}

/** Prunes the current query of a scorer. */
export interface Pruner {
  /**
   * With the terms before `from` read: which slots can still be among the best `limit` accepted
   * (moved to the front of `touched`; their number), or −1 when none can be ruled out yet.
   */
  readonly prune: (
    count: number,
    live: ReadonlyArray<Term>,
    from: number,
    clauseCount: number,
    limit: number,
    accept: (id: string) => boolean
  ) => number
  /** After a successful `prune`, adds the terms from `from` on to the slots left; their number. */
  readonly refine: (kept: number, live: ReadonlyArray<Term>, from: number, clausal: boolean) => number
}

/** A pruner over `store` for a scorer with these clause and fusion weights, reading its state from `scratch`. */
export const make = (
  store: Store,
  weights: { readonly clauseWeight: number; readonly fusionWeight: number },
  scratch: Scratch
): Pruner => {
  const { clauseWeight, fusionWeight } = weights
  const tfMax = store.tfMax
  // the scorer's state, as `sync` last read it
  let scores: Float64Array = new Float64Array(0)
  let second: Float64Array = new Float64Array(0)
  let nameHits: Float64Array = new Float64Array(0)
  let stamps: Uint32Array = new Uint32Array(0)
  let stamp = 0
  let touched: Int32Array = new Int32Array(0)
  let clauseScores: Float64Array = new Float64Array(0)
  let clauseNameHits: Float64Array = new Float64Array(0)
  let slotMasks: Int32Array = new Int32Array(0)
  let coverage = scratch.coverage

  /** Reads the scorer's state, and fits the per-slot arrays to its capacity. */
  const sync = (): void => {
    scores = scratch.scores
    second = scratch.second
    nameHits = scratch.nameHits
    stamps = scratch.stamps
    stamp = scratch.stamp
    touched = scratch.touched
    clauseScores = scratch.clauseScores
    clauseNameHits = scratch.clauseNameHits
    slotMasks = scratch.slotMasks
    coverage = scratch.coverage
    if (exactAt.length < touched.length) {
      lowV = new Float64Array(touched.length)
      highV = new Float64Array(touched.length)
      exactAt = new Uint32Array(touched.length)
      exactIndex = new Int32Array(touched.length)
      checkStamp = 0
    }
  }

  /**
   * After a successful `prune`, the remaining terms for the slots left: each term's list is read
   * for them alone (`addKnown…`, in reading order) until reading the slots' own terms (the forward
   * index) costs less than the remaining lists. (Checking again after each term dropped more slots
   * but cost more than it saved, measured on seal-tools and the 10,000-tool catalog.)
   */
  const refineSynced = (kept: number, live: ReadonlyArray<Term>, from: number, clausal: boolean): number => {
    let remaining = 0
    for (let r = from; r < live.length; r++) remaining += (live[r] as Term).p.size
    const perSlot = store.meanTerms()
    for (let r = from; r < live.length; r++) {
      if (kept * perSlot <= remaining) {
        complete(kept, live, r, clausal)
        return kept
      }
      const term = live[r] as Term
      const p = term.p
      remaining -= p.size
      if (clausal) {
        addKnownClausePostings(p, store.impactsOf(p), term.weight, tfMax, stamps, stamp, scores, nameHits, term.mask, {
          clauseScores,
          clauseNameHits,
          slotMasks
        })
      } else addKnownPostings(p, store.impactsOf(p), term.weight, tfMax, stamps, stamp, scores, nameHits)
      if (fusionWeight > 0) addKnownSecond(p, store.impactsOf(p, 1), term.secondWeight, stamps, stamp, second)
    }
    return kept
  }

  // What the remaining terms of a check can still add: to the first score, to each clause.
  const restOfClause = new Float64Array(MAX_CLAUSES)
  const inverses = new Float64Array(MAX_CLAUSES)
  // The best values of the first score's clauses (partial, then exact).
  const clauseBests = new Float64Array(MAX_CLAUSES)
  // Per touched position during a check: bounds of the first ranker's value, then of the final value.
  let lowV = new Float64Array(0)
  let highV = new Float64Array(0)
  // Slots a check scored in full: `exactAt[slot] === checkStamp`, their values at `exactIndex[slot]`.
  let exactAt = new Uint32Array(0)
  let exactIndex = new Int32Array(0)
  let checkStamp = 0
  let exactCount = 0
  let exactScores = new Float64Array(0) // the first score with name coverage
  let exactSeconds = new Float64Array(0)
  let exactClauses = new Float64Array(0) // MAX_CLAUSES per slot, with name coverage; 0 where absent
  let exactValues = new Float64Array(0) // the first ranker's value (with clauses: their fusion)
  // The positions (in `touched`) of a check's best heuristic values, and those values, best first.
  let pickPlaces = new Int32Array(0)
  let pickValues = new Float64Array(0)

  /** Scores a touched slot in full (its remaining terms from the forward index) and keeps its exact values. */
  const scoreExactly = (slot: number, live: ReadonlyArray<Term>, clauseCount: number): number => {
    if (exactAt[slot] === checkStamp) return exactIndex[slot] as number
    const e = exactCount++
    if (e >= exactScores.length) {
      const size = Math.max(64, exactScores.length * 2)
      const grow = (a: Float64Array, n: number) => {
        const b = new Float64Array(n)
        b.set(a)
        return b
      }
      exactScores = grow(exactScores, size)
      exactSeconds = grow(exactSeconds, size)
      exactValues = grow(exactValues, size)
      exactClauses = grow(exactClauses, size * MAX_CLAUSES)
    }
    exactAt[slot] = checkStamp
    exactIndex[slot] = e
    full(slot, live)
    exactScores[e] = full.score + coverage(slot, full.nameHits)
    exactSeconds[e] = full.second
    for (let c = 0; c < clauseCount; c++) {
      exactClauses[e * MAX_CLAUSES + c] = (full.mask >>> c & 1) !== 0
        ? (full.clauses[c] as number) + coverage(slot, full.clauseHits[c] as number)
        : 0
    }
    return e
  }

  /** Whether a touched slot's partial values plus the remaining bounds reach a best known. */
  const couldHoldBest = (
    slot: number,
    clauseCount: number,
    rest: number,
    best: number,
    restSecond: number,
    bestSecond: number
  ): boolean => {
    if (((scores[slot] as number) + coverage(slot, nameHits[slot] as number) + rest) * SLACK >= best) return true
    if (fusionWeight > 0 && ((second[slot] as number) + restSecond) * SLACK >= bestSecond) return true
    const row = slot * MAX_CLAUSES
    const m = slotMasks[slot] as number
    for (let c = 0; c < clauseCount; c++) {
      const b = clauseBests[c] as number
      if (!(b > 0)) continue
      const w = (m >>> c & 1) !== 0
        ? (clauseScores[row + c] as number) + coverage(slot, clauseNameHits[row + c] as number)
        : 0
      // with no term left, the holder of a clause's best is found here too (its partial value is exact)
      if ((w + (restOfClause[c] as number)) * SLACK >= b) return true
    }
    return false
  }

  /**
   * Dynamic pruning (MaxScore with the terms' bounds, over term-at-a-time partial sums): with the
   * terms before `from` read, whether the slots no term touched yet can be skipped, and which
   * touched slots can still matter. A touched slot's score lies between its partial sums and those
   * sums plus the remaining terms' bounds; an untouched slot's is at most those bounds.
   *
   * Scores are normalized by the best of each ranking (the first score, each clause, the fusion's
   * two rankers), so those bests are found exactly first: the slots that could hold one (partial
   * value plus bounds at least the best known) are scored in full from the forward index, the most
   * promising slots first (their exact values make the best known high). Then `θ`, the `limit`-th
   * best lower bound among accepted slots, drops every slot whose upper bound is below it. The
   * slots left, and the bests' holders (so normalizing later finds the same bests), are moved to
   * the front of `touched` and their number returned; −1 when no untouched slot can be ruled out
   * yet, or when too many slots would need scoring in full.
   */
  const pruneSynced: Pruner["prune"] = (count, live, from, clauseCount, limit, accept) => {
    const multi = clauseCount > 0
    const fused = fusionWeight > 0
    const normalized = multi || fused
    let rest = 0
    let restSecond = 0
    restOfClause.fill(0)
    for (let r = from; r < live.length; r++) {
      const term = live[r] as Term
      rest += term.bound
      restSecond += term.secondBound
      for (let c = 0, m = term.mask; m !== 0; c++, m >>>= 1) {
        if ((m & 1) !== 0) restOfClause[c] = (restOfClause[c] as number) + term.bound
      }
    }
    // sums in another order may round differently: bounds are widened, never trusted to the last bit
    rest *= SLACK
    restSecond *= SLACK
    for (let c = 0; c < clauseCount; c++) restOfClause[c] = (restOfClause[c] as number) * SLACK
    // without a pass over the slots: the terms read so far must be able to outscore the rest
    let read = 0
    let readSecond = 0
    if (normalized) {
      clauseBests.fill(0)
      for (let r = 0; r < from; r++) {
        const term = live[r] as Term
        read += term.bound
        readSecond += term.secondBound
        for (let c = 0, m = term.mask; m !== 0; c++, m >>>= 1) {
          if ((m & 1) !== 0) clauseBests[c] = (clauseBests[c] as number) + term.bound
        }
      }
      if (!(rest < read) || (fused && !(restSecond < readSecond))) return -1
      for (let c = 0; c < clauseCount; c++) {
        if ((restOfClause[c] as number) > 0 && !((restOfClause[c] as number) < (clauseBests[c] as number))) return -1
      }
    }

    // one pass: the best partial values, and the most promising slots (by partial values, normalized
    // by what the terms read so far could give at most) to score in full
    checkStamp = (checkStamp + 1) >>> 0
    if (checkStamp === 0) {
      exactAt.fill(0)
      checkStamp = 1
    }
    exactCount = 0
    const cap = Math.max(EXACT_CAP, 4 * limit)
    const picks = Math.min(count, Math.max(2 * limit, EXACT_PICKS))
    if (pickPlaces.length < picks) {
      pickPlaces = new Int32Array(picks)
      pickValues = new Float64Array(picks)
    }
    let picked = 0
    let floor = -Infinity
    const toFirst = normalized ? (1 - fusionWeight) / read : 1
    const toSecond = fused ? fusionWeight / readSecond : 0
    let best = 0
    let bestSecond = 0
    clauseBests.fill(0)
    for (let i = 0; i < count; i++) {
      const slot = touched[i] as number
      const s = (scores[slot] as number) + coverage(slot, nameHits[slot] as number)
      if (s > best) best = s
      const s2 = fused ? second[slot] as number : 0
      if (s2 > bestSecond) bestSecond = s2
      if (multi) {
        const row = slot * MAX_CLAUSES
        for (let c = 0, m = slotMasks[slot] as number; m !== 0; c++, m >>>= 1) {
          if ((m & 1) === 0) continue
          const w = (clauseScores[row + c] as number) + coverage(slot, clauseNameHits[row + c] as number)
          if (w > (clauseBests[c] as number)) clauseBests[c] = w
        }
      }
      const h = toFirst * s + toSecond * s2
      if (picked === picks && !(h > floor)) continue
      let at = picked < picks ? picked++ : picks - 1
      while (at > 0 && (pickValues[at - 1] as number) < h) {
        pickValues[at] = pickValues[at - 1] as number
        pickPlaces[at] = pickPlaces[at - 1] as number
        at--
      }
      pickValues[at] = h
      pickPlaces[at] = i
      if (picked === picks) floor = pickValues[picks - 1] as number
    }
    // an untouched slot could still hold a best
    if (normalized && !(rest < best)) return -1
    if (fused && !(restSecond < bestSecond)) return -1
    for (let c = 0; c < clauseCount; c++) {
      if ((restOfClause[c] as number) > 0 && !((restOfClause[c] as number) < (clauseBests[c] as number))) return -1
    }

    markFrom(live, from)
    for (let q = 0; q < picked; q++) scoreExactly(touched[pickPlaces[q] as number] as number, live, clauseCount)

    // the bests, exactly: every slot that could hold one is scored in full (too many: give up for now)
    const raiseBests = (): void => {
      for (let e = 0; e < exactCount; e++) {
        if ((exactScores[e] as number) > best) best = exactScores[e] as number
        if ((exactSeconds[e] as number) > bestSecond) bestSecond = exactSeconds[e] as number
        for (let c = 0; c < clauseCount; c++) {
          const w = exactClauses[e * MAX_CLAUSES + c] as number
          if (w > (clauseBests[c] as number)) clauseBests[c] = w
        }
      }
    }
    raiseBests()
    if (normalized) {
      for (let i = 0; i < count; i++) {
        const slot = touched[i] as number
        if (exactAt[slot] === checkStamp) continue
        if (!couldHoldBest(slot, clauseCount, rest, best, restSecond, bestSecond)) continue
        if (exactCount >= cap) return -1
        scoreExactly(slot, live, clauseCount)
      }
      raiseBests()
    }

    // the first ranker's value: the score, or with clauses `(1 − w) · s / best + w · max_c (s_c / best_c)`,
    // in the arithmetic of `fuseClauses`, so a best found here is the best it finds
    const cw = clauseWeight
    const whole = (1 - cw) / best
    for (let c = 0; c < clauseCount; c++) {
      const b = clauseBests[c] as number
      inverses[c] = b > 0 ? 1 / b : 0
    }
    for (let e = 0; e < exactCount; e++) {
      let v = exactScores[e] as number
      if (multi) {
        let clause = 0
        for (let c = 0; c < clauseCount; c++) {
          const x = (exactClauses[e * MAX_CLAUSES + c] as number) * (inverses[c] as number)
          if (x > clause) clause = x
        }
        v = whole * v + cw * clause
      }
      exactValues[e] = v
    }
    let untouchedV = rest
    if (multi) {
      let clause = 0
      for (let c = 0; c < clauseCount; c++) {
        const x = (restOfClause[c] as number) * (inverses[c] as number)
        if (x > clause) clause = x
      }
      untouchedV = whole * rest + cw * clause
    }
    for (let i = 0; i < count; i++) {
      const slot = touched[i] as number
      if (exactAt[slot] === checkStamp) {
        const v = exactValues[exactIndex[slot] as number] as number
        lowV[i] = v
        highV[i] = v
        continue
      }
      const s = (scores[slot] as number) + coverage(slot, nameHits[slot] as number)
      if (!multi) {
        lowV[i] = s
        highV[i] = s + rest
        continue
      }
      const row = slot * MAX_CLAUSES
      const m = slotMasks[slot] as number
      let low = 0
      let high = 0
      for (let c = 0; c < clauseCount; c++) {
        const w = (m >>> c & 1) !== 0
          ? (clauseScores[row + c] as number) + coverage(slot, clauseNameHits[row + c] as number)
          : 0
        const inverse = inverses[c] as number
        if (w * inverse > low) low = w * inverse
        if ((w + (restOfClause[c] as number)) * inverse > high) high = (w + (restOfClause[c] as number)) * inverse
      }
      lowV[i] = whole * s + cw * low
      highV[i] = whole * (s + rest) + cw * high
    }
    let bestV = best
    if (fused && multi) {
      // the best value of the first ranker, exactly (with one clause it is `best`)
      bestV = 0
      for (let e = 0; e < exactCount; e++) bestV = Math.max(bestV, exactValues[e] as number)
      if (!(untouchedV * SLACK < bestV)) return -1
      for (let i = 0; i < count; i++) {
        const slot = touched[i] as number
        if (exactAt[slot] === checkStamp || (highV[i] as number) * SLACK < bestV) continue
        if (exactCount >= cap) return -1
        const e = scoreExactly(slot, live, clauseCount)
        let clause = 0
        for (let c = 0; c < clauseCount; c++) {
          const x = (exactClauses[e * MAX_CLAUSES + c] as number) * (inverses[c] as number)
          if (x > clause) clause = x
        }
        const v = whole * (exactScores[e] as number) + cw * clause
        exactValues[e] = v
        lowV[i] = v
        highV[i] = v
        if (v > bestV) bestV = v
      }
    }

    // bounds of the final value, and θ: the `limit`-th best lower bound among accepted slots
    const fw = fusionWeight
    const toV = fused ? (1 - fw) / bestV : 1
    const toS = fused ? fw / bestSecond : 0
    const untouched = toV * untouchedV + toS * restSecond
    const top = new TopK(limit)
    for (let i = 0; i < count; i++) {
      const slot = touched[i] as number
      const s2 = fused ? second[slot] as number : 0
      const exact = exactAt[slot] === checkStamp
      const lo = toV * (lowV[i] as number) + toS * (exact ? exactSeconds[exactIndex[slot] as number] as number : s2)
      highV[i] = toV * (highV[i] as number) +
        toS * (exact ? exactSeconds[exactIndex[slot] as number] as number : s2 + restSecond)
      if (!(lo > 0) || lo < top.floor()) continue
      const id = store.idAt(slot)
      if (top.wouldKeep(id, lo) && accept(id)) top.offer(id, lo)
    }
    const theta = top.floor()
    if (!(untouched * SLACK < theta)) return -1

    // the slots left, and the holders of the bests; the others leave the query (stamp 0)
    let kept = 0
    for (let i = 0; i < count; i++) {
      const slot = touched[i] as number
      let keep = (highV[i] as number) * SLACK >= theta
      if (!keep && normalized && exactAt[slot] === checkStamp) {
        const e = exactIndex[slot] as number
        keep = (exactScores[e] as number) * SLACK >= best ||
          (fused && (exactSeconds[e] as number) * SLACK >= bestSecond) ||
          (fused && multi && (exactValues[e] as number) * SLACK >= bestV)
        for (let c = 0; c < clauseCount && !keep; c++) {
          const b = clauseBests[c] as number
          keep = b > 0 && (exactClauses[e * MAX_CLAUSES + c] as number) * SLACK >= b
        }
      }
      if (keep) touched[kept++] = slot
      else stamps[slot] = 0
    }
    return kept
  }

  // A slot's sums with the marked terms added, for `scoreExactly` (read from `full` after a call).
  const clauseSums = new Float64Array(MAX_CLAUSES)
  const clauseHitSums = new Float64Array(MAX_CLAUSES)
  const found: Array<number> = []
  let packedOf = new Int32Array(16)
  // Marks the remaining terms by term id while slots are completed from the forward index.
  let termMarks = new Int32Array(0)
  let termPlaces = new Int32Array(0)
  let markStamp = 0

  /** Marks the terms from `from` on by term id, with their place in `live`. */
  const markFrom = (live: ReadonlyArray<Term>, from: number): void => {
    let most = 0
    for (let r = from; r < live.length; r++) most = Math.max(most, (live[r] as Term).id)
    if (most >= termMarks.length) {
      const size = Math.max(most + 1, termMarks.length * 2, 1024)
      termMarks = new Int32Array(size)
      termPlaces = new Int32Array(size)
      markStamp = 0
    }
    markStamp++
    for (let r = from; r < live.length; r++) {
      const id = (live[r] as Term).id
      termMarks[id] = markStamp
      termPlaces[id] = r
    }
    if (packedOf.length < live.length) packedOf = new Int32Array(live.length * 2)
  }

  /** The places (in `live`) of the marked terms a slot has, in reading order; their packed frequencies in `packedOf`. */
  const markedTermsOf = (slot: number): ReadonlyArray<number> => {
    const terms = store.termsAt(slot) as Int32Array // a touched slot holds a document
    const tfs = store.frequenciesAt(slot) as Int32Array
    found.length = 0
    for (let e = 0; e < terms.length; e++) {
      const id = terms[e] as number
      if (termMarks[id] !== markStamp) continue
      const r = termPlaces[id] as number
      found.push(r)
      packedOf[r] = tfs[e] as number
    }
    if (found.length > 1) found.sort((a, b) => a - b)
    return found
  }

  /** A touched slot's sums with the marked terms added; the scratch arrays are left as they are. */
  const full = Object.assign((slot: number, live: ReadonlyArray<Term>): void => {
    let score = scores[slot] as number
    let hits = nameHits[slot] as number
    let secondSum = fusionWeight > 0 ? second[slot] as number : 0
    let mask = 0
    const clausal = scratch.clauses > 0
    if (clausal) {
      mask = slotMasks[slot] as number
      const row = slot * MAX_CLAUSES
      for (let c = 0; c < MAX_CLAUSES; c++) {
        clauseSums[c] = (mask >>> c & 1) !== 0 ? clauseScores[row + c] as number : 0
        clauseHitSums[c] = (mask >>> c & 1) !== 0 ? clauseNameHits[row + c] as number : 0
      }
    }
    for (const r of markedTermsOf(slot)) {
      const term = live[r] as Term
      const packed = packedOf[r] as number
      const impact = store.impactAt(slot, packed, term.p.size) * term.weight
      const inName = (packed & tfMax) * term.weight
      score += impact
      hits += inName
      if (clausal) {
        for (let c = 0, m = term.mask; m !== 0; c++, m >>>= 1) {
          if ((m & 1) === 0) continue
          clauseSums[c] = (mask >>> c & 1) !== 0 ? (clauseSums[c] as number) + impact : impact
          clauseHitSums[c] = (mask >>> c & 1) !== 0 ? (clauseHitSums[c] as number) + inName : inName
        }
        mask |= term.mask
      }
      if (fusionWeight > 0) secondSum += store.impactAt(slot, packed, term.p.size, 1) * term.secondWeight
    }
    full.score = score
    full.nameHits = hits
    full.second = secondSum
    full.mask = mask
  }, { score: 0, nameHits: 0, second: 0, mask: 0, clauses: clauseSums, clauseHits: clauseHitSums })

  /**
   * Adds the terms from `from` on to the first `count` touched slots, reading each slot's own terms
   * (the forward index) instead of the terms' postings, in the same order and arithmetic as
   * `addPostings`, `addClausePostings` and `addSecond`, so the sums equal an unpruned run's.
   */
  const complete = (count: number, live: ReadonlyArray<Term>, from: number, clausal: boolean): void => {
    markFrom(live, from)
    for (let i = 0; i < count; i++) {
      const slot = touched[i] as number
      for (const r of markedTermsOf(slot)) {
        const term = live[r] as Term
        const packed = packedOf[r] as number
        const impact = store.impactAt(slot, packed, term.p.size) * term.weight
        const inName = (packed & tfMax) * term.weight
        scores[slot] = (scores[slot] as number) + impact
        nameHits[slot] = (nameHits[slot] as number) + inName
        if (clausal) {
          const row = slot * MAX_CLAUSES
          const seen = slotMasks[slot] as number
          slotMasks[slot] = seen | term.mask
          addToClauses(clauseScores, clauseNameHits, row, seen, term.mask, impact, inName)
        }
        if (fusionWeight > 0) {
          second[slot] = (second[slot] as number) + store.impactAt(slot, packed, term.p.size, 1) * term.secondWeight
        }
      }
    }
  }

  return {
    prune: (count, live, from, clauseCount, limit, accept) => {
      sync()
      return pruneSynced(count, live, from, clauseCount, limit, accept)
    },
    refine: (kept, live, from, clausal) => {
      sync()
      return refineSynced(kept, live, from, clausal)
    }
  }
}

/**
 * Adds one posting's impact and name hits to the clauses in `mask` of a slot's clause row: a clause
 * the slot had no score in yet (not in `seen`) starts from them (its entry is stale).
 */
export const addToClauses = (
  clauseScores: Float64Array,
  clauseNameHits: Float64Array,
  row: number,
  seen: number,
  mask: number,
  impact: number,
  inName: number
): void => {
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

/** `addPostings` for the slots still in the query only (stamped), touching no other. */
const addKnownPostings = (
  p: Postings,
  impacts: Float32Array,
  weight: number,
  tfMax: number,
  stamps: Uint32Array,
  stamp: number,
  scores: Float64Array,
  nameHits: Float64Array
): void => {
  const slots = p.slots
  const tfs = p.tfs
  const df = p.size
  for (let i = 0; i < df; i++) {
    const slot = slots[i] as number
    if (stamps[slot] !== stamp) continue
    scores[slot] = (scores[slot] as number) + (impacts[i] as number) * weight
    nameHits[slot] = (nameHits[slot] as number) + ((tfs[i] as number) & tfMax) * weight
  }
}

/** `addClausePostings` for the slots still in the query only. */
const addKnownClausePostings = (
  p: Postings,
  impacts: Float32Array,
  weight: number,
  tfMax: number,
  stamps: Uint32Array,
  stamp: number,
  scores: Float64Array,
  nameHits: Float64Array,
  mask: number,
  clause: {
    readonly clauseScores: Float64Array
    readonly clauseNameHits: Float64Array
    readonly slotMasks: Int32Array
  }
): void => {
  const { clauseNameHits, clauseScores, slotMasks } = clause
  const slots = p.slots
  const tfs = p.tfs
  const df = p.size
  for (let i = 0; i < df; i++) {
    const slot = slots[i] as number
    if (stamps[slot] !== stamp) continue
    const impact = (impacts[i] as number) * weight
    const inName = ((tfs[i] as number) & tfMax) * weight
    scores[slot] = (scores[slot] as number) + impact
    nameHits[slot] = (nameHits[slot] as number) + inName
    const seen = slotMasks[slot] as number
    slotMasks[slot] = seen | mask
    const row = slot * MAX_CLAUSES
    addToClauses(clauseScores, clauseNameHits, row, seen, mask, impact, inName)
  }
}

/** `addSecond` for the slots still in the query only. */
const addKnownSecond = (
  p: Postings,
  impacts: Float32Array,
  weight: number,
  stamps: Uint32Array,
  stamp: number,
  second: Float64Array
): void => {
  const slots = p.slots
  const df = p.size
  for (let i = 0; i < df; i++) {
    const slot = slots[i] as number
    if (stamps[slot] === stamp) second[slot] = (second[slot] as number) + (impacts[i] as number) * weight
  }
}
