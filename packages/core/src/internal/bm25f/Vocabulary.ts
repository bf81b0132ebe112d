/**
 * The terms of one BM25F index: each distinct term gets an id (never reused), and each word seen
 * in a document is analyzed once and remembered with its term ids.
 *
 * ASCII text, most of what catalogs hold, is scanned without cutting out each word: a word is
 * hashed while it is read and found in an open-addressing table by comparing characters, so the
 * common case allocates nothing; the scan itself finds out whether the text is ASCII (no pass of
 * its own). Other text goes through the analyzer's word scanner and a map.
 * The term ids of every known word live in one shared arena (a start and a count per word), not
 * in an array per word: a catalog of 100,000 tools has as many distinct words, and as many small
 * arrays would cost the garbage collector more than the scan itself.
 *
 * @internal
 */
import type { Analyzer } from "../../Analyzer.js"
import { analyzeRun, isAsciiWordChar } from "../analysis.js"
import * as Fnv from "../fnv.js"

/** Term ids of an index's vocabulary. */
export interface Vocabulary {
  /** The id of a term, or `undefined` when no document has it. */
  readonly find: (term: string) => number | undefined
  /** The term of an id. */
  readonly termOf: (id: number) => string
  /**
   * Analyzes `text`, creating ids for new terms; returns how many term ids it has, which are then
   * the first entries of `scanned()`, in order (valid until the next `scan`).
   */
  readonly scan: (text: string) => number
  readonly scanned: () => Int32Array
}

/**
 * A vocabulary analyzing with `analyzer`; `onNewTerm` is called with the id of every new term, in
 * increasing order from 0, before the id is used.
 */
export const make = (analyzer: Analyzer, onNewTerm: (id: number) => void): Vocabulary => {
  const termIds = new Map<string, number>()
  const byId: Array<string> = []
  const underscore = !analyzer.options.snakeCase
  // 1 for the ASCII codes that belong to a word: one load per character in the scan
  const wordChars = Uint8Array.from({ length: 128 }, (_, c) => (isAsciiWordChar(c, underscore) ? 1 : 0))

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

  // Every known word is an entry: its term ids are `arena[starts[e], starts[e] + counts[e])`.
  let arena = new Int32Array(64)
  let arenaSize = 0
  let starts = new Int32Array(64)
  let counts = new Int32Array(64)
  let entries = 0
  const entryOf = (word: string): number => {
    // each distinct word is analyzed once here: the analyzer's memo is left to queries
    const terms = analyzeRun(word, analyzer.options)
    if (entries === starts.length) {
      starts = grown(starts, entries * 2)
      counts = grown(counts, entries * 2)
    }
    if (arenaSize + terms.length > arena.length) {
      arena = grown(arena, Math.max(arena.length * 2, arenaSize + terms.length))
    }
    starts[entries] = arenaSize
    counts[entries] = terms.length
    for (const term of terms) arena[arenaSize++] = idOf(term)
    return entries++
  }

  // Non-ASCII words and their entries.
  const wordEntries = new Map<string, number>()

  // The open-addressing table of ASCII words: per slot, the word's hash and its entry plus one (0:
  // a free slot) side by side, so a probe reads one cache line and looks at the word itself only
  // when the hashes match; the words, by slot, beside it.
  let mask = (1 << 12) - 1
  let table = new Int32Array(2 * (mask + 1))
  let words: Array<string> = new Array(mask + 1)
  let count = 0

  const rehash = (): void => {
    const oldTable = table
    const oldWords = words
    mask = mask * 2 + 1
    table = new Int32Array(2 * (mask + 1))
    words = new Array(mask + 1)
    for (let i = 0; i < oldWords.length; i++) {
      if (oldTable[2 * i + 1] === 0) continue
      const hash = oldTable[2 * i] as number
      let at = hash & mask
      while (table[2 * at + 1] !== 0) at = (at + 1) & mask
      table[2 * at] = hash
      table[2 * at + 1] = oldTable[2 * i + 1] as number
      words[at] = oldWords[i] as string
    }
  }

  /** The entry of `text[start, end)`, whose FNV-1a hash is `hash`. */
  const entryOfRange = (text: string, start: number, end: number, hash: number): number => {
    let at = hash & mask
    for (;;) {
      const entry = (table[2 * at + 1] as number) - 1
      if (entry < 0) break
      if (table[2 * at] === hash) {
        const word = words[at] as string // an occupied slot has its word
        let same = word.length === end - start
        for (let i = 0; same && i < word.length; i++) same = word.charCodeAt(i) === text.charCodeAt(start + i)
        if (same) return entry
      }
      at = (at + 1) & mask
    }
    const word = text.slice(start, end)
    const entry = entryOf(word)
    table[2 * at] = hash
    table[2 * at + 1] = entry + 1
    words[at] = word
    if (++count * 2 > mask) rehash()
    return entry
  }

  // The term ids of the last scan.
  let out = new Int32Array(256)
  let outSize = 0
  const emit = (entry: number): void => {
    const n = counts[entry] as number
    if (outSize + n > out.length) out = grown(out, Math.max(out.length * 2, outSize + n))
    const from = starts[entry] as number
    for (let i = 0; i < n; i++) out[outSize++] = arena[from + i] as number
  }

  /**
   * Scans ASCII text; stops and returns false at the first other character. The words emitted
   * before it ended at an ASCII separator, so the general scanner cuts them the same way and their
   * terms get the same ids in the same order: nothing the fallback would not have created.
   */
  const scanAscii = (text: string): boolean => {
    const n = text.length
    let start = -1
    let hash = 0
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i)
      if (c > 127) return false
      if (wordChars[c] === 1) {
        if (start < 0) {
          start = i
          hash = Fnv.OFFSET
        }
        hash = Fnv.step(hash, c)
      } else if (start >= 0) {
        emit(entryOfRange(text, start, i, hash))
        start = -1
      }
    }
    if (start >= 0) emit(entryOfRange(text, start, n, hash))
    return true
  }

  return {
    find: (term) => termIds.get(term),
    termOf: (id) => byId[id] ?? "",
    scan: (text) => {
      outSize = 0
      if (!scanAscii(text)) {
        outSize = 0
        analyzer.forEachWord(text, (word) => {
          let entry = wordEntries.get(word)
          if (entry === undefined) {
            entry = entryOf(word)
            wordEntries.set(word, entry)
          }
          emit(entry)
        })
      }
      return outSize
    },
    scanned: () => out
  }
}

/** A copy of `array` with room for `length` entries. */
const grown = (array: Int32Array, length: number): Int32Array<ArrayBuffer> => {
  const next = new Int32Array(length)
  next.set(array)
  return next
}
