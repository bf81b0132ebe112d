/**
 * The terms of one BM25F index: each distinct term gets an id (never reused), and each word seen
 * in a document is analyzed once and remembered with its term ids.
 *
 * ASCII text, most of what catalogs hold, is scanned without cutting out each word: a word is
 * hashed while it is read and found in an open-addressing table by comparing characters, so the
 * common case allocates nothing. Other text goes through the analyzer's word scanner and a map.
 *
 * @internal
 */
import type { Analyzer } from "../../Analyzer.js"
import { isAscii, isAsciiWordChar } from "../analysis.js"
import * as Fnv from "../fnv.js"

/** Term ids of an index's vocabulary. */
export interface Vocabulary {
  /** The id of a term, or `undefined` when no document has it. */
  readonly find: (term: string) => number | undefined
  /** The term of an id. */
  readonly termOf: (id: number) => string
  /** Calls `f` with the term ids of every word of `text`, in order, creating ids for new terms. */
  readonly forEachWord: (text: string, f: (ids: Int32Array) => void) => void
}

/**
 * A vocabulary analyzing with `analyzer`; `onNewTerm` is called with the id of every new term, in
 * increasing order from 0, before the id is used.
 */
export const make = (analyzer: Analyzer, onNewTerm: (id: number) => void): Vocabulary => {
  const termIds = new Map<string, number>()
  const byId: Array<string> = []
  const underscore = !analyzer.options.snakeCase

  const idOf = (term: string): number => {
    let id = termIds.get(term)
    if (id === undefined) {
      id = termIds.size
      termIds.set(term, id)
      byId.push(term)
      onNewTerm(id)
    }
    return id
  }
  const idsOfWord = (word: string): Int32Array => Int32Array.from(analyzer.analyzeWord(word), idOf)

  // Non-ASCII words and their term ids.
  const wordIds = new Map<string, Int32Array>()

  // The open-addressing table of ASCII words: word, hash and term ids per slot.
  let mask = (1 << 12) - 1
  let words: Array<string | undefined> = new Array(mask + 1)
  let idsAt: Array<Int32Array | undefined> = new Array(mask + 1)
  let hashes = new Int32Array(mask + 1)
  let count = 0

  const rehash = (): void => {
    const oldWords = words
    const oldIds = idsAt
    const oldHashes = hashes
    mask = mask * 2 + 1
    words = new Array(mask + 1)
    idsAt = new Array(mask + 1)
    hashes = new Int32Array(mask + 1)
    for (let i = 0; i < oldWords.length; i++) {
      if (oldWords[i] === undefined) continue
      let at = (oldHashes[i] as number) & mask
      while (words[at] !== undefined) at = (at + 1) & mask
      words[at] = oldWords[i]
      idsAt[at] = oldIds[i]
      hashes[at] = oldHashes[i] as number
    }
  }

  /** The term ids of `text[start, end)`, whose FNV-1a hash is `hash`. */
  const idsOfRange = (text: string, start: number, end: number, hash: number): Int32Array => {
    let at = hash & mask
    for (;;) {
      const word = words[at]
      if (word === undefined) break
      if (hashes[at] === hash && word.length === end - start) {
        let same = true
        for (let i = 0; i < word.length; i++) {
          if (word.charCodeAt(i) !== text.charCodeAt(start + i)) {
            same = false
            break
          }
        }
        if (same) return idsAt[at] as Int32Array // stored with the word
      }
      at = (at + 1) & mask
    }
    const word = text.slice(start, end)
    const ids = idsOfWord(word)
    words[at] = word
    idsAt[at] = ids
    hashes[at] = hash
    if (++count * 2 > mask) rehash()
    return ids
  }

  const forEachAsciiWord = (text: string, f: (ids: Int32Array) => void): void => {
    const n = text.length
    let start = -1
    let hash = 0
    for (let i = 0; i <= n; i++) {
      const c = i < n ? text.charCodeAt(i) : 32
      if (isAsciiWordChar(c, underscore)) {
        if (start < 0) {
          start = i
          hash = Fnv.OFFSET
        }
        hash = Fnv.step(hash, c)
      } else if (start >= 0) {
        f(idsOfRange(text, start, i, hash))
        start = -1
      }
    }
  }

  return {
    find: (term) => termIds.get(term),
    termOf: (id) => byId[id] ?? "",
    forEachWord: (text, f) => {
      if (isAscii(text)) return forEachAsciiWord(text, f)
      analyzer.forEachWord(text, (word) => {
        let ids = wordIds.get(word)
        if (ids === undefined) {
          ids = idsOfWord(word)
          wordIds.set(word, ids)
        }
        f(ids)
      })
    }
  }
}
