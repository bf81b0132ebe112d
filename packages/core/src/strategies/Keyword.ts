/**
 * Weighted keyword matching, the baseline of the Java agent core: each query keyword that occurs
 * in the tool name scores 0.5, in the description 0.35, in parameter names or descriptions 0.15;
 * the total is averaged over the keywords, so scores lie in [0, 1].
 *
 * Normalization is lower-casing with `_` and `-` read as spaces, and matching is by substring, so
 * `file` matches `read_file` and `files`. Aliases count as the name, the category as description.
 * It scans every candidate per query: simple and predictable, and the yardstick for the indexed
 * strategies.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { TopK } from "../internal/TopK.js"
import type { SearchDocument } from "../SearchDocument.js"
import { type SearchIndex, SearchStrategy } from "../SearchStrategy.js"

/** Field weights of the keyword strategy. */
const WEIGHTS = { name: 0.5, description: 0.35, parameters: 0.15 } as const

/** Lower-cases and reads `_` and `-` as spaces. */
const normalize = (text: string): string => text.toLowerCase().replace(/[_-]+/g, " ")

/** The keywords of a query text. */
const keywordsOf = (
  text: string
): ReadonlyArray<string> => [...new Set(normalize(text).split(/\s+/).filter((k) => k.length > 0))]

interface Entry {
  readonly name: string
  readonly description: string
  readonly parameters: string
}

const entryOf = (doc: SearchDocument): Entry => ({
  name: normalize([doc.name, ...doc.aliases].join(" ")),
  description: normalize(`${doc.description} ${doc.category}`),
  parameters: normalize([...doc.parameterNames, ...doc.parameterDescriptions].join(" "))
})

/** Scores one document's fields against keywords, in [0, 1]. */
const score = (entry: Entry, keywords: ReadonlyArray<string>): number => {
  if (keywords.length === 0) return 0
  let total = 0
  for (const k of keywords) {
    if (entry.name.includes(k)) total += WEIGHTS.name
    if (entry.description.includes(k)) total += WEIGHTS.description
    if (entry.parameters.includes(k)) total += WEIGHTS.parameters
  }
  return total / keywords.length
}

/**
 * A new keyword index.
 *
 * @since 0.1.0
 * @category constructors
 */
const makeIndex: Effect.Effect<SearchIndex> = Effect.sync(() => {
  const entries = new Map<string, Entry>()
  return {
    add: (docs) => docs.forEach((doc) => entries.set(doc.id, entryOf(doc))),
    remove: (ids) => ids.forEach((id) => entries.delete(id)),
    search: (request) =>
      Effect.sync(() => {
        const keywords = keywordsOf(request.text)
        const top = new TopK(request.limit)
        for (const [id, entry] of entries) {
          if (request.accept(id)) top.offer(id, score(entry, keywords))
        }
        return top.result()
      })
  }
})

/**
 * The keyword strategy as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<SearchStrategy> = Layer.succeed(SearchStrategy, { name: "keyword", makeIndex })
