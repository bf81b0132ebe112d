/**
 * Semantic search: tools and queries become vectors through an `EmbeddingModel` (`effect/ai`), and
 * tools rank by cosine similarity to the query. Any provider plugs in as an `EmbeddingModel` layer;
 * `OfflineEmbeddings.layer` is the default that needs no network and no key.
 *
 * The index stays synchronous for the catalog: `add` only records the tool's text and queues it;
 * the next `search` embeds what is queued (in batches, skipping texts found in the `VectorCache`),
 * then ranks. A query never sees a snapshot: a tool registered a moment ago is embedded by the
 * next search that runs.
 *
 * A failing model — it cannot load, the provider is down — fails the search with `SearchFailed`,
 * which the model and the operator see. It is never reported as "no results"; the queued tools
 * stay queued and the next search tries again.
 *
 * @since 0.1.0
 */
import { Effect, type Layer, Semaphore } from "effect"
import type { EmbeddingModel } from "effect/ai"
import { words } from "../internal/analysis.js"
import * as EmbeddingStrategy from "../internal/embeddingStrategy.js"
import { TopK } from "../internal/TopK.js"
import * as VectorFile from "../internal/vectorFile.js"
import type { SearchDocument } from "../SearchDocument.js"

import { SearchFailed } from "../Errors.js"
import { type Hit, type SearchIndex, type SearchRequest, type SearchStrategy } from "../SearchStrategy.js"
import * as VectorCache from "../VectorCache.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * How the semantic strategy embeds and caches.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Names the embedding model in cache keys: change it when the model changes. */
  readonly model: string
  /**
   * Where tool vectors are kept between searches and runs; when absent, the cache of `model` in
   * the `VectorCache.Store` in context.
   */
  readonly cache?: VectorCache.VectorCache
  /** How many tool texts one provider call embeds. */
  readonly batchSize: number
  /** Called while queued tools are embedded (done, total): long first runs can show progress. */
  readonly onProgress?: (done: number, total: number) => void
}

/**
 * No cache, batches of 64.
 *
 * @since 0.1.0
 * @category models
 */
export const defaults: Options = { model: "default", cache: VectorCache.none, batchSize: 64 }

/**
 * The live semantic index: the `SearchIndex` operations plus raw similarities for fusion.
 *
 * @since 0.1.0
 * @category models
 */
export interface Index extends SearchIndex {
  /** Cosine similarity of every accepted tool to the query, after embedding what is queued. */
  readonly similarities: (
    request: Omit<SearchRequest, "limit">
  ) => Effect.Effect<ReadonlyMap<string, number>, SearchFailed>
}

/**
 * The text of a tool that is embedded: its name as words, its description, and its parameter
 * names. Sentence encoders read words, so `getHealthWorkforce` becomes `get health workforce`.
 *
 * @since 0.1.0
 * @category models
 */
export const documentText = (doc: SearchDocument): string => {
  const parts = [words(doc.name).join(" ").toLowerCase()]
  if (doc.aliases.length > 0) parts.push(doc.aliases.join(", "))
  if (doc.description.trim() !== "") parts.push(doc.description.trim())
  if (doc.parameterNames.length > 0) {
    parts.push(`Parameters: ${doc.parameterNames.map((p) => words(p).join(" ").toLowerCase()).join(", ")}`)
  }
  return parts.join(". ")
}

// -----------------------------------------------------------------------------
// Index
// -----------------------------------------------------------------------------

interface Entry {
  readonly text: string
  readonly key: string
  vector: Float32Array | undefined
}

/** Scales a vector to unit length, so a dot product is the cosine. */
const normalize = (values: ReadonlyArray<number>): Float32Array => {
  const v = Float32Array.from(values)
  let norm = 0
  for (let i = 0; i < v.length; i++) norm += (v[i] as number) * (v[i] as number)
  norm = Math.sqrt(norm)
  if (norm > 0) { for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) / norm }
  return v
}

const dot = (a: Float32Array, b: Float32Array): number => {
  const n = Math.min(a.length, b.length)
  let s = 0
  for (let i = 0; i < n; i++) s += (a[i] as number) * (b[i] as number)
  return s
}

/**
 * A new semantic index embedding with `model`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeIndexWith = (
  model: EmbeddingModel.EmbeddingModel,
  options: Options,
  strategy = "semantic"
): Effect.Effect<Index> =>
  Effect.gen(function*() {
    const entries = new Map<string, Entry>()
    const pending = new Set<string>()
    const embedding = yield* Semaphore.make(1)
    const cache = options.cache ?? (yield* (yield* VectorCache.Store).cacheFor(options.model))

    const failed = (reason: string) => new SearchFailed({ strategy, reason })

    /** Embeds every queued tool: cache first, then the model in batches. */
    const embedPending = embedding.withPermits(1)(Effect.gen(function*() {
      if (pending.size === 0) return
      const queued = [...pending].flatMap((id) => {
        const entry = entries.get(id)
        return entry === undefined ? [] : [{ id, entry }]
      })
      const cached = yield* cache.getMany(queued.map((q) => q.entry.key))
      const missing: Array<{ readonly id: string; readonly entry: Entry }> = []
      queued.forEach((q, i) => {
        const vector = cached[i]
        if (vector === undefined) missing.push(q)
        else if (entries.get(q.id) === q.entry) {
          q.entry.vector = vector
          pending.delete(q.id)
        }
      })
      for (let start = 0; start < missing.length; start += options.batchSize) {
        options.onProgress?.(start, missing.length)
        const batch = missing.slice(start, start + options.batchSize)
        const response = yield* model.embedMany(batch.map((q) => q.entry.text)).pipe(
          Effect.mapError((error) => failed(`the embedding model failed: ${error.message}`))
        )
        const fresh: Array<readonly [string, Float32Array]> = []
        batch.forEach((q, i) => {
          const embedded = response.embeddings[i]
          if (embedded === undefined) return
          const vector = normalize(embedded.vector)
          fresh.push([q.entry.key, vector])
          // a tool replaced or removed while the batch ran keeps its new state
          if (entries.get(q.id) === q.entry) {
            q.entry.vector = vector
            pending.delete(q.id)
          }
        })
        yield* cache.setMany(fresh)
      }
      if (missing.length > 0) options.onProgress?.(missing.length, missing.length)
    }))

    const embedQuery = (text: string) =>
      model.embed(text).pipe(
        Effect.map((r) => normalize(r.vector)),
        Effect.mapError((error) => failed(`the embedding model failed: ${error.message}`))
      )

    const similarities = (request: Omit<SearchRequest, "limit">) =>
      Effect.gen(function*() {
        const out = new Map<string, number>()
        if (request.text.trim() === "") return out
        yield* embedPending
        const query = yield* embedQuery(request.text)
        for (const [id, entry] of entries) {
          if (entry.vector !== undefined && request.accept(id)) out.set(id, dot(query, entry.vector))
        }
        return out
      })

    const search = (request: SearchRequest) =>
      Effect.gen(function*() {
        if (request.text.trim() === "") return [] as ReadonlyArray<Hit>
        yield* embedPending
        const query = yield* embedQuery(request.text)
        const top = new TopK(request.limit)
        for (const [id, entry] of entries) {
          if (entry.vector === undefined) continue
          const score = dot(query, entry.vector)
          if (top.wouldKeep(id, score) && request.accept(id)) top.offer(id, score)
        }
        return top.result()
      })

    return {
      add: (docs: ReadonlyArray<SearchDocument>) => {
        for (const doc of docs) {
          const text = documentText(doc)
          // the same text (only past queries changed, or a re-registration): keep its vector or its place in the queue
          if (entries.get(doc.id)?.text === text) continue
          entries.set(doc.id, { text, key: VectorFile.key(options.model, text), vector: undefined })
          pending.add(doc.id)
        }
      },
      remove: (ids: ReadonlyArray<string>) => {
        for (const id of ids) {
          entries.delete(id)
          pending.delete(id)
        }
      },
      search,
      similarities
    }
  })

/**
 * The semantic strategy over the `EmbeddingModel` in context, with explicit options; without a
 * `cache`, its indexes use the model's cache in the `VectorCache.Store` of the layer's context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWith = (options: Options): Layer.Layer<SearchStrategy, never, EmbeddingModel.EmbeddingModel> =>
  EmbeddingStrategy.layer("semantic", (model) => makeIndexWith(model, options))

/**
 * The semantic strategy over the `EmbeddingModel` in context, without a vector cache.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<SearchStrategy, never, EmbeddingModel.EmbeddingModel> = layerWith(defaults)
