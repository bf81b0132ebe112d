/**
 * FNV-1a, 32 bit: the one hash of short strings in the core — tool names and cache keys (`hex`),
 * and BM25F's term table, which hashes words as it scans them (`OFFSET`, `step`).
 *
 * @internal
 */

/** The hash of the empty string; `step` folds in one character code at a time. */
export const OFFSET = 0x811c9dc5

/** The hash after one more UTF-16 code unit. */
export const step = (hash: number, code: number): number => Math.imul(hash ^ code, 0x01000193)

/** The hash of `text`, as an unsigned 32-bit number. */
export const hash = (text: string): number => {
  let h = OFFSET
  for (let i = 0; i < text.length; i++) h = step(h, text.charCodeAt(i))
  return h >>> 0
}

/** The hash of `text` as 8 hex digits: short, stable, for names and cache keys. */
export const hex = (text: string): string => hash(text).toString(16).padStart(8, "0")
