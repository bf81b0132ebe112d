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
 * Three additions for how agents ask for tools (each a parameter; `plain` turns them off):
 * - name coverage: `λ · (name words found in the request / name words)` is added (λ = 1);
 * - clauses: a request of several clauses (`Analyzer.clauses`) scores each tool as
 *   `0.5 · whole / best whole + 0.5 · max over clauses (clause / best of that clause)`, so the best
 *   tool of every clause reaches the top instead of being buried by the wordiest clause;
 * - quoted values (`"…"`, `'…'`) are arguments, not words about the tool: their terms weigh 0.3.
 *
 * The index is incremental: `add` and `remove` update postings, document frequencies and field
 * length totals in place, so the next query sees them; nothing is ever rebuilt. A query reads only
 * the postings of its own terms; each posting's contribution is cached per term until the next
 * write. Postings are packed in typed arrays (a slot number and the per-field frequencies in one
 * 32-bit word), which keeps a 100k-tool index under 100 MB and a query on 10k tools well under a
 * millisecond.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import * as Analyzer from "../Analyzer.js"
import type { SearchDocument } from "../SearchDocument.js"
import { type Hit, type SearchIndex, SearchStrategy } from "../SearchStrategy.js"

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
  /** Added to a tool's score times the share of its name's words found in the query; 0 disables. */
  readonly nameCoverage: number
  /**
   * For a request of several clauses (`Analyzer.clauses`): the weight of the tool's best clause
   * score, the whole-request score getting the rest (both scaled by the best score); 0 disables.
   */
  readonly clauseWeight: number
  /** Weight of query terms that occur only inside quotes (values, not words about the tool); 1 disables. */
  readonly quotedWeight: number
}

/** k1 = 1.5, b = 0.75; name 3, aliases 3, parameter names 2, everything else 1; name coverage 1, clause weight 0.5. */
export const defaults: Parameters = {
  k1: 1.5,
  b: 0.75,
  weights: { name: 3, aliases: 3, parameterNames: 2, category: 1, description: 1, parameterDescriptions: 1 },
  nameCoverage: 1,
  clauseWeight: 0.5,
  quotedWeight: 0.3
}

/** Plain BM25F: the defaults without name coverage, clauses and quote weighting. */
export const plain: Parameters = { ...defaults, nameCoverage: 0, clauseWeight: 0, quotedWeight: 1 }

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
const ASCII = /^[\x00-\x7f]*$/
// Per-field term frequencies are packed 5 bits each into one int: 6 × 5 = 30 bits. A word
// repeated more than 31 times in one field is counted 31 times, far into the saturated range.
const TF_BITS = 5
const TF_MAX = (1 << TF_BITS) - 1

/** A growable list of postings of one term. */
interface Postings {
  slots: Int32Array
  tfs: Int32Array
  size: number
  /** Each posting's score contribution, valid while `impactVersion` equals the index version. */
  impacts: Float32Array | undefined
  impactVersion: number
}

/** The live BM25F index: the `SearchIndex` operations plus `score` for tests and tools. */
export interface Index extends SearchIndex {
  /** The score `search` would give one document for a query, 0 when absent or unmatched. */
  readonly score: (id: string, text: string) => number
  /** How many documents are indexed. */
  readonly size: () => number
}

// At most this many clauses are ranked separately; later ones join the last.
const MAX_CLAUSES = 8

/** A new, empty BM25F index with the given parameters. */
export const makeIndexWith = (parameters: Parameters): Index => {
  const weights = Float64Array.from(FIELDS, (f) => parameters.weights[f])
  const { b, clauseWeight, k1, nameCoverage, quotedWeight } = parameters

  // Documents live in slots; freed slots are reused.
  const slotOf = new Map<string, number>()
  const ids: Array<string> = []
  let lengths = new Uint16Array(0) // FIELD_COUNT per slot
  const docTerms: Array<Int32Array | undefined> = []
  const freeSlots: Array<number> = []
  let capacity = 0
  let live = 0
  const lengthTotals = new Float64Array(FIELD_COUNT)

  // Terms and their postings.
  const termIds = new Map<string, number>()
  const postings: Array<Postings> = []
  // The term ids of each word seen, so a word is analyzed and looked up once per index; ids are
  // never reused, so entries stay valid.
  const wordTerms = new Map<string, Int32Array>()
  // Scratch space for adding one document: packed frequencies by term id, the distinct term ids,
  // and the field being read. `countWord` is created once, not once per field.
  let docTf = new Int32Array(1024)
  let docIds = new Int32Array(256)
  let distinct = 0
  let shift = 0
  let fieldLength = 0
  const countWord = (word: string): void => {
    let ids = wordTerms.get(word)
    if (ids === undefined) {
      ids = Int32Array.from(Analyzer.analyzeWord(word), termIdOf)
      wordTerms.set(word, ids)
    }
    countIds(ids)
  }

  // ASCII text, most of what catalogs hold, is scanned without cutting out each word: a word is
  // hashed while it is read and found in an open-addressing table by comparing characters, so the
  // common case allocates nothing.
  let tableMask = (1 << 12) - 1
  let tableWords: Array<string | undefined> = new Array(tableMask + 1)
  let tableIds: Array<Int32Array | undefined> = new Array(tableMask + 1)
  let tableHashes = new Int32Array(tableMask + 1)
  let tableCount = 0

  const rehash = (): void => {
    const words = tableWords
    const idsOf = tableIds
    const hashes = tableHashes
    tableMask = tableMask * 2 + 1
    tableWords = new Array(tableMask + 1)
    tableIds = new Array(tableMask + 1)
    tableHashes = new Int32Array(tableMask + 1)
    for (let i = 0; i < words.length; i++) {
      if (words[i] === undefined) continue
      let at = (hashes[i] as number) & tableMask
      while (tableWords[at] !== undefined) at = (at + 1) & tableMask
      tableWords[at] = words[i]
      tableIds[at] = idsOf[i]
      tableHashes[at] = hashes[i] as number
    }
  }

  const idsOfRange = (text: string, start: number, end: number, hash: number): Int32Array => {
    let at = hash & tableMask
    for (;;) {
      const word = tableWords[at]
      if (word === undefined) break
      if (tableHashes[at] === hash && word.length === end - start) {
        let same = true
        for (let i = 0; i < word.length; i++) {
          if (word.charCodeAt(i) !== text.charCodeAt(start + i)) {
            same = false
            break
          }
        }
        if (same) return tableIds[at] as Int32Array // stored with the word
      }
      at = (at + 1) & tableMask
    }
    const word = text.slice(start, end)
    const ids = Int32Array.from(Analyzer.analyzeWord(word), termIdOf)
    tableWords[at] = word
    tableIds[at] = ids
    tableHashes[at] = hash
    if (++tableCount * 2 > tableMask) rehash()
    return ids
  }

  const countAsciiWords = (text: string): void => {
    const n = text.length
    let start = -1
    let hash = 0
    for (let i = 0; i <= n; i++) {
      const c = i < n ? text.charCodeAt(i) : 32
      if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) {
        if (start < 0) {
          start = i
          hash = 0x811c9dc5
        }
        hash = Math.imul(hash ^ c, 0x01000193)
      } else if (start >= 0) {
        countIds(idsOfRange(text, start, i, hash))
        start = -1
      }
    }
  }

  const countIds = (ids: Int32Array): void => {
    fieldLength += ids.length
    for (let j = 0; j < ids.length; j++) {
      const id = ids[j] as number
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
      if (((current >>> shift) & TF_MAX) < TF_MAX) docTf[id] = current + (1 << shift)
    }
  }

  // Scratch space for one query, reused: a stamp per slot marks what this query touched, so
  // nothing is cleared between queries.
  let scores = new Float64Array(0)
  let nameHits = new Float64Array(0)
  let stamps = new Uint32Array(0)
  let touched = new Int32Array(0)
  let stamp = 0
  // Per-clause scores and name hits, [slot * MAX_CLAUSES + clause], allocated by the first request
  // with several clauses.
  let clauseScores = new Float64Array(0)
  let clauseNameHits = new Float64Array(0)
  let slotMasks = new Int32Array(0) // which clauses each touched slot has a score in

  // Any write changes N, document frequencies and average lengths: impacts are recomputed lazily,
  // term by term, by the next query that reads them.
  let version = 0
  const averages = new Float64Array(FIELD_COUNT)
  let averagesVersion = -1

  const grow = (needed: number): void => {
    if (needed <= capacity) return
    const next = Math.max(needed, capacity * 2, 64)
    const l = new Uint16Array(next * FIELD_COUNT)
    l.set(lengths)
    lengths = l
    scores = new Float64Array(next)
    nameHits = new Float64Array(next)
    stamps = new Uint32Array(next)
    stamp = 0
    touched = new Int32Array(next)
    if (clauseScores.length > 0) {
      clauseScores = new Float64Array(next * MAX_CLAUSES)
      clauseNameHits = new Float64Array(next * MAX_CLAUSES)
      slotMasks = new Int32Array(next)
    }
    capacity = next
  }

  const termIdOf = (term: string): number => {
    let id = termIds.get(term)
    if (id === undefined) {
      id = postings.length
      termIds.set(term, id)
      postings.push({
        slots: new Int32Array(4),
        tfs: new Int32Array(4),
        size: 0,
        impacts: undefined,
        impactVersion: -1
      })
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
    // per-term packed frequencies of this document, in scratch arrays indexed by term id
    distinct = 0
    for (let f = 0; f < FIELD_COUNT; f++) {
      shift = f * TF_BITS
      fieldLength = 0
      const text = texts[FIELDS[f] as Field]
      if (ASCII.test(text)) countAsciiWords(text)
      else Analyzer.forEachWord(text, countWord)
      const length = Math.min(fieldLength, 0xffff)
      lengths[slot * FIELD_COUNT + f] = length
      lengthTotals[f] = (lengthTotals[f] as number) + length
    }
    const terms = docIds.slice(0, distinct)
    for (let i = 0; i < distinct; i++) {
      const id = terms[i] as number
      const tfs = docTf[id] as number
      docTf[id] = 0
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

  /** The score contribution of every posting of a term, cached until the next write. */
  const impactsOf = (p: Postings): Float32Array => {
    if (p.impactVersion === version && p.impacts !== undefined) return p.impacts
    if (averagesVersion !== version) {
      for (let f = 0; f < FIELD_COUNT; f++) averages[f] = live === 0 ? 0 : (lengthTotals[f] as number) / live
      averagesVersion = version
    }
    const df = p.size
    const idf = Math.log(1 + (live - df + 0.5) / (df + 0.5))
    const impacts = p.impacts !== undefined && p.impacts.length >= df ? p.impacts : new Float32Array(p.slots.length)
    for (let i = 0; i < df; i++) {
      const base = (p.slots[i] as number) * FIELD_COUNT
      let packed = p.tfs[i] as number
      let tf = 0
      for (let f = 0; packed !== 0; f++, packed >>>= TF_BITS) {
        const n = packed & TF_MAX
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

  const nextStamp = (): void => {
    stamp = (stamp + 1) >>> 0
    if (stamp === 0) {
      stamps.fill(0)
      stamp = 1
    }
  }

  /**
   * Accumulates a query into the scratch arrays; returns how many slots were touched. Each term
   * carries its weight (quoted values weigh less) and the set of clauses it occurs in (a bit
   * mask); with one clause the mask is 0.
   */
  const accumulate = (
    terms: ReadonlyArray<string>,
    termWeights: ReadonlyArray<number>,
    masks: ReadonlyArray<number> | undefined,
    clauseCount: number
  ): number => {
    nextStamp()
    let count = 0
    for (let t = 0; t < terms.length; t++) {
      const tid = termIds.get(terms[t] as string)
      if (tid === undefined) continue
      const p = postings[tid] as Postings
      if (p.size === 0) continue
      const impacts = impactsOf(p)
      const mask = masks?.[t] ?? 0
      const weight = termWeights[t] ?? 1
      count = mask === 0 && clauseCount === 0
        ? addPostings(p.slots, p.tfs, impacts, weight, p.size, stamps, stamp, scores, nameHits, touched, count)
        : addClausePostings(
          p.slots,
          p.tfs,
          impacts,
          weight,
          p.size,
          stamps,
          stamp,
          scores,
          nameHits,
          touched,
          count,
          mask,
          clauseScores,
          clauseNameHits,
          slotMasks
        )
    }
    return count
  }

  /**
   * Scores a query: fills `scores` for the touched slots with final scores and returns how many
   * slots were touched.
   */
  const run = (text: string): number => {
    const parts = clauseWeight > 0 ? Analyzer.clauses(text) : []
    if (parts.length < 2) {
      const query = Analyzer.weightedQueryTerms(text, quotedWeight)
      const count = accumulate(query.terms, query.weights, undefined, 0)
      if (nameCoverage === 0) return count
      const sc = scores
      const hits = nameHits
      const len = lengths
      const list = touched
      for (let i = 0; i < count; i++) {
        const slot = list[i] as number
        const h = hits[slot] as number
        const length = len[slot * FIELD_COUNT] as number
        if (h > 0 && length > 0) sc[slot] = (sc[slot] as number) + (nameCoverage * Math.min(h, length)) / length
      }
      return count
    }
    // Several clauses: one pass over the postings of the distinct terms, each term adding to the
    // whole request and to the clauses it occurs in.
    if (clauseScores.length === 0) {
      clauseScores = new Float64Array(capacity * MAX_CLAUSES)
      clauseNameHits = new Float64Array(capacity * MAX_CLAUSES)
      slotMasks = new Int32Array(capacity)
    }
    const clauseCount = Math.min(parts.length, MAX_CLAUSES)
    const maskOf = new Map<string, number>()
    const weightOf = new Map<string, number>()
    parts.forEach((part, c) => {
      const bit = 1 << Math.min(c, MAX_CLAUSES - 1)
      const query = Analyzer.weightedQueryTerms(part, quotedWeight)
      query.terms.forEach((term, i) => {
        maskOf.set(term, (maskOf.get(term) ?? 0) | bit)
        weightOf.set(term, Math.max(weightOf.get(term) ?? 0, query.weights[i] as number))
      })
    })
    const terms = [...maskOf.keys()]
    const count = accumulate(
      terms,
      terms.map((t) => weightOf.get(t) as number),
      terms.map((t) => maskOf.get(t) as number),
      clauseCount
    )
    return fuseClauses(count, clauseCount)
  }

  /** Turns whole-request and clause scores into the fused score of every touched slot. */
  const fuseClauses = (count: number, clauseCount: number): number => {
    const sc = scores
    const hits = nameHits
    const cs = clauseScores
    const ch = clauseNameHits
    const masks = slotMasks
    const len = lengths
    const list = touched
    let best = 0
    const bestOfClause = new Float64Array(clauseCount)
    for (let i = 0; i < count; i++) {
      const slot = list[i] as number
      const nameLength = len[slot * FIELD_COUNT] as number
      const scale = nameLength === 0 ? 0 : nameCoverage / nameLength
      const s = (sc[slot] as number) + Math.min(hits[slot] as number, nameLength) * scale
      sc[slot] = s
      if (s > best) best = s
      const row = slot * MAX_CLAUSES
      for (let c = 0, m = masks[slot] as number; m !== 0; c++, m >>>= 1) {
        if ((m & 1) === 0) continue
        const v = cs[row + c] as number
        const w = v + Math.min(ch[row + c] as number, nameLength) * scale
        cs[row + c] = w
        if (w > (bestOfClause[c] as number)) bestOfClause[c] = w
      }
    }
    for (let c = 0; c < clauseCount; c++) {
      const b = bestOfClause[c] as number
      bestOfClause[c] = b > 0 ? 1 / b : 0
    }
    const whole = (1 - clauseWeight) / best
    for (let i = 0; i < count; i++) {
      const slot = list[i] as number
      const row = slot * MAX_CLAUSES
      let clause = 0
      for (let c = 0, m = masks[slot] as number; m !== 0; c++, m >>>= 1) {
        if ((m & 1) === 0) continue
        const v = (cs[row + c] as number) * (bestOfClause[c] as number)
        if (v > clause) clause = v
      }
      sc[slot] = whole * (sc[slot] as number) + clauseWeight * clause
    }
    return count
  }

  /**
   * The best `limit` touched slots, best first, ties by id. Most slots fail the first comparison
   * with the current last hit; `accept` (a catalog lookup) is asked only for hits that would enter.
   */
  const select = (count: number, limit: number, accept: (id: string) => boolean): ReadonlyArray<Hit> => {
    if (limit <= 0) return []
    const topSlots = new Int32Array(limit)
    const topScores = new Float64Array(limit)
    let n = 0
    for (let i = 0; i < count; i++) {
      const slot = touched[i] as number
      const score = scores[slot] as number
      if (!(score > 0)) continue
      if (n === limit) {
        const last = topScores[n - 1] as number
        if (score < last || (score === last && (ids[slot] as string) >= (ids[topSlots[n - 1] as number] as string))) {
          continue
        }
      }
      if (!accept(ids[slot] as string)) continue
      let at = n === limit ? n - 1 : n++
      while (at > 0) {
        const s = topScores[at - 1] as number
        if (s > score || (s === score && (ids[topSlots[at - 1] as number] as string) < (ids[slot] as string))) break
        topScores[at] = s
        topSlots[at] = topSlots[at - 1] as number
        at--
      }
      topScores[at] = score
      topSlots[at] = slot
    }
    const hits: Array<Hit> = []
    for (let i = 0; i < n; i++) hits.push({ id: ids[topSlots[i] as number] as string, score: topScores[i] as number })
    return hits
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
    search: (request) => Effect.sync(() => select(run(request.text), request.limit, request.accept)),
    score: (id, text) => {
      const slot = slotOf.get(id)
      if (slot === undefined) return 0
      const count = run(text)
      for (let i = 0; i < count; i++) if (touched[i] === slot) return scores[slot] as number
      return 0
    },
    size: () => live
  }
}

// The two hot loops, as top-level functions over typed arrays so the engine compiles them tight.

/** Adds one term's postings to the scores; returns the new count of touched slots. */
const addPostings = (
  slots: Int32Array,
  tfs: Int32Array,
  impacts: Float32Array,
  weight: number,
  df: number,
  stamps: Uint32Array,
  stamp: number,
  scores: Float64Array,
  nameHits: Float64Array,
  touched: Int32Array,
  count: number
): number => {
  for (let i = 0; i < df; i++) {
    const slot = slots[i] as number
    const impact = (impacts[i] as number) * weight
    const inName = ((tfs[i] as number) & TF_MAX) * weight // the name is field 0: its frequency is the low bits
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
  slots: Int32Array,
  tfs: Int32Array,
  impacts: Float32Array,
  weight: number,
  df: number,
  stamps: Uint32Array,
  stamp: number,
  scores: Float64Array,
  nameHits: Float64Array,
  touched: Int32Array,
  count: number,
  mask: number,
  clauseScores: Float64Array,
  clauseNameHits: Float64Array,
  slotMasks: Int32Array
): number => {
  for (let i = 0; i < df; i++) {
    const slot = slots[i] as number
    const impact = (impacts[i] as number) * weight
    const inName = ((tfs[i] as number) & TF_MAX) * weight
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

/** A new BM25F index with the default parameters. */
export const makeIndex: Effect.Effect<Index> = Effect.sync(() => makeIndexWith(defaults))

/** The BM25F strategy with explicit parameters. */
export const layerWith = (parameters: Parameters): Layer.Layer<SearchStrategy> =>
  Layer.succeed(SearchStrategy, { name: "bm25f", makeIndex: Effect.sync(() => makeIndexWith(parameters)) })

/** The BM25F strategy (k1 = 1.5, b = 0.75, the default weights, name coverage and clauses). */
export const layer: Layer.Layer<SearchStrategy> = layerWith(defaults)
