/**
 * Regular expressions over tool names, the mode in which the model writes a pattern
 * (`slack_.*send`, `^github_(create|update)_`) instead of keywords. Matching is case-insensitive
 * and unanchored; a tool matches when its name or one of its aliases contains a match.
 *
 * Patterns come from a model, so they must be harmless: they are compiled by RE2JS, a port of
 * RE2 whose automata match in time linear in the name, whatever the pattern — `(a+)+$` cannot
 * backtrack because nothing backtracks. Writing a linear-time engine here would mean maintaining a
 * regex parser and matcher; RE2JS is a maintained, dependency-free, widely used one. The price is
 * RE2's syntax: no look-around and no back-references. Patterns longer than `MAX_PATTERN_LENGTH`
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
import { RE2JS } from "re2js"
import { TopK } from "../internal/TopK.js"
import { InvalidQuery } from "../Query.js"
import type { SearchDocument } from "../SearchDocument.js"
import { type SearchIndex, SearchStrategy } from "../SearchStrategy.js"

/** Longest pattern accepted, in characters. */
export const MAX_PATTERN_LENGTH = 200

/** A compiled pattern. */
export type Pattern = RE2JS

/** Compiles a pattern, or explains to the model why it cannot be used. */
export const compile = (pattern: string): Result.Result<Pattern, InvalidQuery> => {
  const source = pattern.trim()
  if (source.length === 0) {
    return Result.fail(
      new InvalidQuery({
        query: pattern,
        reason: "The regular expression is empty: give a pattern such as 'slack.*send'"
      })
    )
  }
  if (source.length > MAX_PATTERN_LENGTH) {
    return Result.fail(
      new InvalidQuery({
        query: source.slice(0, 80),
        reason:
          `The regular expression is too long (${source.length} characters; at most ${MAX_PATTERN_LENGTH}). Use a shorter pattern.`
      })
    )
  }
  try {
    return Result.succeed(RE2JS.compile(source, RE2JS.CASE_INSENSITIVE))
  } catch (error) {
    const detail = error instanceof Error ? error.message.replace(/^error parsing regexp: /, "") : String(error)
    return Result.fail(
      new InvalidQuery({
        query: source,
        reason:
          `Invalid regular expression '${source}': ${detail}. Patterns use RE2 syntax: no look-around, no back-references.`
      })
    )
  }
}

/** The score of a name for a pattern: the matched share of the name, 0 when it does not match. */
export const scoreName = (pattern: Pattern, name: string): number => {
  const matcher = pattern.matcher(name)
  if (!matcher.find()) return 0
  const length = matcher.end() - matcher.start()
  // an empty match (`x*`) still matches: give it the smallest positive score
  return Math.max(length, 0.5) / Math.max(name.length, 1)
}

/**
 * Default bound on the steps of one search: room for ordinary patterns (15–45 instructions) over
 * 100k names of about 28 characters (at most 124 million steps), and about a second of the worst
 * patterns' matching (`npm run bench:gateway`).
 */
export const MAX_STEPS = 150_000_000

/** Default number of names matched between two yields. */
export const YIELD_EVERY = 512

/** Default number of steps between two yields: a few milliseconds of matching. */
export const YIELD_STEPS = 1_000_000

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
 * The instructions of a compiled pattern: what one character of a name may cost.
 *
 * @since 0.2.0
 * @category models
 */
export const instructions = (pattern: Pattern): number => {
  // RE2JS keeps its program on the compiled object; the count is only used to bound work.
  const program = (pattern as unknown as { re2Input?: { prog?: { inst?: { length?: unknown } } } }).re2Input?.prog
  const length = program?.inst?.length
  return typeof length === "number" && length > 0 ? length : 1
}

/** The answer for a search that would cost more than its budget. */
const tooExpensive = (source: string, perChar: number, steps: number, maxSteps: number): InvalidQuery =>
  new InvalidQuery({
    query: source.slice(0, 80),
    reason: `The regular expression '${source}' is too expensive for this catalog: it costs up to ${perChar} ` +
      `steps per character of each tool name, and the search stopped after ${steps} steps (the limit is ` +
      `${maxSteps}). Use a simpler pattern (fewer counted repetitions such as {0,30}, fewer nested groups) ` +
      `or a required name part ('+slack send').`
  })

/** A new regex index with an explicit budget. */
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
          const compiled = compile(request.text)
          if (Result.isFailure(compiled)) return yield* compiled.failure
          const pattern = compiled.success
          const perChar = instructions(pattern)
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
              if (steps > maxSteps) return yield* tooExpensive(pattern.toString(), perChar, steps, maxSteps)
              best = Math.max(best, scoreName(pattern, name))
            }
            if (top.wouldKeep(id, best) && request.accept(id)) top.offer(id, best)
          }
          return top.result()
        })
    }
  })

/** A new regex index, with the default budget. */
export const makeIndex: Effect.Effect<SearchIndex> = makeIndexWith()

/** The regex strategy as a layer. */
export const layer: Layer.Layer<SearchStrategy> = Layer.succeed(SearchStrategy, { name: "regex", makeIndex })

/**
 * The regex strategy with an explicit budget per search.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerWith = (budget: Partial<Budget>): Layer.Layer<SearchStrategy> =>
  Layer.succeed(SearchStrategy, { name: "regex", makeIndex: makeIndexWith(budget) })
