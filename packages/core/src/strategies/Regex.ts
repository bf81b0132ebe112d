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
 * 150 million). And the scan yields to other fibers (and, through the scheduler, to the event loop)
 * every `yieldEvery` names or `yieldSteps` steps, so one client's search never holds up another's
 * request for more than a few milliseconds.
 *
 * @since 0.1.0
 */
import { Layer } from "effect"
import * as RegexIndex from "../internal/regexIndex.js"
import { SearchStrategy } from "../SearchStrategy.js"

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
 * The regex strategy with an explicit budget per search.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerWith = (budget: Partial<Budget>): Layer.Layer<SearchStrategy> =>
  Layer.succeed(SearchStrategy, { name: "regex", makeIndex: RegexIndex.make(budget) })

/**
 * The regex strategy as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<SearchStrategy> = layerWith({})
