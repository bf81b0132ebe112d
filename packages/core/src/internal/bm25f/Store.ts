/**
 * The documents of one BM25F index and the postings of every term, updated in place: `add` and
 * `remove` change postings, document frequencies and field length totals, and nothing is ever
 * rebuilt. Documents live in slots; freed slots are reused.
 *
 * Postings are packed in typed arrays: a slot number, and the per-field term frequencies in one
 * 32-bit word (`tfBits` bits per field). Each posting's score contribution (its *impact*) is cached
 * per term and per scoring (a store can be scored with several parameter sets, for fusion) and
 * recomputed lazily by the first query after a write, with the term's largest impact (its upper
 * bound, for pruning). Each document also keeps its own terms and packed frequencies (a forward
 * index), for pseudo-relevance feedback and for scoring a candidate's remaining terms directly.
 *
 * @internal
 */
import type { Analyzer } from "../../Analyzer.js"
import * as Vocabulary from "./Vocabulary.js"

/** The postings of one term: a growable list. */
export interface Postings {
  slots: Int32Array
  tfs: Int32Array
  size: number
  /** Each posting's score contribution per scoring, valid while its version equals the store's. */
  readonly impacts: Array<Float32Array | undefined>
  readonly impactVersions: Array<number>
  /** The largest impact per scoring, valid with the impacts. */
  readonly maxImpacts: Array<number>
}

/** How impacts are computed. */
export interface Scoring {
  readonly k1: number
  readonly b: number
  /** Weight of each field, in packing order. */
  readonly weights: Float64Array
}

/** The documents and postings of an index. */
export interface Store {
  readonly fieldCount: number
  /** Bits per field in a packed frequency word; `tfMax` is the largest count kept. */
  readonly tfBits: number
  readonly tfMax: number
  readonly vocabulary: Vocabulary.Vocabulary
  /** Adds or replaces a document from the texts of its fields, in packing order. */
  readonly add: (id: string, fields: ReadonlyArray<string>) => void
  readonly remove: (id: string) => void
  /** Marks the end of a write: impacts and averages are recomputed by the next query. */
  readonly commit: () => void
  readonly slotOf: (id: string) => number | undefined
  /** The id in a slot ("" when free). */
  readonly idAt: (slot: number) => string
  /** The length of a field of a slot, in terms. */
  readonly lengthAt: (slot: number, field: number) => number
  /** Every field length, `fieldCount` per slot (valid until the next write): for hot loops. */
  readonly lengths: () => Uint16Array
  /** Slots allocated so far: every slot number is below it. */
  readonly capacity: () => number
  readonly size: () => number
  readonly postings: (termId: number) => Postings
  /** The impacts of a term's postings under a scoring (default the first), computed now if a write happened since. */
  readonly impactsOf: (p: Postings, scoring?: number) => Float32Array
  /** The largest impact of a term's postings under a scoring (computes the impacts if needed). */
  readonly maxImpactOf: (p: Postings, scoring?: number) => number
  /** The term ids of a slot's document (its forward index), or `undefined` when free. */
  readonly termsAt: (slot: number) => Int32Array | undefined
  /** The packed field frequencies of a slot's terms, parallel to `termsAt`. */
  readonly frequenciesAt: (slot: number) => Int32Array | undefined
  /** The impact of one term with document frequency `df` and packed frequencies `packed` in a slot. */
  readonly impactAt: (slot: number, packed: number, df: number, scoring?: number) => number
  /** The average length of each field (valid until the next write). */
  readonly averages: () => Float64Array
}

/** An empty store for documents of `fieldCount` fields, scored with `scorings` (at least one). */
export const make = (
  analyzer: Analyzer,
  fieldCount: number,
  scorings: Scoring | ReadonlyArray<Scoring>
): Store => {
  const tfBits = Math.min(5, Math.floor(30 / fieldCount))
  const tfMax = (1 << tfBits) - 1
  const scoringList: ReadonlyArray<Scoring> = Array.isArray(scorings) ? scorings : [scorings as Scoring]

  const slotOf = new Map<string, number>()
  const ids: Array<string> = []
  let lengths = new Uint16Array(0) // fieldCount per slot
  // The forward index: each slot's term ids and packed frequencies, in two shared arenas (one
  // allocation per growth, not two per document); a removed document's entries stay as garbage
  // until the arenas are compacted.
  let docStart = new Int32Array(0)
  let docCount = new Int32Array(0) // -1: a free slot
  let arenaTerms = new Int32Array(1024)
  let arenaTfs = new Int32Array(1024)
  let arenaSize = 0
  let garbage = 0
  const freeSlots: Array<number> = []
  let capacity = 0
  let live = 0
  const lengthTotals = new Float64Array(fieldCount)

  const postings: Array<Postings> = []
  const vocabulary = Vocabulary.make(analyzer, () => {
    postings.push({
      slots: new Int32Array(4),
      tfs: new Int32Array(4),
      size: 0,
      impacts: scoringList.map(() => undefined),
      impactVersions: scoringList.map(() => -1),
      maxImpacts: scoringList.map(() => 0)
    })
  })

  // Scratch space for adding one document: packed frequencies by term id, the distinct term ids,
  // the shift of the field being read and its length. `count` is created once, not once per field.
  let docTf = new Int32Array(1024)
  let docIds = new Int32Array(256)
  let distinct = 0
  let shift = 0
  let fieldLength = 0
  const count = (termIds: Int32Array): void => {
    fieldLength += termIds.length
    for (let j = 0; j < termIds.length; j++) {
      const id = termIds[j] as number
      if (id >= docTf.length) {
        const grown = new Int32Array(Math.max(id + 1, docTf.length * 2))
        grown.set(docTf)
        docTf = grown
      }
      const current = docTf[id] as number
      if (current === 0) {
        if (distinct === docIds.length) {
          const grown = new Int32Array(docIds.length * 2)
          grown.set(docIds)
          docIds = grown
        }
        docIds[distinct++] = id
      }
      if (((current >>> shift) & tfMax) < tfMax) docTf[id] = current + (1 << shift)
    }
  }

  const grow = (needed: number): void => {
    if (needed <= capacity) return
    const next = Math.max(needed, capacity * 2, 64)
    const l = new Uint16Array(next * fieldCount)
    l.set(lengths)
    lengths = l
    const starts = new Int32Array(next)
    starts.set(docStart)
    docStart = starts
    const counts = new Int32Array(next).fill(-1)
    counts.set(docCount)
    docCount = counts
    capacity = next
  }

  const remove = (id: string): void => {
    const slot = slotOf.get(id)
    if (slot === undefined) return
    slotOf.delete(id)
    const start = docStart[slot] as number
    const n = docCount[slot] as number
    if (n > 0) {
      for (let i = start; i < start + n; i++) {
        const p = postings[arenaTerms[i] as number] as Postings
        const at = p.slots.subarray(0, p.size).indexOf(slot)
        if (at < 0) continue
        // swap with the last posting: order inside a posting list does not matter
        const last = p.size - 1
        p.slots[at] = p.slots[last] as number
        p.tfs[at] = p.tfs[last] as number
        p.size = last
      }
    }
    for (let f = 0; f < fieldCount; f++) {
      lengthTotals[f] = (lengthTotals[f] as number) - (lengths[slot * fieldCount + f] as number)
      lengths[slot * fieldCount + f] = 0
    }
    garbage += Math.max(0, n)
    docCount[slot] = -1
    ids[slot] = ""
    freeSlots.push(slot)
    live--
  }

  const add = (id: string, fields: ReadonlyArray<string>): void => {
    if (slotOf.has(id)) remove(id)
    const slot = freeSlots.pop() ?? ids.length
    if (slot === ids.length) ids.push(id)
    else ids[slot] = id
    grow(slot + 1)
    slotOf.set(id, slot)
    live++
    distinct = 0
    for (let f = 0; f < fieldCount; f++) {
      shift = f * tfBits
      fieldLength = 0
      vocabulary.forEachWord(fields[f] ?? "", count)
      const length = Math.min(fieldLength, 0xffff)
      lengths[slot * fieldCount + f] = length
      lengthTotals[f] = (lengthTotals[f] as number) + length
    }
    reserve(distinct)
    const start = arenaSize
    docStart[slot] = start
    docCount[slot] = distinct
    arenaSize += distinct
    for (let i = 0; i < distinct; i++) {
      const term = docIds[i] as number
      const tfs = docTf[term] as number
      arenaTerms[start + i] = term
      arenaTfs[start + i] = tfs
      docTf[term] = 0
      const p = postings[term] as Postings // created by the vocabulary
      if (p.size === p.slots.length) {
        const slots = new Int32Array(p.size * 2)
        slots.set(p.slots)
        p.slots = slots
        const t = new Int32Array(p.size * 2)
        t.set(p.tfs)
        p.tfs = t
      }
      p.slots[p.size] = slot
      p.tfs[p.size] = tfs
      p.size++
    }
  }

  /** Room for `n` more forward entries: compacts when most of the arenas are garbage, else grows them. */
  const reserve = (n: number): void => {
    if (arenaSize + n <= arenaTerms.length) return
    if (garbage * 2 > arenaSize) {
      // in arena order, so an entry never moves over one not yet moved
      const order: Array<number> = []
      for (let slot = 0; slot < ids.length; slot++) if ((docCount[slot] as number) >= 0) order.push(slot)
      order.sort((a, b) => (docStart[a] as number) - (docStart[b] as number))
      let at = 0
      for (const slot of order) {
        const count = docCount[slot] as number
        arenaTerms.copyWithin(at, docStart[slot] as number, (docStart[slot] as number) + count)
        arenaTfs.copyWithin(at, docStart[slot] as number, (docStart[slot] as number) + count)
        docStart[slot] = at
        at += count
      }
      arenaSize = at
      garbage = 0
      if (arenaSize + n <= arenaTerms.length) return
    }
    const next = Math.max(arenaSize + n, arenaTerms.length * 2)
    const terms = new Int32Array(next)
    terms.set(arenaTerms.subarray(0, arenaSize))
    arenaTerms = terms
    const tfs = new Int32Array(next)
    tfs.set(arenaTfs.subarray(0, arenaSize))
    arenaTfs = tfs
  }

  // Any write changes N, document frequencies and average lengths.
  let version = 0
  const averages = new Float64Array(fieldCount)
  let averagesVersion = -1

  const refreshAverages = (): void => {
    if (averagesVersion === version) return
    for (let f = 0; f < fieldCount; f++) averages[f] = live === 0 ? 0 : (lengthTotals[f] as number) / live
    averagesVersion = version
  }

  /** The impact of packed frequencies in a slot, given the term's idf. */
  const impact = (base: number, packed: number, idf: number, scoring: Scoring): number => {
    const { b, k1, weights } = scoring
    let tf = 0
    for (let f = 0; packed !== 0; f++, packed >>>= tfBits) {
      const n = packed & tfMax
      if (n === 0) continue
      const avg = averages[f] as number
      const norm = avg === 0 ? 1 : 1 - b + (b * (lengths[base + f] as number)) / avg
      tf += ((weights[f] as number) * n) / norm
    }
    return (idf * tf) / (k1 + tf)
  }

  const idfOf = (df: number): number => Math.log(1 + (live - df + 0.5) / (df + 0.5))

  const impactsOf = (p: Postings, s = 0): Float32Array => {
    const cached = p.impacts[s]
    if (p.impactVersions[s] === version && cached !== undefined) return cached
    refreshAverages()
    const scoring = scoringList[s] as Scoring
    const df = p.size
    const idf = idfOf(df)
    const impacts = cached !== undefined && cached.length >= df ? cached : new Float32Array(p.slots.length)
    let max = 0
    for (let i = 0; i < df; i++) {
      const v = impact((p.slots[i] as number) * fieldCount, p.tfs[i] as number, idf, scoring)
      impacts[i] = v
      if (v > max) max = v
    }
    p.impacts[s] = impacts
    p.impactVersions[s] = version
    // a Float32 impact may round up: the bound must not be below any stored impact
    p.maxImpacts[s] = Math.fround(max)
    return impacts
  }

  return {
    fieldCount,
    tfBits,
    tfMax,
    vocabulary,
    add,
    remove,
    commit: () => {
      version++
    },
    slotOf: (id) => slotOf.get(id),
    idAt: (slot) => ids[slot] ?? "",
    lengthAt: (slot, field) => lengths[slot * fieldCount + field] as number,
    lengths: () => lengths,
    capacity: () => capacity,
    size: () => live,
    postings: (termId) => postings[termId] as Postings,
    impactsOf,
    maxImpactOf: (p, s = 0) => {
      impactsOf(p, s)
      return p.maxImpacts[s] as number
    },
    termsAt: (slot) =>
      (docCount[slot] ?? -1) < 0
        ? undefined
        : arenaTerms.subarray(docStart[slot] as number, (docStart[slot] as number) + (docCount[slot] as number)),
    frequenciesAt: (slot) =>
      (docCount[slot] ?? -1) < 0
        ? undefined
        : arenaTfs.subarray(docStart[slot] as number, (docStart[slot] as number) + (docCount[slot] as number)),
    impactAt: (slot, packed, df, s = 0) => {
      refreshAverages()
      return Math.fround(impact(slot * fieldCount, packed, idfOf(df), scoringList[s] as Scoring))
    },
    averages: () => {
      refreshAverages()
      return averages
    }
  }
}
