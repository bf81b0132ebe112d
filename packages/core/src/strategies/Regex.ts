/**
 * Regular expressions over tool names, the mode in which the model writes a pattern
 * (`slack_.*send`, `^github_(create|update)_`) instead of keywords. Matching is case-insensitive
 * and unanchored; a tool matches when its name or one of its aliases contains a match.
 *
 * Patterns come from a model, so they must be harmless: they are compiled by RE2JS, a port of
 * RE2 whose automata match in time linear in the name, whatever the pattern — `(a+)+$` cannot
 * backtrack because nothing backtracks. Writing a linear-time engine here would mean maintaining a
 * regex parser and matcher; RE2JS is a maintained, dependency-free, widely used one. The price is
 * RE2's syntax: no look-around and no back-references. Patterns longer than 200
 * characters, and patterns that do not compile, are `InvalidQuery` errors saying what to fix.
 *
 * Ranking: a name matched over a larger share of its length ranks higher (`send_message` before
 * `send_message_to_channel_with_attachments` for `send_message`), ties by id.
 *
 * Linear is not cheap: a short pattern with counted repetitions (`(.{0,30}){10}x`) compiles to
 * hundreds of instructions, and RE2 may step through every one of them for each character of each
 * name — 17 seconds over 100k names. So the work of one search is bounded: a match costs at most
 * (name length + 1) × instructions steps, the search adds up that bound as it goes, and stops with
 * an `InvalidQuery` saying the pattern is too expensive once the total passes `maxSteps` (default
 * `MAX_STEPS`). And the scan yields to other fibers (and, through the scheduler, to the event loop)
 * every `yieldEvery` names or `yieldSteps` steps, so one client's search never holds up another's
 * request for more than a few milliseconds.
 *
 * @since 0.1.0
 */
import { Effect, Layer, Result } from "effect"
import * as Pattern from "../internal/regexPattern.js"
import { TopK } from "../internal/TopK.js"
import type { SearchDocument } from "../SearchDocument.js"
import { type SearchIndex, SearchStrategy } from "../SearchStrategy.js"

/**
 * Default bound on the steps of one search: room for ordinary patterns (15–45 instructions) over
 * 100k names of about 28 characters (at most 124 million steps), and about a second of the worst
 * patterns' matching (`npm run bench:gateway`).
 *
 * @since 0.1.0
 * @category limits
 */
export const MAX_STEPS = 150_000_000

/**
 * Default number of names matched between two yields.
 *
 * @since 0.1.0
 * @category limits
 */
const YIELD_EVERY = 512

/**
 * Default number of steps between two yields: a few milliseconds of matching.
 *
 * @since 0.1.0
 * @category limits
 */
const YIELD_STEPS = 1_000_000

/**
 * How much work one search may do.
 *
 * @since 0.2.0
 * @category models
 */
export interface Budget {
  /** Steps one search may take (see the module docs for the cost of a match). */
  readonly maxSteps: number
  /** Names matched between two yields to other fibers. */
  readonly yieldEvery: number
  /** Steps between two yields, whichever of the two comes first. */
  readonly yieldSteps: number
}

/**
 * A new regex index with an explicit budget.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeIndexWith = (budget: Partial<Budget> = {}): Effect.Effect<SearchIndex> =>
  Effect.sync(() => {
    const maxSteps = budget.maxSteps ?? MAX_STEPS
    const yieldEvery = Math.max(1, budget.yieldEvery ?? YIELD_EVERY)
    const yieldSteps = Math.max(1, budget.yieldSteps ?? YIELD_STEPS)
    const names = new Map<string, ReadonlyArray<string>>()
    return {
      add: (docs: ReadonlyArray<SearchDocument>) =>
        docs.forEach((doc) => names.set(doc.id, [doc.name, ...doc.aliases])),
      remove: (ids) => ids.forEach((id) => names.delete(id)),
      search: (request) =>
        Effect.gen(function*() {
          const compiled = Pattern.compile(request.text)
          if (Result.isFailure(compiled)) return yield* compiled.failure
          const pattern = compiled.success
          const perChar = Pattern.instructions(pattern)
          const top = new TopK(request.limit)
          let steps = 0
          let sinceYield = 0
          let yieldedAt = 0
          // a Map iterator stays valid when the catalog changes while this search yields
          for (const [id, candidates] of names) {
            if (++sinceYield >= yieldEvery || steps - yieldedAt >= yieldSteps) {
              sinceYield = 0
              yieldedAt = steps
              yield* Effect.yieldNow
            }
            let best = 0
            for (const name of candidates) {
              steps += (name.length + 1) * perChar
              if (steps > maxSteps) return yield* Pattern.tooExpensive(pattern.toString(), perChar, steps, maxSteps)
              best = Math.max(best, Pattern.scoreName(pattern, name))
            }
            if (top.wouldKeep(id, best) && request.accept(id)) top.offer(id, best)
          }
          return top.result()
        })
    }
  })

/**
 * A new regex index, with the default budget.
 *
 * @since 0.1.0
 * @category constructors
 */
const makeIndex: Effect.Effect<SearchIndex> = makeIndexWith()

/**
 * The regex strategy as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<SearchStrategy> = Layer.succeed(SearchStrategy, { name: "regex", makeIndex })

/**
 * The regex strategy with an explicit budget per search.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerWith = (budget: Partial<Budget>): Layer.Layer<SearchStrategy> =>
  Layer.succeed(SearchStrategy, { name: "regex", makeIndex: makeIndexWith(budget) })
