/**
 * Open-addressing tables keyed by 32-bit hashes, for the vocabulary's words and the store's ids:
 * each slot holds a key's hash and a value plus one (0: a free slot) side by side in one
 * `Int32Array`, so a probe reads one cache line; a key is found by probing linearly from
 * `hash & mask`, its owner comparing the keys themselves when the hashes match. A table is grown
 * when half full.
 *
 * @internal
 */

/** An empty table of `1 << bits` slots. */
export const make = (bits: number): Int32Array => new Int32Array(2 << bits)

/** The entries of a table of mask `mask` in a new one twice as large (mask `2 * mask + 1`). */
export const doubled = (table: Int32Array, mask: number): Int32Array => {
  const next = new Int32Array(2 * table.length)
  const nextMask = 2 * mask + 1
  for (let i = 0; i < table.length; i += 2) {
    if (table[i + 1] === 0) continue
    const hash = table[i] as number
    let at = hash & nextMask
    while (next[2 * at + 1] !== 0) at = (at + 1) & nextMask
    next[2 * at] = hash
    next[2 * at + 1] = table[i + 1] as number
  }
  return next
}

/**
 * Empties slot `at` of a table of mask `mask`, moving back the entries after it that could not
 * be found across the hole (linear probing without tombstones).
 */
export const remove = (table: Int32Array, mask: number, at: number): void => {
  let hole = at
  for (let j = (at + 1) & mask; table[2 * j + 1] !== 0; j = (j + 1) & mask) {
    const home = (table[2 * j] as number) & mask
    // the entry at j stays when its home lies in (hole, j], cyclically
    const stays = hole <= j ? hole < home && home <= j : hole < home || home <= j
    if (stays) continue
    table[2 * hole] = table[2 * j] as number
    table[2 * hole + 1] = table[2 * j + 1] as number
    hole = j
  }
  table[2 * hole] = 0
  table[2 * hole + 1] = 0
}
