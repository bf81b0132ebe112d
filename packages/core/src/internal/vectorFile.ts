/**
 * The vector cache's keys and file format. A key is a 128-bit hash of the model's name and a
 * text; a file is a sequence of records `16-byte key · uint32 dimensions · float32 × dimensions`
 * (little endian), appended to, never rewritten. A torn last record (a process killed while
 * writing) is ignored when the file is read.
 *
 * @internal
 */

/**
 * A 128-bit hash (cyrb128, four mixed 32-bit lanes) of a model name and a text, as 32 hex digits.
 * Collisions among even millions of texts are vanishingly unlikely, and it needs no platform
 * crypto, so it runs wherever the core runs.
 */
export const key = (model: string, text: string): string => {
  const input = `${model}\u0000${text}`
  let h1 = 1779033703, h2 = 3144134277, h3 = 1013904242, h4 = 2773480762
  for (let i = 0; i < input.length; i++) {
    const k = input.charCodeAt(i)
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067)
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233)
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213)
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179)
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067)
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233)
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213)
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179)
  h1 ^= h2 ^ h3 ^ h4
  h2 ^= h1
  h3 ^= h1
  h4 ^= h1
  return [h1, h2, h3, h4].map((h) => (h >>> 0).toString(16).padStart(8, "0")).join("")
}

/** The file of a model's vectors in `directory`: its name made safe for any file system. */
export const pathOf = (directory: string, model: string): string =>
  `${directory}/${model.replace(/[^A-Za-z0-9._-]+/g, "_")}.vectors`

const KEY_BYTES = 16

/** Records for `entries`, ready to append. */
export const serialize = (entries: ReadonlyArray<readonly [string, Float32Array]>): Uint8Array => {
  const size = entries.reduce((n, [, v]) => n + KEY_BYTES + 4 + v.length * 4, 0)
  const bytes = new Uint8Array(size)
  const view = new DataView(bytes.buffer)
  let at = 0
  for (const [k, v] of entries) {
    for (let i = 0; i < KEY_BYTES; i++) bytes[at + i] = parseInt(k.slice(i * 2, i * 2 + 2), 16)
    at += KEY_BYTES
    view.setUint32(at, v.length, true)
    at += 4
    for (let i = 0; i < v.length; i++, at += 4) view.setFloat32(at, v[i] as number, true)
  }
  return bytes
}

/** The vectors of a file's bytes by key; a torn last record is left out. */
export const parse = (bytes: Uint8Array): Map<string, Float32Array> => {
  const map = new Map<string, Float32Array>()
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let at = 0
  while (at + KEY_BYTES + 4 <= bytes.length) {
    let k = ""
    for (let i = 0; i < KEY_BYTES; i++) k += (bytes[at + i] as number).toString(16).padStart(2, "0")
    const dims = view.getUint32(at + KEY_BYTES, true)
    const start = at + KEY_BYTES + 4
    if (start + dims * 4 > bytes.length) break // torn last record
    const vector = new Float32Array(dims)
    for (let i = 0; i < dims; i++) vector[i] = view.getFloat32(start + i * 4, true)
    map.set(k, vector)
    at = start + dims * 4
  }
  return map
}
