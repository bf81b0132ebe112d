/**
 * Which of a query's terms each slot holds, and which of them its name holds: a key per slot (a
 * bit per term, and above them a bit per term in the name), set by one pass over the terms'
 * postings that adds nothing up, and how many slots have each key. The scorer bounds the scores
 * of a key's slots by its terms' bounds (a term outside the name by its largest impact outside
 * names, `Store.maxUnnamedImpact`) and adds up only the slots of the keys whose bounds can reach
 * the results (`Scorer`). Nothing here depends on the order of a term's postings.
 *
 * @internal
 */

/** At most this many terms get bits (two each): a query of more is scored another way. */
export const MAX_TERMS = 6

/** How many keys `terms` terms make (the empty one included): every key is below it. */
export const keysOf = (terms: number): number => 1 << (2 * terms)

/**
 * Sets `bit` (the term's) in the key of the slot of every posting `[from, to)`, and `bit <<
 * terms` too where the name holds the term (field 0: the low bits of the packed frequencies).
 */
export const addTerm = (
  slots: Int32Array,
  tfs: Int32Array,
  from: number,
  to: number,
  tfMax: number,
  keys: Uint16Array,
  bit: number,
  terms: number
): void => {
  const named = bit | (bit << terms)
  for (let i = from; i < to; i++) {
    const slot = slots[i] as number
    keys[slot] = (keys[slot] as number) | (((tfs[i] as number) & tfMax) === 0 ? bit : named)
  }
}

/** Counts the slots below `capacity` per key into `counts` (zeroed first). */
export const count = (keys: Uint16Array, capacity: number, counts: Int32Array): void => {
  for (let slot = 0; slot < capacity; slot++) {
    const key = keys[slot] as number
    counts[key] = (counts[key] as number) + 1
  }
}

/**
 * Writes to `found` where the postings `slots[from, to)` of the slots whose key is taken
 * (`taken` 1) are, in one pass over them; returns how many.
 */
export const find = (
  slots: Int32Array,
  from: number,
  to: number,
  keys: Uint16Array,
  taken: Uint8Array,
  found: Int32Array
): number => {
  let count = 0
  for (let i = from; i < to; i++) if (taken[keys[slots[i] as number] as number] === 1) found[count++] = i
  return count
}
