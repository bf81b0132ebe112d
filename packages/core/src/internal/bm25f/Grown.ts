/**
 * Growing the typed arrays of a BM25F index: one copy into a larger array, for every kind the
 * index keeps (its tables, arenas and per-term figures).
 *
 * @internal
 */

/** The kinds of typed array an index grows. */
type Kind = Uint8Array | Uint16Array | Int32Array | Float32Array | Float64Array

/** A copy of `array` with room for `length` entries; the new ones are `fill` (0 unless given). */
export function grown(array: Uint8Array, length: number, fill?: number): Uint8Array<ArrayBuffer>
export function grown(array: Uint16Array, length: number, fill?: number): Uint16Array<ArrayBuffer>
export function grown(array: Int32Array, length: number, fill?: number): Int32Array<ArrayBuffer>
export function grown(array: Float32Array, length: number, fill?: number): Float32Array<ArrayBuffer>
export function grown(array: Float64Array, length: number, fill?: number): Float64Array<ArrayBuffer>
export function grown(array: Kind, length: number, fill = 0): Kind {
  const next = array instanceof Uint8Array
    ? new Uint8Array(length)
    : array instanceof Uint16Array
    ? new Uint16Array(length)
    : array instanceof Int32Array
    ? new Int32Array(length)
    : array instanceof Float32Array
    ? new Float32Array(length)
    : new Float64Array(length)
  if (fill !== 0) next.fill(fill, array.length)
  next.set(array)
  return next
}
