/**
 * Open-addressing tables keyed by 32-bit hashes, for the vocabulary's words and terms and the
 * store's ids: each slot holds a key's hash and a value plus one (0: a free slot) side by side in
 * one `Int32Array`, so a probe reads one cache line; a key is found by probing linearly from
 * `hash & mask`, its owner comparing the keys themselves when the hashes match. A table doubles
 * when half full; a removal moves back the entries after the hole (no tombstones).
 *
 * @internal
 */

/** A table: its slots (hash, value + 1), its mask (slots − 1) and how many entries it holds. */
export interface OpenTable {
  slots: Int32Array
  mask: number
  size: number
}

/** An empty table of `1 << bits` slots. */
export const make = (bits: number): OpenTable => ({ slots: new Int32Array(2 << bits), mask: (1 << bits) - 1, size: 0 })

/**
 * Where the string `key` (of hash `hash`) is, in a table whose values are indexes of `keys`, or
 * the free slot where it would go.
 */
export const find = (table: OpenTable, hash: number, keys: ReadonlyArray<string>, key: string): number => {
  const { mask, slots } = table
  let at = hash & mask
  for (;;) {
    const value = slots[2 * at + 1] as number
    if (value === 0 || (slots[2 * at] === hash && keys[value - 1] === key)) return at
    at = (at + 1) & mask
  }
}

/** The value at slot `at` (found by a probe), or -1 when the slot is free. */
export const valueAt = (table: OpenTable, at: number): number => (table.slots[2 * at + 1] as number) - 1

/** Puts an entry in the free slot `at` (where its probe ended); the table then doubles if half full. */
export const put = (table: OpenTable, at: number, hash: number, value: number): void => {
  table.slots[2 * at] = hash
  table.slots[2 * at + 1] = value + 1
  if (++table.size * 2 <= table.mask) return
  const old = table.slots
  const mask = 2 * table.mask + 1
  const slots = new Int32Array(2 * old.length)
  for (let i = 0; i < old.length; i += 2) {
    if (old[i + 1] === 0) continue
    let to = (old[i] as number) & mask
    while (slots[2 * to + 1] !== 0) to = (to + 1) & mask
    slots[2 * to] = old[i] as number
    slots[2 * to + 1] = old[i + 1] as number
  }
  table.slots = slots
  table.mask = mask
}

/** Empties slot `at`, moving back the entries after it that could not be found across the hole. */
export const remove = (table: OpenTable, at: number): void => {
  const { mask, slots } = table
  let hole = at
  for (let j = (at + 1) & mask; slots[2 * j + 1] !== 0; j = (j + 1) & mask) {
    const home = (slots[2 * j] as number) & mask
    // the entry at j stays when its home lies in (hole, j], cyclically
    const stays = hole <= j ? hole < home && home <= j : hole < home || home <= j
    if (stays) continue
    slots[2 * hole] = slots[2 * j] as number
    slots[2 * hole + 1] = slots[2 * j + 1] as number
    hole = j
  }
  slots[2 * hole] = 0
  slots[2 * hole + 1] = 0
  table.size--
}
