/**
 * Term proximity (`Bm25f.Parameters.proximity`): a re-scoring of the best hits of the BM25F
 * ranking by how close together a tool holds the request's adjacent terms, after the term
 * dependence models of the IR literature (Metzler and Croft's sequential dependence model, SIGIR
 * 2005: ordered and unordered windows of adjacent query-term pairs; Tao and Zhai, SIGIR 2007, and
 * Rasolofo and Savoy's BM25TP: a proximity score added to BM25).
 *
 * For each pair of adjacent request terms `(a, b)` (the analyzed terms in the request's order), a
 * tool's closeness is `1 / d` for the least distance `d` (in analyzed terms, stop words dropped)
 * at which it holds both within one text (a field, or one item of a list field: a name's last
 * word is not next to its description's first), when `d ≤ window` (and, `ordered`, `b` after
 * `a`), else 0. A tool's proximity is the mean closeness of the pairs, each weighted by
 * `min(weight a, weight b) · (idf a + idf b)` (quoted terms weigh less, rare pairs more), 0 to 1.
 *
 * The re-scoring is defined on a fixed candidate depth: the `DEPTH` best hits of the BM25F ranking
 * (as a search of that many returns them, pruned or not: the same hits) each gain
 * `weight · best score · proximity`; the hits below keep their scores and order. The gain is never
 * negative, so the re-scored head stays above the rest, and a search for `limit` hits returns the
 * first `limit` of that ranking, whatever `limit`. Strengths (how much of the request a hit
 * matches) are left as they are.
 *
 * @internal
 */
import type { Analyzer } from "../../Analyzer.js"
import type { Hit } from "../../SearchStrategy.js"
import type { Proximity as Settings } from "../../strategies/Bm25f.js"
import { byScore } from "../TopK.js"
import { idf } from "./Idf.js"

/** How many of the BM25F ranking's best hits are re-scored. */
export const DEPTH = 50

/** What the re-scoring reads of the catalog: its analyzed terms' ids and document frequencies. */
export interface Catalog {
  /** Live tools. */
  readonly size: () => number
  /** The id of an analyzed term, `undefined` when no tool ever held it. */
  readonly find: (term: string) => number | undefined
  /** How many tools hold a term. */
  readonly df: (termId: number) => number
}

/** The analyzed terms of each tool, in order, and the re-scoring of a search's hits. */
export interface Proximity {
  /** Keeps (or replaces) a tool's analyzed terms, from its fields' texts; after the catalog holds its terms. */
  readonly add: (id: string, fields: ReadonlyArray<string | ReadonlyArray<string>>) => void
  /** Forgets a tool. */
  readonly remove: (id: string) => void
  /** The hits of a request re-scored: the first `DEPTH` gain their proximity, best first (`byScore`). */
  readonly rescore: (text: string, hits: ReadonlyArray<Hit>) => ReadonlyArray<Hit>
}

// In a tool's term sequence: the end of a text (nothing spans it), and a term the catalog lacks.
const GAP = -1
const UNKNOWN = -2

/** The proximity re-scoring of `settings`, reading `catalog`; request terms as the scorer weighs them (`quotedWeight`). */
export const make = (
  analyzer: Analyzer,
  catalog: Catalog,
  settings: Settings,
  quotedWeight: number
): Proximity => {
  const { ordered, weight, window } = settings
  const sequences = new Map<string, Int32Array>()
  // per term id: 1 + its place in the current request, 0 for a term the request lacks (reset after each)
  let places = new Int32Array(0)
  let largestId = -1

  const add = (id: string, fields: ReadonlyArray<string | ReadonlyArray<string>>): void => {
    const out: Array<number> = []
    const text = (value: string): void => {
      for (const term of analyzer.terms(value)) {
        const termId = catalog.find(term) ?? UNKNOWN
        if (termId > largestId) largestId = termId
        out.push(termId)
      }
      out.push(GAP)
    }
    for (const field of fields) {
      if (typeof field === "string") text(field)
      else for (const value of field) text(value)
    }
    sequences.set(id, Int32Array.from(out))
  }

  const rescore = (text: string, hits: ReadonlyArray<Hit>): ReadonlyArray<Hit> => {
    if (hits.length === 0 || !(weight > 0)) return hits
    const query = analyzer.weightedQueryTerms(text, quotedWeight)
    if (query.terms.length < 2) return hits
    const n = catalog.size()
    // the request's terms the catalog holds, by id
    const held: Array<number> = []
    const idfs = query.terms.map((term) => {
      const id = catalog.find(term)
      const df = id === undefined ? 0 : catalog.df(id)
      held.push(id !== undefined && df > 0 && id <= largestId ? id : -1)
      return idf(n, df)
    })
    const pairWeights = new Float64Array(query.terms.length - 1)
    let total = 0
    for (let i = 0; i + 1 < query.terms.length; i++) {
      const w = Math.min(query.weights[i] as number, query.weights[i + 1] as number) *
        ((idfs[i] as number) + (idfs[i + 1] as number))
      pairWeights[i] = w
      total += w
    }
    if (held.filter((id) => id >= 0).length < 2 || !(total > 0)) return hits
    if (places.length <= largestId) places = new Int32Array(largestId + 1)
    held.forEach((id, i) => {
      if (id >= 0) places[id] = i + 1
    })
    // per place in the request: where the hit's text last held the term; per pair: its least distance
    const last = new Float64Array(query.terms.length)
    const least = new Float64Array(pairWeights.length)
    const best = (hits[0] as Hit).score
    const head = hits.slice(0, DEPTH).map((hit): Hit => {
      const sequence = sequences.get(hit.id)
      if (sequence === undefined) return hit
      last.fill(Number.NEGATIVE_INFINITY)
      least.fill(Number.POSITIVE_INFINITY)
      // the closest occurrences of two terms are next to each other in the text: each occurrence
      // is measured from the last one before it of its neighbours in the request
      let at = 0
      for (let i = 0; i < sequence.length; i++) {
        const term = sequence[i] as number
        if (term === GAP) {
          at += window + 1
          continue
        }
        const place = term >= 0 ? (places[term] as number) - 1 : -1
        if (place >= 0) {
          // this term second in its pair with the term before it in the request, or (unordered) first
          // in its pair with the term after it, which occurred earlier in the text
          if (place > 0) least[place - 1] = Math.min(least[place - 1] as number, at - (last[place - 1] as number))
          if (!ordered && place < least.length) {
            least[place] = Math.min(least[place] as number, at - (last[place + 1] as number))
          }
          last[place] = at
        }
        at++
      }
      let sum = 0
      for (let i = 0; i < least.length; i++) {
        const d = least[i] as number
        if (d <= window) sum += (pairWeights[i] as number) / d
      }
      return sum > 0 ? { ...hit, score: hit.score + weight * best * (sum / total) } : hit
    })
    for (const id of held) if (id >= 0) places[id] = 0
    head.sort(byScore)
    return hits.length <= DEPTH ? head : [...head, ...hits.slice(DEPTH)]
  }

  return {
    add,
    remove: (id) => {
      sequences.delete(id)
    },
    rescore
  }
}
