/**
 * The regex index behind `Regex.layer`: names matched on RE2JS's linear-time automata within a
 * budget of steps, yielding to other fibers as it goes. Internal: tests and the benchmark reach it
 * directly (`@tool-search/core/internal/bench`); applications use `Regex.layerWith`.
 *
 * @internal
 */
import { Effect, Result } from "effect"
import type { SearchDocument } from "../SearchDocument.js"
import type { SearchIndex } from "../SearchStrategy.js"
import type { Budget } from "../strategies/Regex.js"
import * as Pattern from "./regexPattern.js"
import { TopK } from "./TopK.js"

/**
 * Default bound on the steps of one search: room for ordinary patterns (15–45 instructions) over
 * 100k names of about 28 characters (at most 124 million steps), and about a second of the worst
 * patterns' matching (`npm run bench:gateway`).
 */
export const MAX_STEPS = 150_000_000

/**
 * Default number of names matched between two yields.
 */
const YIELD_EVERY = 512

/**
 * Default number of steps between two yields: a few milliseconds of matching.
 */
const YIELD_STEPS = 1_000_000

/** A new regex index with an explicit budget (the defaults for what `budget` leaves out). */
export const make = (budget: Partial<Budget> = {}): Effect.Effect<SearchIndex> =>
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
