/**
 * How the resource catalog indexes: reading and splitting a body when its resource is registered,
 * the search documents of metadata and passages, and the fusion of the two rankings.
 *
 * @internal
 */
import { Effect } from "effect"

import { InvalidQuery } from "../Errors.js"
import type * as Resource from "../Resource.js"
import type { Entry, Options, Passage, PassageMatch } from "../ResourceCatalog.js"
import type { SearchDocument } from "../SearchDocument.js"
import type { Hit } from "../SearchStrategy.js"
import { messageOf } from "./messages.js"
import * as Passages from "./passages.js"
import { MAX_LENGTH } from "./queryLength.js"

/** A validated resource with its body split, ready to commit. */
export interface Prepared {
  readonly entry: Entry
  readonly passages: ReadonlyArray<Passage>
}

/** The ranking text of a query: trimmed, not empty, bounded. */
export const queryText = (query: string): Effect.Effect<string, InvalidQuery> => {
  const text = query.trim()
  if (text.length === 0) return Effect.fail(new InvalidQuery({ query, reason: "The query is empty: give a few words" }))
  if (text.length > MAX_LENGTH) {
    return Effect.fail(
      new InvalidQuery({ query: text.slice(0, 80), reason: `The query is longer than ${MAX_LENGTH} characters` })
    )
  }
  return Effect.succeed(text)
}

/** Reads and splits the body of a valid resource. Never fails: an unreadable body is recorded. */
export const prepare = (resource: Resource.Resource, options: Options): Effect.Effect<Prepared> => {
  const entry = (extra: Partial<Entry>): Entry => ({
    ...resource,
    id: resource.uri,
    modelName: resource.name,
    passages: 0,
    truncated: false,
    ...extra
  })
  if (resource.prompt !== undefined) {
    return Effect.succeed({ entry: entry({ unsearchable: "it is a prompt" }), passages: [] })
  }
  if (!options.indexBodies) {
    return Effect.succeed({ entry: entry({ unsearchable: "bodies are not indexed in this catalog" }), passages: [] })
  }
  const read = resource.read
  if (resource.template || read === undefined) {
    return Effect.succeed({
      entry: entry({ unsearchable: "it is a URI template: each concrete URI is read on its own" }),
      passages: []
    })
  }
  const unreadable = (error: unknown): Prepared => ({
    entry: entry({ unsearchable: `its body could not be read (${messageOf(error, 300)})` }),
    passages: []
  })
  const sizes = { target: options.passageTarget, max: options.passageMax }
  return Effect.suspend(() => read({ uri: resource.uri, offset: 0, length: options.maxIndexedChars })).pipe(
    Effect.timeout(options.indexTimeout),
    Effect.map((slice): Prepared => {
      if (slice.content._tag === "Bytes") {
        return { entry: entry({ size: slice.total, unsearchable: "its body is binary" }), passages: [] }
      }
      // a reader may send more than asked: never index more than the bound
      const text = slice.content.text.slice(0, options.maxIndexedChars)
      const passages = Passages.split(text, sizes).map((span, index): Passage => ({
        uri: resource.uri,
        index,
        offset: span.offset,
        length: span.length,
        heading: span.heading,
        text: text.slice(span.offset, span.offset + span.length)
      }))
      const total = Math.max(slice.total, text.length)
      return { entry: entry({ size: total, passages: passages.length, truncated: total > text.length }), passages }
    }),
    // a failing or crashing reader costs its own body's search, never the registration
    Effect.catch((error) =>
      Effect.succeed(unreadable(error._tag === "TimeoutError" ? "it took longer than the index timeout" : error))
    ),
    Effect.catchDefect((defect) => Effect.succeed(unreadable(defect)))
  )
}

/** The metadata of a resource as the strategies index it. */
export const metadataDocument = (entry: Entry): SearchDocument => ({
  id: entry.uri,
  name: entry.name,
  description: entry.description,
  parameterNames: entry.prompt?.arguments.map((a) => a.name) ?? [],
  parameterDescriptions: entry.prompt?.arguments.flatMap((a) => a.description ?? []) ?? [],
  category: entry.kind,
  aliases: [...(entry.title === undefined ? [] : [entry.title]), lastSegment(entry.uri)]
})

/** A passage as the strategies index it: its headings weigh like a name, its resource's name like an alias. */
export const passageDocument = (id: string, passage: Passage, entry: Entry): SearchDocument => ({
  id,
  name: passage.heading === "" ? entry.name : passage.heading,
  description: passage.text,
  parameterNames: [],
  parameterDescriptions: [],
  category: entry.kind,
  aliases: [entry.title ?? entry.name]
})

/** Rank fusion constant (reciprocal rank fusion). */
const RRF_K = 60

/**
 * Reciprocal rank fusion of the metadata ranking and the ranking of each resource's best passage:
 * the best `limit` URIs, each with the passage that matched first, ties broken by URI.
 */
export const fuse = (
  byMetadata: ReadonlyArray<Hit>,
  byBody: ReadonlyArray<PassageMatch>,
  limit: number
): ReadonlyArray<{ readonly uri: string; readonly score: number; readonly passage?: Passage }> => {
  const fused = new Map<string, { score: number; passage?: Passage }>()
  byMetadata.forEach((hit, rank) => fused.set(hit.id, { score: 1 / (RRF_K + rank + 1) }))
  let rank = 0
  for (const hit of byBody) {
    const uri = hit.resource.uri
    const current = fused.get(uri)
    if (current?.passage !== undefined) continue // a better passage of this resource came first
    fused.set(uri, { score: (current?.score ?? 0) + 1 / (RRF_K + ++rank), passage: hit.passage })
  }
  return [...fused.entries()]
    .sort(([a, x], [b, y]) => y.score - x.score || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, limit)
    .map(([uri, v]) => ({ uri, ...v }))
}

/** The last path segment of a URI, decoded when possible (`refund-policy.md`). */
const lastSegment = (uri: string): string => {
  const path = uri.replace(/[?#].*$/, "").replace(/\/+$/, "")
  const segment = path.slice(path.lastIndexOf("/") + 1)
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}
