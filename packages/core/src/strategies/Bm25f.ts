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
 * with k1 = 1.5, b = 0.75 and weights name 3 · aliases 3 · parameter names 2 · category 1 ·
 * description 1 · parameter descriptions 1. `N` is the number of tools and `df` the number of tools
 * containing the term in any field. Terms come from the `Analyzer`.
 *
 * The index is incremental: `add` and `remove` update postings, document frequencies and field
 * length totals in place, so the next query sees them; nothing is ever rebuilt. A query reads only
 * the postings of its own terms. Postings are packed in typed arrays (a slot number and the
 * per-field frequencies in one 32-bit word), which keeps a 100k-tool index small and a query on it
 * well under a millisecond.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import * as Analyzer from "../Analyzer.js"
import type { SearchDocument } from "../SearchDocument.js"
import { type SearchIndex, SearchStrategy, TopK } from "../SearchStrategy.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/** The indexed fields, in packing order. */
export const FIELDS = ["name", "aliases", "parameterNames", "category", "description", "parameterDescriptions"] as const

/** One indexed field. */
export type Field = typeof FIELDS[number]

/** The ranking parameters. */
export interface Parameters {
  /** Term frequency saturation. */
  readonly k1: number
  /** Length normalization, 0 (none) to 1 (full). */
  readonly b: number
  /** Weight of each field. */
  readonly weights: Readonly<Record<Field, number>>
}

/** k1 = 1.5, b = 0.75; name 3, aliases 3, parameter names 2, everything else 1. */
export const defaults: Parameters = {
  k1: 1.5,
  b: 0.75,
  weights: { name: 3, aliases: 3, parameterNames: 2, category: 1, description: 1, parameterDescriptions: 1 }
}

/** The text of each field of a document, as the index analyzes it. */
export const fieldTexts = (doc: SearchDocument): Readonly<Record<Field, string>> => ({
  name: doc.name,
  aliases: doc.aliases.join(" \n "),
  parameterNames: doc.parameterNames.join(" \n "),
  category: doc.category,
  description: doc.description,
  parameterDescriptions: doc.parameterDescriptions.join(" \n ")
})

// -----------------------------------------------------------------------------
// Index
// -----------------------------------------------------------------------------

const FIELD_COUNT = FIELDS.length
// Per-field term frequencies are packed 5 bits each into one int: 6 × 5 = 30 bits. A word
// repeated more than 31 times in one field is counted 31 times, far into the saturated range.
const TF_BITS = 5
const TF_MAX = (1 << TF_BITS) - 1
// Field lengths up to this bound get their normalization factor from a table built once per
// index version; longer fields compute it directly.
const NORM_TABLE = 256

/** A growable list of postings of one term. */
interface Postings {
  slots: Int32Array
  tfs: Int32Array
  size: number
}

/** The live BM25F index: the `SearchIndex` operations plus `score` for tests and tools. */
export interface Index extends SearchIndex {
  /** The BM25F score of one document for a query, 0 when absent or unmatched. */
  readonly score: (id: string, text: string) => number
  /** How many documents are indexed. */
  readonly size: () => number
}

/** A new, empty BM25F index with the given parameters. */
export const makeIndexWith = (parameters: Parameters): Index => {
  const weights = Float64Array.from(FIELDS, (f) => parameters.weights[f])
  const { b, k1 } = parameters

  // Documents live in slots; freed slots are reused.
  const slotOf = new Map<string, number>()
  let ids: Array<string> = []
  let lengths = new Uint16Array(0) // FIELD_COUNT per slot
  let docTerms: Array<Int32Array | undefined> = []
  const freeSlots: Array<number> = []
  let capacity = 0
  let live = 0
  const lengthTotals = new Float64Array(FIELD_COUNT)

  // Terms and their postings.
  const termIds = new Map<string, number>()
  const postings: Array<Postings> = []

  // Scratch space for one query, reused: scores and a stamp per slot mark what this query touched.
  let scores = new Float64Array(0)
  let stamps = new Uint32Array(0)
  let touched = new Int32Array(0)
  let stamp = 0

  // Length normalization tables, rebuilt lazily after writes.
  let version = 0
  let tableVersion = -1
  const norms = new Float64Array(FIELD_COUNT * NORM_TABLE)
  const averages = new Float64Array(FIELD_COUNT)

  const grow = (needed: number): void => {
    if (needed <= capacity) return
    const next = Math.max(needed, capacity * 2, 64)
    const l = new Uint16Array(next * FIELD_COUNT)
    l.set(lengths)
    lengths = l
    const s = new Float64Array(next)
    scores = s
    stamps = new Uint32Array(next)
    stamp = 0
    touched = new Int32Array(next)
    capacity = next
  }

  const termIdOf = (term: string): number => {
    let id = termIds.get(term)
    if (id === undefined) {
      id = postings.length
      termIds.set(term, id)
      postings.push({ slots: new Int32Array(2), tfs: new Int32Array(2), size: 0 })
    }
    return id
  }

  const addOne = (doc: SearchDocument): void => {
    if (slotOf.has(doc.id)) removeOne(doc.id)
    const slot = freeSlots.pop() ?? ids.length
    if (slot === ids.length) ids.push(doc.id)
    else ids[slot] = doc.id
    grow(slot + 1)
    slotOf.set(doc.id, slot)
    live++

    const texts = fieldTexts(doc)
    const packed = new Map<number, number>()
    const buffer: Array<string> = []
    for (let f = 0; f < FIELD_COUNT; f++) {
      buffer.length = 0
      Analyzer.analyzeInto(texts[FIELDS[f] as Field], buffer)
      const length = Math.min(buffer.length, 0xffff)
      lengths[slot * FIELD_COUNT + f] = length
      lengthTotals[f] = (lengthTotals[f] as number) + length
      const shift = f * TF_BITS
      for (const term of buffer) {
        const id = termIdOf(term)
        const current = packed.get(id) ?? 0
        if (((current >>> shift) & TF_MAX) < TF_MAX) packed.set(id, current + (1 << shift))
      }
    }
    const terms = new Int32Array(packed.size)
    let i = 0
    for (const [id, tfs] of packed) {
      terms[i++] = id
      const p = postings[id] as Postings // created by termIdOf
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

  const removeOne = (id: string): void => {
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
    for (let f = 0; f < FIELD_COUNT; f++) {
      lengthTotals[f] = (lengthTotals[f] as number) - (lengths[slot * FIELD_COUNT + f] as number)
      lengths[slot * FIELD_COUNT + f] = 0
    }
    docTerms[slot] = undefined
    ids[slot] = ""
    freeSlots.push(slot)
    live--
  }

  const refreshNorms = (): void => {
    if (tableVersion === version) return
    tableVersion = version
    for (let f = 0; f < FIELD_COUNT; f++) {
      const avg = live === 0 ? 0 : (lengthTotals[f] as number) / live
      averages[f] = avg
      for (let len = 0; len < NORM_TABLE; len++) {
        norms[f * NORM_TABLE + len] = avg === 0 ? 1 : 1 / (1 - b + (b * len) / avg)
      }
    }
  }

  const normOf = (f: number, len: number): number => {
    if (len < NORM_TABLE) return norms[f * NORM_TABLE + len] as number
    const avg = averages[f] as number
    return avg === 0 ? 1 : 1 / (1 - b + (b * len) / avg)
  }

  /** Accumulates the scores of a query into `scores`; returns how many slots were touched. */
  const accumulate = (text: string): number => {
    refreshNorms()
    stamp = (stamp + 1) >>> 0
    if (stamp === 0) {
      stamps.fill(0)
      stamp = 1
    }
    let count = 0
    const queryTerms = Analyzer.queryTerms(text)
    for (const term of queryTerms) {
      const tid = termIds.get(term)
      if (tid === undefined) continue
      const p = postings[tid] as Postings
      const df = p.size
      if (df === 0) continue
      const idf = Math.log(1 + (live - df + 0.5) / (df + 0.5))
      const slots = p.slots
      const tfs = p.tfs
      for (let i = 0; i < df; i++) {
        const slot = slots[i] as number
        let packed = tfs[i] as number
        let tf = 0
        const base = slot * FIELD_COUNT
        for (let f = 0; packed !== 0; f++, packed >>>= TF_BITS) {
          const n = packed & TF_MAX
          if (n !== 0) tf += (weights[f] as number) * n * normOf(f, lengths[base + f] as number)
        }
        const contribution = (idf * tf) / (k1 + tf)
        if (stamps[slot] !== stamp) {
          stamps[slot] = stamp
          scores[slot] = contribution
          touched[count++] = slot
        } else {
          scores[slot] = (scores[slot] as number) + contribution
        }
      }
    }
    return count
  }

  return {
    add: (docs) => {
      for (const doc of docs) addOne(doc)
      version++
    },
    remove: (removed) => {
      for (const id of removed) removeOne(id)
      version++
    },
    search: (request) =>
      Effect.sync(() => {
        const count = accumulate(request.text)
        const top = new TopK(request.limit)
        for (let i = 0; i < count; i++) {
          const slot = touched[i] as number
          const score = scores[slot] as number
          // `accept` may be costly (a catalog lookup): ask it only for hits that would enter the top.
          if (top.wouldKeep(ids[slot] as string, score) && request.accept(ids[slot] as string)) {
            top.offer(ids[slot] as string, score)
          }
        }
        return top.result()
      }),
    score: (id, text) => {
      const slot = slotOf.get(id)
      if (slot === undefined) return 0
      const count = accumulate(text)
      for (let i = 0; i < count; i++) if (touched[i] === slot) return scores[slot] as number
      return 0
    },
    size: () => live
  }
}

/** A new BM25F index with the default parameters. */
export const makeIndex: Effect.Effect<Index> = Effect.sync(() => makeIndexWith(defaults))

/** The BM25F strategy with explicit parameters. */
export const layerWith = (parameters: Parameters): Layer.Layer<SearchStrategy> =>
  Layer.succeed(SearchStrategy, { name: "bm25f", makeIndex: Effect.sync(() => makeIndexWith(parameters)) })

/** The BM25F strategy (k1 = 1.5, b = 0.75, the default weights). */
export const layer: Layer.Layer<SearchStrategy> = layerWith(defaults)
