/**
 * FNV-1a, 32 bit: the one hash of short strings in the core — tool names and cache keys (`hex`),
 * and BM25F's tables of words, terms and tool ids, which start from a random offset and mix the
 * result (`TABLE_OFFSET`, `tableHash`; the vocabulary hashes words as it scans them with `step`).
 *
 * @internal
 */

/** The hash of the empty string; `step` folds in one character code at a time. */
export const OFFSET = 0x811c9dc5

/** The hash after one more UTF-16 code unit. */
export const step = (hash: number, code: number): number => Math.imul(hash ^ code, 0x01000193)

/** The hash of `text`, as an unsigned 32-bit number. */
export const hash = (text: string): number => hashFrom(OFFSET, text) >>> 0

/**
 * The start of the hashes of in-memory tables keyed by outside text (BM25F's words, terms and tool
 * ids, `internal/bm25f/OpenTable`): FNV-1a's offset mixed with a random number drawn once per
 * process. Keys an upstream crafted to share home slots under FNV-1a's fixed offset — so that every
 * probe of the table walks all of them — are spread by this one. Never for a hash that must be the
 * same in every process (`hex`).
 */
export const TABLE_OFFSET: number = (OFFSET ^ randomInt32()) | 0

/** The hash of `text` from `offset`, as a signed 32-bit number. */
export const hashFrom = (offset: number, text: string): number => {
  let h = offset | 0
  for (let i = 0; i < text.length; i++) h = step(h, text.charCodeAt(i))
  return h
}

/**
 * A hash's bits mixed (MurmurHash3's 32-bit finalizer), for a table that places keys by its low
 * bits: FNV-1a's low bits depend only on the low bits of the offset and of each character, so
 * texts whose characters differ only in high bits (`a` and `ѡ`, 97 and 97 + 1,024) share them
 * whatever the offset.
 */
export const mix = (hash: number): number => {
  let h = hash ^ (hash >>> 16)
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  return h ^ (h >>> 16)
}

/** The hash by which a table keyed by outside text places `text`: from `offset` (`TABLE_OFFSET`), mixed. */
export const tableHash = (offset: number, text: string): number => mix(hashFrom(offset, text))

/** The hash of `text` as 8 hex digits: short, stable, for names and cache keys. */
export const hex = (text: string): string => hash(text).toString(16).padStart(8, "0")

/** A random 32-bit integer: from the platform's cryptographic source when it has one. */
function randomInt32(): number {
  const crypto = (globalThis as { readonly crypto?: { getRandomValues(array: Int32Array): Int32Array } }).crypto
  return crypto === undefined
    ? Math.floor(Math.random() * 4294967296) | 0
    : crypto.getRandomValues(new Int32Array(1))[0] ?? 0
}
