/**
 * Learning from use, on the view's side: which ranked search of this unit found each tool, so
 * that a later successful call of the tool records the pair (query, tool) in `SearchFeedback`.
 * A `select:` names tools rather than finding them, so it is no evidence.
 *
 * @internal
 */
import { Effect, Ref } from "effect"
import type * as Query from "../Query.js"
import type { Service as SearchFeedbackService } from "../SearchFeedback.js"
import type { Match } from "../ToolCatalog.js"

/** The searches of one unit. */
export interface FoundBy {
  /** Remembers that `query` returned these matches (the last query wins for a tool). */
  readonly remember: (query: Query.Query, matches: ReadonlyArray<Match>) => Effect.Effect<void>
  /** Records the query that found `toolId`, if a ranked search of this unit did, as evidence. */
  readonly recordSuccessfulCall: (toolId: string) => Effect.Effect<void>
}

/** An empty record for a unit searching the catalog named `catalog`, recording into `feedback`. */
export const make = (catalog: string, feedback: SearchFeedbackService): FoundBy => {
  const queries = Ref.makeUnsafe(new Map<string, string>())
  return {
    remember: (query, matches) => {
      if (query._tag === "Select" || matches.length === 0) return Effect.void
      const text = query._tag === "Required" ? [...query.required, query.text].join(" ").trim() : query.text
      return Ref.update(queries, (found) => {
        const next = new Map(found)
        for (const m of matches) next.set(m.tool.id, text)
        return next
      })
    },
    recordSuccessfulCall: (toolId) =>
      Effect.suspend(() => {
        const query = Ref.getUnsafe(queries).get(toolId)
        return query === undefined ? Effect.void : feedback.record({ catalog, query, toolId })
      })
  }
}
