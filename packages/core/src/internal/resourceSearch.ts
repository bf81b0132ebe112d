/**
 * How a resource catalog answers: `searchPassages` ranks the passages of bodies, `sample` fuses
 * the ranking of metadata with the best passage of each resource. A strategy's defect is a
 * `SearchFailed` naming the strategy, never "no results".
 *
 * @internal
 */
import { Effect } from "effect"
import type { Entry, Match, PassageMatch, SearchOptions, Service } from "../ResourceCatalog.js"

import { type Hit, type SearchIndex } from "../SearchStrategy.js"
import { messageOf } from "./messages.js"
import * as Index from "./resourceIndex.js"
import type { ResourceTable } from "./resourceTable.js"

import { SearchFailed } from "../Errors.js"

/** The searches of a catalog: those of its service. */
export type ResourceSearch = Pick<Service, "sample" | "searchPassages">

/** The searches over `table`, whose metadata and passages the two indexes hold. */
export const make = (
  table: ResourceTable,
  metadata: SearchIndex,
  bodies: SearchIndex,
  strategy: string
): ResourceSearch => {
  const run = (index: SearchIndex, text: string, limit: number, accept: (id: string) => boolean) =>
    index.search({ text, limit, accept }).pipe(
      Effect.catchDefect((defect) => Effect.fail(new SearchFailed({ strategy, reason: messageOf(defect, 300) })))
    )

  const passageHits = (text: string, limit: number, accept: (e: Entry) => boolean) =>
    Effect.map(
      run(bodies, text, limit, (id) => {
        const passage = table.passage(id)
        const entry = passage === undefined ? undefined : table.get(passage.uri)
        return entry !== undefined && accept(entry)
      }),
      (hits: ReadonlyArray<Hit>) =>
        hits.flatMap((hit): ReadonlyArray<PassageMatch> => {
          const passage = table.passage(hit.id)
          const resource = passage === undefined ? undefined : table.get(passage.uri)
          return passage === undefined || resource === undefined ? [] : [{ resource, passage, score: hit.score }]
        })
    )

  const searchPassages = (query: string, opts: SearchOptions) =>
    Effect.flatMap(Index.queryText(query), (text) => passageHits(text, Math.max(0, opts.limit), opts.accept))

  const sample = (query: string, opts: SearchOptions) =>
    Effect.gen(function*() {
      const text = yield* Index.queryText(query)
      const limit = Math.max(0, opts.limit)
      const pool = Math.min(100, Math.max(limit * 5, 20))
      const [byMetadata, byBody] = yield* Effect.all([
        run(metadata, text, pool, (uri) => {
          const entry = table.get(uri)
          return entry !== undefined && opts.accept(entry)
        }),
        passageHits(text, pool, (e) => opts.accept(e) && (opts.acceptBody?.(e) ?? true))
      ])
      return Index.fuse(byMetadata, byBody, limit).flatMap(({ passage, score, uri }): ReadonlyArray<Match> => {
        const resource = table.get(uri)
        return resource === undefined ? [] : [{ resource, score, ...(passage === undefined ? {} : { passage }) }]
      })
    })

  return { sample, searchPassages }
}
