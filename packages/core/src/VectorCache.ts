/**
 * Where the semantic strategy keeps tool vectors between runs, keyed by a hash of the embedding
 * model's name and the tool's text: a tool whose text did not change is never embedded twice, and
 * changing its description or the model simply misses the cache.
 *
 * A cache is an optimization, never a source of failure: a file that cannot be read or written is
 * logged as a warning and the vectors are computed as if there were no cache.
 *
 * - `none`: nothing is kept (tests, providers that are cheap to call).
 * - `memory()`: kept for the life of the process.
 * - `file(directory)`: an append-only binary file per model under `directory`, loaded once, so a
 *   second run of the CLI or the benchmark embeds nothing. The default directory is
 *   `$TOOL_SEARCH_CACHE_DIR`, else `node_modules/.cache/tool-search` under the working directory
 *   when `node_modules` exists there, else `tool-search` under the user's cache directory.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type * as NodeFsModule from "node:fs"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/** A store of vectors by key. */
export interface VectorCache {
  /** The cached vector of each key, `undefined` where there is none. */
  readonly getMany: (keys: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Float32Array | undefined>>
  /** Stores vectors; failures are logged, not raised. */
  readonly setMany: (entries: ReadonlyArray<readonly [key: string, vector: Float32Array]>) => Effect.Effect<void>
}

// -----------------------------------------------------------------------------
// Keys
// -----------------------------------------------------------------------------

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

// -----------------------------------------------------------------------------
// Constructors
// -----------------------------------------------------------------------------

/** Keeps nothing. */
export const none: VectorCache = {
  getMany: (keys) => Effect.succeed(keys.map(() => undefined)),
  setMany: () => Effect.void
}

/** Keeps vectors in this process. */
export const memory = (): VectorCache => {
  const vectors = new Map<string, Float32Array>()
  return {
    getMany: (keys) => Effect.sync(() => keys.map((k) => vectors.get(k))),
    setMany: (entries) => Effect.sync(() => entries.forEach(([k, v]) => vectors.set(k, v)))
  }
}

/** The default cache directory (see the module documentation). */
export const defaultDirectory = (): string => {
  const env = process.env["TOOL_SEARCH_CACHE_DIR"]
  if (env !== undefined && env !== "") return env
  const cwd = process.cwd()
  if (nodeFs().existsSync(`${cwd}/node_modules`)) return `${cwd}/node_modules/.cache/tool-search`
  const xdg = process.env["XDG_CACHE_HOME"]
  const home = process.env["HOME"] ?? process.env["USERPROFILE"] ?? cwd
  return `${xdg !== undefined && xdg !== "" ? xdg : `${home}/.cache`}/tool-search`
}

/**
 * Keeps vectors in `directory/<name>.vectors`, one append-only file per model. Records are
 * `16-byte key · uint32 dimensions · float32 × dimensions` (little endian); a torn last record (a
 * process killed while writing) is ignored.
 */
export const file = (directory: string, name: string): VectorCache => {
  const path = `${directory}/${name.replace(/[^A-Za-z0-9._-]+/g, "_")}.vectors`
  let loaded: Map<string, Float32Array> | undefined

  const load = Effect.suspend(() => {
    if (loaded !== undefined) return Effect.succeed(loaded)
    return Effect.tryPromise(() => nodeFs().promises.readFile(path)).pipe(
      Effect.map(parse),
      Effect.catch((error) =>
        isNotFound(error.cause)
          ? Effect.succeed(new Map<string, Float32Array>())
          : Effect.as(
            Effect.logWarning(`tool-search: cannot read the vector cache ${path}; embedding without it`, error.cause),
            new Map<string, Float32Array>()
          )
      ),
      Effect.tap((map) => Effect.sync(() => (loaded = map)))
    )
  })

  return {
    getMany: (keys) => Effect.map(load, (map) => keys.map((k) => map.get(k))),
    setMany: (entries) =>
      entries.length === 0 ? Effect.void : Effect.flatMap(load, (map) => {
        for (const [k, v] of entries) map.set(k, v)
        return Effect.tryPromise(async () => {
          const fs = nodeFs().promises
          await fs.mkdir(directory, { recursive: true })
          await fs.appendFile(path, serialize(entries))
        }).pipe(
          Effect.catch((error) => Effect.logWarning(`tool-search: cannot write the vector cache ${path}`, error.cause))
        )
      })
  }
}

// -----------------------------------------------------------------------------
// Internals
// -----------------------------------------------------------------------------

type NodeFs = typeof NodeFsModule

// The file cache only runs on Node; resolving `node:fs` on first use keeps the module importable
// elsewhere. `process.getBuiltinModule` exists from Node 20.16 (the engines field asks for 20.19).
const nodeFs = (): NodeFs => process.getBuiltinModule("node:fs") as NodeFs

const isNotFound = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "code" in error && (error as { code: unknown }).code === "ENOENT"

const KEY_BYTES = 16

const serialize = (entries: ReadonlyArray<readonly [string, Float32Array]>): Uint8Array => {
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

const parse = (bytes: Uint8Array): Map<string, Float32Array> => {
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
