/**
 * The terms of one BM25F index: each distinct term gets an id (never reused), and each word seen
 * in a document is analyzed once and remembered with its term ids.
 *
 * ASCII text, most of what catalogs hold, is scanned without cutting out each word: a word is
 * hashed while it is read and found in an open-addressing table by comparing characters, so the
 * common case allocates nothing; the scan itself finds out whether the text is ASCII (no pass of
 * its own). Other text goes through the analyzer's word scanner and a map.
 * Every known word is a record in one shared arena (its term ids, and an ASCII word's characters),
 * not an array and a string per word: a catalog of 100,000 tools has as many distinct words, and
 * as many small objects would cost the garbage collector more than the scan itself.
 *
 * @internal
 */
import type { Analyzer } from "../../Analyzer.js"
import { analyzeRun, isAsciiWordChar } from "../analysis.js"
import * as Fnv from "../fnv.js"
import { grown } from "./Grown.js"
import * as OpenTable from "./OpenTable.js"

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
 * increasing order from 0, before the id is used. Its tables hash from `offset` (the process's random
 * `Fnv.TABLE_OFFSET`; a test passes FNV-1a's own to make words it knows collide).
 */
export const make = (
  analyzer: Analyzer,
  onNewTerm: (id: number) => void,
  offset: number = Fnv.TABLE_OFFSET
): Vocabulary => {
  // each term's id (`OpenTable`, a term compared with `byId[id]`)
  const termIds = OpenTable.make(12)
  const byId: Array<string> = []
  const underscore = !analyzer.options.snakeCase
  // 1 for the ASCII codes that belong to a word: one load per character in the scan
  const wordChars = Uint8Array.from({ length: 128 }, (_, c) => (isAsciiWordChar(c, underscore) ? 1 : 0))

  /** Where `term` (of hash `hash`) is in `termIds`, or the free slot where it would go. */
  const probeTerm = (term: string, hash = Fnv.tableHash(offset, term)) => OpenTable.find(termIds, hash, byId, term)

  const idOf = (term: string): number => {
    const hash = Fnv.tableHash(offset, term)
    const at = probeTerm(term, hash)
    let id = OpenTable.valueAt(termIds, at)
    if (id < 0) {
      id = byId.length
      byId.push(term)
      OpenTable.put(termIds, at, hash, id)
      onNewTerm(id)
    }
    return id
  }

  // Every known word is a record in one arena: how many term ids it has, its length in characters
  // (0 for a word of the general scanner), its term ids, then, for an ASCII word, its characters
  // packed four to an entry. A lookup of a known word reads the table's slot and the record (one
  // or two cache lines): no string, no array per word, and nothing for the garbage collector.
  let records = new Int32Array(1024)
  let recordsSize = 0
  /** A new record for `word` (ASCII when `ascii`, its characters kept for comparisons). */
  const recordOf = (word: string, ascii: boolean): number => {
    // each distinct word is analyzed once here: the analyzer's memo is left to queries
    const terms = analyzeRun(word, analyzer.options, ascii)
    const length = ascii ? word.length : 0
    const size = 2 + terms.length + ((length + 3) >> 2)
    if (recordsSize + size > records.length) {
      records = grown(records, Math.max(records.length * 2, recordsSize + size))
    }
    const record = recordsSize
    records[record] = terms.length
    records[record + 1] = length
    let at = record + 2
    for (const term of terms) records[at++] = idOf(term)
    for (let i = 0; i < length; i += 4) {
      let packed = 0
      for (let j = i; j < i + 4 && j < length; j++) packed |= word.charCodeAt(j) << ((j - i) << 3)
      records[at++] = packed
    }
    recordsSize = at
    return record
  }

  // Non-ASCII words and their records.
  const wordRecords = new Map<string, number>()

  // The table of ASCII words (`OpenTable`): per slot, the word's hash and its record plus one; a
  // probe looks at the record only when the hashes match. `recordOfRange` probes it itself:
  // `OpenTable.find` compares keys as strings, and one given a comparison function per word made a
  // 100,000-tool build about 9% slower (paired, 8 each).
  const words = OpenTable.make(12)

  /** Whether the ASCII word of `record` is `text[start, start + length)`. */
  const sameWord = (record: number, text: string, start: number, length: number): boolean => {
    if (records[record + 1] !== length) return false
    const chars = record + 2 + (records[record] as number)
    for (let i = 0; i < length; i++) {
      const packed = records[chars + (i >> 2)] as number
      if (((packed >>> ((i & 3) << 3)) & 0xff) !== text.charCodeAt(start + i)) return false
    }
    return true
  }

  /** The record of `text[start, end)`, whose hash (`Fnv.tableHash` from `offset`) is `hash`. */
  const recordOfRange = (text: string, start: number, end: number, hash: number): number => {
    const { mask, slots } = words
    let at = hash & mask
    for (;;) {
      const record = (slots[2 * at + 1] as number) - 1
      if (record < 0) break
      if (slots[2 * at] === hash && sameWord(record, text, start, end - start)) return record
      at = (at + 1) & mask
    }
    const record = recordOf(text.slice(start, end), true)
    OpenTable.put(words, at, hash, record)
    return record
  }

  // The term ids of the last scan.
  let out = new Int32Array(256)
  let outSize = 0
  const emit = (record: number): void => {
    const n = records[record] as number
    if (outSize + n > out.length) out = grown(out, Math.max(out.length * 2, outSize + n))
    for (let i = 0; i < n; i++) out[outSize++] = records[record + 2 + i] as number
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
          hash = offset
        }
        hash = Fnv.step(hash, c)
      } else if (start >= 0) {
        emit(recordOfRange(text, start, i, Fnv.mix(hash)))
        start = -1
      }
    }
    if (start >= 0) emit(recordOfRange(text, start, n, Fnv.mix(hash)))
    return true
  }

  return {
    find: (term) => {
      const id = OpenTable.valueAt(termIds, probeTerm(term))
      return id < 0 ? undefined : id
    },
    termOf: (id) => byId[id] ?? "",
    scan: (text) => {
      outSize = 0
      if (!scanAscii(text)) {
        outSize = 0
        analyzer.forEachWord(text, (word) => {
          let record = wordRecords.get(word)
          if (record === undefined) {
            record = recordOf(word, false)
            wordRecords.set(word, record)
          }
          emit(record)
        })
      }
      return outSize
    },
    scanned: () => out
  }
}
