/**
 * The documents of one BM25F index and the postings of every term, updated in place: `add` and
 * `remove` change postings, document frequencies and field length totals, and nothing is ever
 * rebuilt. Documents live in slots; freed slots are reused.
 *
 * Postings are packed in typed arrays: a slot number, and the per-field term frequencies in one
 * 32-bit word (`tfBits` bits per field). Each posting's score contribution (its *impact*) is cached
 * per term and recomputed lazily by the first query after a write.
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
  /** Each posting's score contribution, valid while `impactVersion` equals the store's version. */
  impacts: Float32Array | undefined
  impactVersion: number
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
  /** The impacts of a term's postings, computed now if a write happened since. */
  readonly impactsOf: (p: Postings) => Float32Array
}

/** An empty store for documents of `fieldCount` fields. */
export const make = (analyzer: Analyzer, fieldCount: number, scoring: Scoring): Store => {
  const tfBits = Math.min(5, Math.floor(30 / fieldCount))
  const tfMax = (1 << tfBits) - 1
  const { b, k1, weights } = scoring

  const slotOf = new Map<string, number>()
  const ids: Array<string> = []
  let lengths = new Uint16Array(0) // fieldCount per slot
  const docTerms: Array<Int32Array | undefined> = []
  const freeSlots: Array<number> = []
  let capacity = 0
  let live = 0
  const lengthTotals = new Float64Array(fieldCount)

  const postings: Array<Postings> = []
  const vocabulary = Vocabulary.make(analyzer, () => {
    postings.push({ slots: new Int32Array(4), tfs: new Int32Array(4), size: 0, impacts: undefined, impactVersion: -1 })
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
    capacity = next
  }

  const remove = (id: string): void => {
    const slot = slotOf.get(id)
    if (slot === undefined) return
    slotOf.delete(id)
    const terms = docTerms[slot]
    if (terms !== undefined) {
      for (let i = 0; i < terms.length; i++) {
        const p = postings[terms[i] as number] as Postings
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
    docTerms[slot] = undefined
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
    const terms = docIds.slice(0, distinct)
    for (let i = 0; i < distinct; i++) {
      const term = terms[i] as number
      const tfs = docTf[term] as number
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
    docTerms[slot] = terms
  }

  // Any write changes N, document frequencies and average lengths.
  let version = 0
  const averages = new Float64Array(fieldCount)
  let averagesVersion = -1

  const impactsOf = (p: Postings): Float32Array => {
    if (p.impactVersion === version && p.impacts !== undefined) return p.impacts
    if (averagesVersion !== version) {
      for (let f = 0; f < fieldCount; f++) averages[f] = live === 0 ? 0 : (lengthTotals[f] as number) / live
      averagesVersion = version
    }
    const df = p.size
    const idf = Math.log(1 + (live - df + 0.5) / (df + 0.5))
    const impacts = p.impacts !== undefined && p.impacts.length >= df ? p.impacts : new Float32Array(p.slots.length)
    for (let i = 0; i < df; i++) {
      const base = (p.slots[i] as number) * fieldCount
      let packed = p.tfs[i] as number
      let tf = 0
      for (let f = 0; packed !== 0; f++, packed >>>= tfBits) {
        const n = packed & tfMax
        if (n === 0) continue
        const avg = averages[f] as number
        const norm = avg === 0 ? 1 : 1 - b + (b * (lengths[base + f] as number)) / avg
        tf += ((weights[f] as number) * n) / norm
      }
      impacts[i] = (idf * tf) / (k1 + tf)
    }
    p.impacts = impacts
    p.impactVersion = version
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
    impactsOf
  }
}
