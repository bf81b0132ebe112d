/**
 * How a tool catalog ranks a parsed query over its table: `select:` finds names exactly, `+term`
 * filters names and ranks the rest of the text, keywords rank through the strategy's index —
 * except that a query equal to a tool's full name puts that tool first. A strategy's defect is a
 * `SearchFailed` naming the strategy, never "no results".
 *
 * @internal
 */
import { Effect } from "effect"
import type * as Query from "../Query.js"
import { type SearchIndex } from "../SearchStrategy.js"
import type { Entry, Match } from "../ToolCatalog.js"
import { messageOf } from "./messages.js"
import type { ToolTable } from "./toolTable.js"

import type { InvalidQuery } from "../Errors.js"
import { SearchFailed } from "../Errors.js"

/** Ranks `query` over `table`: at most `limit` matches among the tools `accept` lets through. */
export type Rank = (
  query: Query.Query,
  limit: number,
  accept: (e: Entry) => boolean
) => Effect.Effect<ReadonlyArray<Match>, SearchFailed | InvalidQuery>

/** The ranking of a table whose documents `index` holds, ranked by the strategy `strategy`. */
export const make = (table: ToolTable, index: SearchIndex, strategy: string): Rank => {
  const rank = (
    query: Query.Query,
    limit: number,
    accept: (e: Entry) => boolean
  ): Effect.Effect<ReadonlyArray<Match>, SearchFailed | InvalidQuery> => {
    switch (query._tag) {
      case "Select":
        return Effect.sync(() => {
          const out: Array<Match> = []
          const seen = new Set<string>()
          for (const name of query.names) {
            const tool = table.findByName(name)
            if (tool !== undefined && !seen.has(tool.id) && accept(tool)) {
              seen.add(tool.id)
              out.push({ tool, score: 1 })
            }
          }
          return out.slice(0, limit)
        })
      case "Required": {
        const terms = query.required.filter((t) => t.length > 0)
        // an empty requirement would match every name: it is no requirement
        if (terms.length === 0) {
          return query.text.trim() === ""
            ? Effect.succeed([])
            : ranked(query.text, limit, accept)
        }
        const named = (e: Entry) => {
          const lower = e.modelName.toLowerCase()
          return terms.every((t) => lower.includes(t)) && accept(e)
        }
        if (query.text.trim() === "") {
          return Effect.sync(() =>
            table.all().filter(named).sort((a, b) => a.modelName.localeCompare(b.modelName)).slice(0, limit)
              .map((tool) => ({ tool, score: 1 }))
          )
        }
        return ranked(query.text, limit, named)
      }
      case "Keywords": {
        // a query that is a tool's full name finds that tool first, whatever the ranking (or feedback) says
        const named = table.findByName(query.text.trim())
        if (named === undefined || !accept(named) || limit <= 0) return ranked(query.text, limit, accept)
        return Effect.map(
          ranked(query.text, limit - 1, (e) => e.id !== named.id && accept(e)),
          (rest) => [{ tool: named, score: Math.max(rest[0]?.score ?? 1, 1) }, ...rest]
        )
      }
    }
  }

  const ranked = (text: string, limit: number, accept: (e: Entry) => boolean) =>
    index.search({
      text,
      limit,
      accept: (id) => {
        const e = table.get(id)
        return e !== undefined && accept(e)
      }
    }).pipe(
      Effect.map((hits) =>
        hits.flatMap((hit) => {
          const tool = table.get(hit.id)
          if (tool === undefined) return []
          return [
            hit.strength === undefined
              ? { tool, score: hit.score }
              : { tool, score: hit.score, strength: hit.strength }
          ]
        })
      ),
      Effect.catchDefect((defect) => Effect.fail(new SearchFailed({ strategy, reason: messageOf(defect) })))
    )

  return rank
}
