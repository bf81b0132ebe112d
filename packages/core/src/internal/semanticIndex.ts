/**
 * The semantic index behind `Semantic.layer` and `Hybrid`: the text embedded for a tool, vectors
 * from the cache or the model in batches, cosine similarity. Internal: tests and the benchmark reach
 * it directly (`@tool-search/core/internal/bench`); applications use `Semantic.layerWith`.
 *
 * @internal
 */
import { Effect, Semaphore } from "effect"
import type { EmbeddingModel } from "effect/ai"
import { SearchFailed } from "../Errors.js"
import type { SearchDocument } from "../SearchDocument.js"
import type { Hit, SearchRequest } from "../SearchStrategy.js"
import type { Index, Options } from "../strategies/Semantic.js"
import * as VectorCache from "../VectorCache.js"
import { words } from "./analysis.js"
import { TopK } from "./TopK.js"
import * as VectorFile from "./vectorFile.js"

/**
 * The text of a tool that is embedded: its name as words, its description, and its parameter
 * names. Sentence encoders read words, so `getHealthWorkforce` becomes `get health workforce`.
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

/** A new semantic index embedding with `model`; `strategy` names it in its errors. */
export const make = (
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

    // combinators, not generators: a generator function made per search costs V8 a new prototype
    /** The query's vector, once every pending document is embedded. */
    const queryVector = (text: string) => Effect.andThen(embedPending, embedQuery(text))

    const similarities = (request: Omit<SearchRequest, "limit">) =>
      request.text.trim() === ""
        ? Effect.succeed(new Map<string, number>())
        : Effect.map(queryVector(request.text), (query) => {
          const out = new Map<string, number>()
          for (const [id, entry] of entries) {
            if (entry.vector !== undefined && request.accept(id)) out.set(id, dot(query, entry.vector))
          }
          return out
        })

    const search = (request: SearchRequest) =>
      request.text.trim() === ""
        ? Effect.succeed([] as ReadonlyArray<Hit>)
        : Effect.map(queryVector(request.text), (query) => {
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
