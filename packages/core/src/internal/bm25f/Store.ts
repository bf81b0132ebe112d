/**
 * The documents of one BM25F index and the postings of every term, updated in place: `add` and
 * `remove` change postings, document frequencies and field length totals; the postings of the
 * documents added by a batch are written at `commit`, one by one or, for a batch of a quarter of
 * the catalog or more, by rebuilding every list in one counting sort. Documents live in slots;
 * freed slots are reused.
 *
 * Postings live in two shared arenas (typed arrays), not in arrays per term: a term owns a range
 * of them (a start, a size and a capacity), a slot number and the per-field term frequencies
 * packed in one 32-bit word (`tfBits` bits per field) per posting. A term whose range is full
 * moves to the end of the arena with twice the room; the arena is compacted when it grows. A
 * catalog of 100,000 tools has over 100,000 terms: one array each would cost the garbage collector
 * more than indexing itself. Each posting's score contribution (its *impact*) is kept in a third
 * arena per scoring (a store can be scored with several parameter sets, for fusion), at the
 * posting's position, and recomputed per term by the first query after a write. Each document
 * also keeps its own terms and packed frequencies (a forward index), for pseudo-relevance
 * feedback.
 *
 * @internal
 */
import type { Analyzer } from "../../Analyzer.js"
import * as Fnv from "../fnv.js"
import { coverage } from "./Coverage.js"
import * as FieldWeights from "./FieldWeights.js"
import { grown } from "./Grown.js"
import { idf } from "./Idf.js"
import * as OpenTable from "./OpenTable.js"
import * as Vocabulary from "./Vocabulary.js"

/** How impacts are computed; the field weights may adapt to the catalog (`FieldWeights`). */
export interface Scoring extends FieldWeights.Adaptation {
  readonly k1: number
  readonly b: number
  /** Weight of each field, in packing order. */
  readonly weights: Float64Array
  /** BM25+'s lower bound of a matching term's normalized frequency (Lv and Zhai); 0 or absent: none. */
  readonly lowerBound?: number | undefined
  /** The name coverage of the scorer (first scoring only): for `bestAlone`; 0 when absent. */
  readonly nameCoverage?: number | undefined
}

/** The documents and postings of an index. */
export interface Store {
  readonly fieldCount: number
  /** Bits per field in a packed frequency word; `tfMax` is the largest count kept. */
  readonly tfBits: number
  readonly tfMax: number
  readonly vocabulary: Vocabulary.Vocabulary
  /**
   * Adds or replaces a document from the texts of its fields, in packing order; a field of several
   * texts (a list of aliases) is indexed as their concatenation, without joining them.
   */
  readonly add: (id: string, fields: ReadonlyArray<string | ReadonlyArray<string>>) => void
  readonly remove: (id: string) => void
  /**
   * Says that `count` documents are about to be added: the forward index then grows once to the
   * size they are likely to need instead of doubling (each copy of a large array costs its pages).
   */
  readonly expect: (count: number) => void
  /** Marks the end of a write: impacts and averages are recomputed by the next query. */
  readonly commit: () => void
  readonly slotOf: (id: string) => number | undefined
  /** The id in a slot ("" when free). */
  readonly idAt: (slot: number) => string
  /** The length of a field of a slot, in terms. */
  readonly lengthAt: (slot: number, field: number) => number
  /** The length of every slot's name (field 0), by slot (valid until the next write): for hot loops. */
  readonly nameLengths: () => Uint16Array
  /** Slots allocated so far: every slot number is below it. */
  readonly capacity: () => number
  /** Slots used so far (a free one too): every document's slot is below it, and below `capacity`. */
  readonly used: () => number
  readonly size: () => number
  /** How many documents hold a term (its postings). */
  readonly df: (termId: number) => number
  /** Where a term's postings start in the arenas; they are the next `df(termId)` entries. */
  readonly start: (termId: number) => number
  /** The slot of every posting (valid until the next write). */
  readonly postingSlots: () => Int32Array
  /** The packed field frequencies of every posting, parallel to `postingSlots`. */
  readonly postingFrequencies: () => Int32Array
  /**
   * The impacts of every posting under a scoring (default the first), parallel to
   * `postingSlots`; those of `termId` are computed now if a write happened since.
   */
  readonly impactsOf: (termId: number, scoring?: number) => Float32Array
  /** The largest impact of a term's postings under a scoring (valid after `impactsOf` as above). */
  readonly maxImpact: (termId: number, scoring?: number) => number
  /**
   * The largest impact under a scoring of a term's postings whose document's name (field 0) does
   * not hold it: 0 when every holder names it (valid after `impactsOf` as above).
   */
  readonly maxUnnamedImpact: (termId: number, scoring?: number) => number
  /**
   * The largest share of a name that a term fills: its frequency in the name (field 0) over the
   * name's length, over the term's postings (valid after `impactsOf(termId)` as above).
   */
  readonly maxNameShare: (termId: number) => number
  /**
   * The best score of a term alone at weight 1 under the first scoring: over its postings, the
   * impact plus the name coverage of its name hits (`Scoring.nameCoverage`), computed as the scorer
   * computes a clause of this term only, so it is that clause's best score, bit for bit (valid
   * after `impactsOf(termId)` as above).
   */
  readonly bestAlone: (termId: number) => number
  /** The term ids of a slot's document (its forward index), or `undefined` when free. */
  readonly termsAt: (slot: number) => Int32Array | undefined
  /** The packed field frequencies of a slot's terms, parallel to `termsAt`. */
  readonly frequenciesAt: (slot: number) => Int32Array | undefined
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

  const ids: Array<string> = []
  // The slot of each id: a table of (hash, slot + 1) pairs (`OpenTable`), an id compared with
  // `ids[slot]`; cheaper than a map when a catalog is loaded (each new id costs one probe).
  const idTable = OpenTable.make(6)
  /** Where `id` (of hash `hash`) is in `idTable`, or the free slot where it would go. */
  const probeId = (id: string, hash = Fnv.tableHash(Fnv.TABLE_OFFSET, id)) => OpenTable.find(idTable, hash, ids, id)
  const slotOf = (id: string): number | undefined => {
    const slot = OpenTable.valueAt(idTable, probeId(id))
    return slot < 0 ? undefined : slot
  }
  let lengths = new Uint16Array(0) // fieldCount per slot
  let nameLengths = new Uint16Array(0) // field 0's, by slot
  // The forward index: each slot's term ids and packed frequencies, in two shared arenas (one
  // allocation per growth, not two per document); a removed document's entries stay as garbage
  // until the arenas are compacted.
  let docStart = new Int32Array(0)
  let docCount = new Int32Array(0) // -1: a free slot
  let arenaTerms = new Int32Array(64)
  let arenaTfs = new Int32Array(64)
  let arenaSize = 0
  let garbage = 0
  const freeSlots: Array<number> = []
  let capacity = 0
  let live = 0
  const lengthTotals = new Float64Array(fieldCount)

  // Any write changes N, document frequencies and average lengths; a growth of the posting
  // arenas moves every impact.
  let version = 0

  // The postings: per term, its start, size and capacity in the arenas (3 entries per term).
  let terms = 0
  let ranges = new Int32Array(3 * 64)
  let postSlots = new Int32Array(64)
  let postTfs = new Int32Array(64)
  let postEnd = 0
  let postGarbage = 0
  // per scoring: the impacts arena and, per term, the version its impacts were computed at
  let impacts: Array<Float32Array> = scoringList.map(() => new Float32Array(0))
  let impactVersions: Array<Int32Array> = scoringList.map(() => new Int32Array(64).fill(-1))
  // per scoring, per term: the largest impact of its postings, and of those outside names (an
  // impact is a 32-bit float: so is their largest); per term: its largest name share (all
  // computed with the impacts)
  let maxImpacts: Array<Float64Array> = scoringList.map(() => new Float64Array(64))
  let maxUnnamed: Array<Float32Array> = scoringList.map(() => new Float32Array(64))
  let nameShares = new Float64Array(64)
  let bestsAlone = new Float64Array(64)
  const lambda = scoringList[0]?.nameCoverage ?? 0

  const vocabulary = Vocabulary.make(analyzer, (term) => {
    if (3 * (term + 1) > ranges.length) {
      ranges = grown(ranges, ranges.length * 2)
      impactVersions = impactVersions.map((v) => grown(v, v.length * 2, -1))
      maxImpacts = maxImpacts.map((m) => grown(m, m.length * 2))
      maxUnnamed = maxUnnamed.map((m) => grown(m, m.length * 2))
      nameShares = grown(nameShares, nameShares.length * 2)
      bestsAlone = grown(bestsAlone, bestsAlone.length * 2)
    }
    ranges[3 * term] = 0
    ranges[3 * term + 1] = 0
    ranges[3 * term + 2] = 0
    terms = term + 1
  })

  /**
   * Room for `n` more postings at the end of the arenas: when they are full, new arenas twice the
   * size of what is live, every term's range copied over in term order (its capacity kept).
   */
  const reservePostings = (n: number): void => {
    if (postEnd + n <= postSlots.length) return
    const needed = postEnd - postGarbage + n
    const length = Math.max(needed * 2, 64)
    const slots = new Int32Array(length)
    const tfs = new Int32Array(length)
    let at = 0
    for (let t = 0; t < terms; t++) {
      const from = ranges[3 * t] as number
      const size = ranges[3 * t + 1] as number
      slots.set(postSlots.subarray(from, from + size), at)
      tfs.set(postTfs.subarray(from, from + size), at)
      ranges[3 * t] = at
      at += ranges[3 * t + 2] as number
    }
    postSlots = slots
    postTfs = tfs
    postEnd = at
    postGarbage = 0
    impacts = scoringList.map(() => new Float32Array(0))
    version++
  }

  /** Appends a posting to a term's range, moving the range to the end of the arenas when full. */
  const append = (term: number, slot: number, packed: number): void => {
    const r = 3 * term
    let start = ranges[r] as number
    const size = ranges[r + 1] as number
    const room = ranges[r + 2] as number
    if (size === room) {
      if (start + room === postEnd && postEnd + room <= postSlots.length && room > 0) {
        // the last range grows in place
        postEnd += room
        ranges[r + 2] = room * 2
      } else {
        const next = Math.max(4, room * 2)
        reservePostings(next)
        start = ranges[r] as number // a compaction moves it
        postSlots.copyWithin(postEnd, start, start + size)
        postTfs.copyWithin(postEnd, start, start + size)
        postGarbage += room
        start = postEnd
        ranges[r] = start
        ranges[r + 2] = next
        postEnd += next
      }
    }
    postSlots[start + size] = slot
    postTfs[start + size] = packed
    ranges[r + 1] = size + 1
  }

  /** Removes a slot's posting from a term's range (swapped with the last: order does not matter). */
  const unlink = (term: number, slot: number): void => {
    const r = 3 * term
    const start = ranges[r] as number
    const last = start + (ranges[r + 1] as number) - 1
    for (let i = start; i <= last; i++) {
      if (postSlots[i] !== slot) continue
      postSlots[i] = postSlots[last] as number
      postTfs[i] = postTfs[last] as number
      ranges[r + 1] = last - start
      return
    }
  }

  // Documents added since the last commit whose postings are not written yet: their slots, and a
  // flag per slot. A commit writes them one by one, or, when they are many (a catalog loaded at
  // once), rebuilds every posting list from the forward index in one counting sort: one exact
  // allocation and sequential writes per term instead of millions of appends scattered over the
  // lists.
  let pending: Array<number> = []
  let isPending = new Uint8Array(0)

  /** Writes the postings of the pending documents. */
  const flush = (): void => {
    if (pending.length === 0) return
    if (pending.length * 4 >= live) {
      rebuildPostings()
      // the forward arenas doubled while the catalog was read: keep an eighth more than they hold
      const fit = arenaSize + (arenaSize >> 3) + 64
      if (arenaTerms.length > fit + (fit >> 2)) {
        arenaTerms = grown(arenaTerms.subarray(0, arenaSize), fit)
        arenaTfs = grown(arenaTfs.subarray(0, arenaSize), fit)
      }
    } else {
      for (const slot of pending) {
        if (isPending[slot] === 0) continue
        isPending[slot] = 0
        const n = docCount[slot] as number
        const start = docStart[slot] as number
        for (let i = start; i < start + n; i++) append(arenaTerms[i] as number, slot, arenaTfs[i] as number)
      }
    }
    pending = []
  }

  /** Every posting list from the forward index, in slot order. */
  const rebuildPostings = (): void => {
    const sizes = new Int32Array(terms)
    for (let slot = 0; slot < ids.length; slot++) {
      const n = docCount[slot] as number
      const start = docStart[slot] as number
      for (let i = start; i < start + n; i++) {
        const t = arenaTerms[i] as number
        sizes[t] = (sizes[t] as number) + 1
      }
    }
    // Each list gets an eighth more room than it needs, so the documents added after a bulk load
    // rarely move a long list (a move copies it, and a full arena is compacted); short lists that
    // fill up move to the room left at the end.
    let total = 0
    for (let t = 0; t < terms; t++) {
      const size = sizes[t] as number
      const room = size === 0 ? 0 : size + (size >> 3) + 1
      ranges[3 * t] = total
      ranges[3 * t + 1] = 0
      ranges[3 * t + 2] = room
      total += room
    }
    postSlots = new Int32Array(total + (total >> 4) + 64)
    postTfs = new Int32Array(postSlots.length)
    postEnd = total
    postGarbage = 0
    impacts = scoringList.map(() => new Float32Array(0))
    for (let slot = 0; slot < ids.length; slot++) {
      isPending[slot] = 0
      const n = docCount[slot] as number
      const start = docStart[slot] as number
      for (let i = start; i < start + n; i++) {
        const r = 3 * (arenaTerms[i] as number)
        const at = (ranges[r] as number) + (ranges[r + 1] as number)
        postSlots[at] = slot
        postTfs[at] = arenaTfs[i] as number
        ranges[r + 1] = (ranges[r + 1] as number) + 1
      }
    }
  }

  // Scratch space for adding one document: packed frequencies by term id, the distinct term ids.
  let docTf = new Int32Array(64)
  let docIds = new Int32Array(256)

  const grow = (needed: number): void => {
    if (needed <= capacity) return
    const next = Math.max(needed, capacity * 2, 64)
    lengths = grown(lengths, next * fieldCount)
    nameLengths = grown(nameLengths, next)
    docStart = grown(docStart, next)
    docCount = grown(docCount, next, -1)
    isPending = grown(isPending, next)
    capacity = next
  }

  const remove = (id: string): void => {
    const at = probeId(id)
    const slot = OpenTable.valueAt(idTable, at)
    if (slot < 0) return
    OpenTable.remove(idTable, at)
    const start = docStart[slot] as number
    const n = docCount[slot] as number
    // a pending document has no postings yet
    if (isPending[slot] === 0) { for (let i = start; i < start + n; i++) unlink(arenaTerms[i] as number, slot) }
    for (let f = 0; f < fieldCount; f++) {
      lengthTotals[f] = (lengthTotals[f] as number) - (lengths[slot * fieldCount + f] as number)
      lengths[slot * fieldCount + f] = 0
    }
    nameLengths[slot] = 0
    garbage += Math.max(0, n)
    docCount[slot] = -1
    ids[slot] = ""
    freeSlots.push(slot)
    live--
  }

  // the distinct terms of the document being added, in `docIds`
  let distinct = 0
  /** Counts the terms of one text into `docTf` at `shift`; returns how many it has. */
  const count = (text: string, shift: number): number => {
    const n = vocabulary.scan(text)
    const scanned = vocabulary.scanned()
    if (terms > docTf.length) docTf = grown(docTf, Math.max(terms, docTf.length * 2))
    if (distinct + n > docIds.length) docIds = grown(docIds, Math.max(distinct + n, docIds.length * 2))
    for (let j = 0; j < n; j++) {
      const term = scanned[j] as number
      const current = docTf[term] as number
      if (current === 0) docIds[distinct++] = term
      if (((current >>> shift) & tfMax) < tfMax) docTf[term] = current + (1 << shift)
    }
    return n
  }

  // documents announced by `expect` and not added yet
  let expected = 0

  const add = (id: string, fields: ReadonlyArray<string | ReadonlyArray<string>>): void => {
    if (expected > 0) expected--
    const hash = Fnv.tableHash(Fnv.TABLE_OFFSET, id)
    let at = probeId(id, hash)
    if (OpenTable.valueAt(idTable, at) >= 0) {
      remove(id)
      at = probeId(id, hash)
    }
    const slot = freeSlots.pop() ?? ids.length
    if (slot === ids.length) ids.push(id)
    else ids[slot] = id
    grow(slot + 1)
    OpenTable.put(idTable, at, hash, slot)
    live++
    distinct = 0
    for (let f = 0; f < fieldCount; f++) {
      const shift = f * tfBits
      const field = fields[f] ?? ""
      let n = 0
      if (typeof field === "string") n = count(field, shift)
      else for (const text of field) n += count(text, shift)
      const length = Math.min(n, 0xffff)
      lengths[slot * fieldCount + f] = length
      if (f === 0) nameLengths[slot] = length
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
    }
    if (isPending[slot] === 0) {
      isPending[slot] = 1
      pending.push(slot)
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
    // room for the documents still expected at the mean size of those in the arenas (once there
    // are a few: the one being added is not yet), an eighth more
    const done = live - 1
    const likely = expected > 0 && done >= 16 ? arenaSize + n + Math.ceil((arenaSize / done) * expected * 1.125) : 0
    const next = Math.max(arenaSize + n, likely, arenaTerms.length * 2)
    arenaTerms = grown(arenaTerms.subarray(0, arenaSize), next)
    arenaTfs = grown(arenaTfs.subarray(0, arenaSize), next)
  }

  const averages = new Float64Array(fieldCount)
  let averagesVersion = -1

  const refreshAverages = (): void => {
    if (averagesVersion === version) return
    for (let f = 0; f < fieldCount; f++) averages[f] = live === 0 ? 0 : (lengthTotals[f] as number) / live
    averagesVersion = version
  }

  /** The impact of packed frequencies in a slot, given the term's idf and field weights. */
  const impact = (base: number, packed: number, idf: number, scoring: Scoring, weights: Float64Array): number => {
    const { b, k1 } = scoring
    let tf = 0
    for (let f = 0; packed !== 0; f++, packed >>>= tfBits) {
      const n = packed & tfMax
      if (n === 0) continue
      const avg = averages[f] as number
      const norm = avg === 0 ? 1 : 1 - b + (b * (lengths[base + f] as number)) / avg
      tf += ((weights[f] as number) * n) / norm
    }
    const delta = scoring.lowerBound ?? 0
    return delta > 0 && tf > 0 ? idf * (tf / (k1 + tf) + delta) : (idf * tf) / (k1 + tf)
  }

  const impactsOf = (term: number, s = 0): Float32Array => {
    let arena = impacts[s] as Float32Array
    const versions = impactVersions[s] as Int32Array
    if (versions[term] === version && arena.length === postSlots.length) return arena
    if (arena.length !== postSlots.length) {
      // allocated by the first query after the arenas moved, not while a catalog is loaded
      arena = new Float32Array(postSlots.length)
      impacts[s] = arena
      ;(impactVersions[s] as Int32Array).fill(-1)
    }
    refreshAverages()
    const scoring = scoringList[s] as Scoring
    const start = ranges[3 * term] as number
    const df = ranges[3 * term + 1] as number
    const idf = idfOf(term)
    const weights = weightsOf(s, term)
    let most = 0
    let unnamed = 0
    let share = 0
    let alone = 0
    for (let i = start; i < start + df; i++) {
      const slot = postSlots[i] as number
      const packed = postTfs[i] as number
      arena[i] = impact(slot * fieldCount, packed, idf, scoring, weights)
      const value = arena[i] as number // rounded to 32 bits, as the scorer reads it
      if (value > most) most = value
      const inName = packed & tfMax
      if (inName === 0 && value > unnamed) unnamed = value
      if (s !== 0) continue
      const length = nameLengths[slot] as number
      if (inName > 0 && inName / length > share) share = inName / length
      const score = value + coverage(lambda, inName, length)
      if (score > alone) alone = score
    }
    ;(maxImpacts[s] as Float64Array)[term] = most
    ;(maxUnnamed[s] as Float32Array)[term] = unnamed
    if (s === 0) {
      nameShares[term] = share
      bestsAlone[term] = alone
    }
    versions[term] = version
    return arena
  }

  // Field weights that adapt to the catalog (`FieldWeights`), per scoring: the catalog's once per
  // write, a term's with its impacts. Fixed between writes, like the impacts and bounds built on them.
  const adaptive = scoringList.map((scoring) =>
    FieldWeights.adapts(scoring) ? FieldWeights.make(fieldCount, scoring.weights, scoring) : undefined
  )
  const catalogWeights: Array<Float64Array> = scoringList.map((scoring) => scoring.weights)
  const catalogVersions = scoringList.map(() => -1)
  const statistics = (): FieldWeights.Catalog => ({
    size: live,
    lengths: lengthTotals,
    terms,
    start: (term) => ranges[3 * term] as number,
    df: (term) => ranges[3 * term + 1] as number,
    idf: idfOf,
    frequencies: postTfs,
    tfBits,
    tfMax
  })
  /** The field weights of a term's impacts under scoring `s`. */
  const weightsOf = (s: number, term: number): Float64Array => {
    const adapt = adaptive[s]
    if (adapt === undefined) return (scoringList[s] as Scoring).weights
    const catalog = statistics()
    if (catalogVersions[s] !== version) {
      catalogWeights[s] = Float64Array.from(adapt.catalog(catalog))
      catalogVersions[s] = version
    }
    return adapt.term(catalog, catalogWeights[s] as Float64Array, term)
  }

  const idfOf = (term: number): number => {
    const df = ranges[3 * term + 1] as number
    return idf(live, df)
  }

  return {
    fieldCount,
    tfBits,
    tfMax,
    vocabulary,
    add,
    remove,
    expect: (count) => {
      expected = count
    },
    commit: () => {
      expected = 0
      flush()
      version++
    },
    slotOf,
    idAt: (slot) => ids[slot] ?? "",
    lengthAt: (slot, field) => lengths[slot * fieldCount + field] as number,
    nameLengths: () => nameLengths,
    capacity: () => capacity,
    used: () => ids.length,
    size: () => live,
    df: (term) => ranges[3 * term + 1] as number,
    start: (term) => ranges[3 * term] as number,
    postingSlots: () => postSlots,
    postingFrequencies: () => postTfs,
    impactsOf,
    maxImpact: (term, s = 0) => (maxImpacts[s] as Float64Array)[term] as number,
    maxUnnamedImpact: (term, s = 0) => (maxUnnamed[s] as Float32Array)[term] as number,
    maxNameShare: (term) => nameShares[term] as number,
    bestAlone: (term) => bestsAlone[term] as number,
    termsAt: (slot) =>
      (docCount[slot] ?? -1) < 0
        ? undefined
        : arenaTerms.subarray(docStart[slot] as number, (docStart[slot] as number) + (docCount[slot] as number)),
    frequenciesAt: (slot) =>
      (docCount[slot] ?? -1) < 0
        ? undefined
        : arenaTfs.subarray(docStart[slot] as number, (docStart[slot] as number) + (docCount[slot] as number)),
    averages: () => {
      refreshAverages()
      return averages
    }
  }
}
