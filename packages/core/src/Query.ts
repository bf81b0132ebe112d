/**
 * The query language of the search tools. The prefix alone decides the mode:
 *
 * - `read file` — ranked keywords.
 * - `select:Read,Edit` — exact tool names, no ranking.
 * - `+slack send` — the name must contain `slack`; the rest (`send`) ranks. Several `+terms` may
 *   appear anywhere in the query; all must match.
 *
 * Parsing never throws: malformed input is an `InvalidQuery` whose message is written for the model.
 *
 * @since 0.1.0
 */
import { Result } from "effect"

import { InvalidQuery } from "./Errors.js"
import { MAX_LENGTH } from "./internal/queryLength.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * Ranked keyword search over the searchable fields.
 *
 * @since 0.1.0
 * @category models
 */
export interface Keywords {
  readonly _tag: "Keywords"
  /** The query text, trimmed; strategies tokenize it their own way. */
  readonly text: string
}

/**
 * Exact selection by name: no ranking. Every name is honoured up to the hard cap of `max_results`
 * (`Disclosure.maxResultsLimit`), whatever `max_results` says; the search answer names the names
 * it did not load and why.
 *
 * @since 0.1.0
 * @category models
 */
export interface Select {
  readonly _tag: "Select"
  readonly names: ReadonlyArray<string>
}

/**
 * A name filter (`+slack`) plus optional ranking text.
 *
 * @since 0.1.0
 * @category models
 */
export interface Required {
  readonly _tag: "Required"
  /** Lower-cased terms each tool name must contain. */
  readonly required: ReadonlyArray<string>
  /** The remaining text; empty means "order by name". */
  readonly text: string
}

/**
 * A parsed query.
 *
 * @since 0.1.0
 * @category models
 */
export type Query = Keywords | Select | Required

// -----------------------------------------------------------------------------
// Constructors
// -----------------------------------------------------------------------------

/**
 * A keyword query.
 *
 * @since 0.1.0
 * @category constructors
 */
export const keywords = (text: string): Query => ({ _tag: "Keywords", text })

/** A selection of exact names. */
const select = (names: ReadonlyArray<string>): Query => ({ _tag: "Select", names })

/**
 * A name filter with ranking text.
 *
 * @since 0.1.0
 * @category constructors
 */
const required = (terms: ReadonlyArray<string>, text: string): Query => ({
  _tag: "Required",
  required: terms,
  text
})

// -----------------------------------------------------------------------------
// Parsing
// -----------------------------------------------------------------------------

const SELECT = /^select:/i

/**
 * Parses a query; never throws.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (input: string): Result.Result<Query, InvalidQuery> => {
  const text = input.trim()
  if (text.length === 0) return Result.fail(new InvalidQuery({ query: input, reason: "Query cannot be empty" }))
  if (text.length > MAX_LENGTH) {
    return Result.fail(
      new InvalidQuery({
        query: text.slice(0, 80),
        reason: `Query is too long (${text.length} characters; at most ${MAX_LENGTH}). Use a few keywords.`
      })
    )
  }
  if (SELECT.test(text)) {
    const names = dedupe(text.replace(SELECT, "").split(",").map((n) => n.trim()).filter((n) => n.length > 0))
    if (names.length === 0) {
      return Result.fail(
        new InvalidQuery({ query: text, reason: "select: needs at least one tool name, e.g. select:Read,Edit" })
      )
    }
    return Result.succeed(select(names))
  }
  const tokens = text.split(/\s+/)
  if (tokens.some((t) => t.startsWith("+"))) {
    // `++slack` requires `slack`; a bare `+` requires nothing (it would match every name)
    const terms = dedupe(
      tokens.filter((t) => t.startsWith("+")).map((t) => t.replace(/^\++/, "").toLowerCase()).filter((t) =>
        t.length > 0
      )
    )
    const rest = tokens.filter((t) => !t.startsWith("+")).join(" ")
    if (terms.length > 0) return Result.succeed(required(terms, rest))
    if (rest.length > 0) return Result.succeed(keywords(rest))
    return Result.fail(
      new InvalidQuery({
        query: text,
        reason: "A bare '+' requires nothing: write the name part after it, e.g. '+slack send'"
      })
    )
  }
  return Result.succeed(keywords(text))
}

const dedupe = (xs: ReadonlyArray<string>): ReadonlyArray<string> => [...new Set(xs)]

/**
 * A short human rendering of the mode, as the CLI and events print it.
 *
 * @since 0.1.0
 * @category accessors
 */
export const mode = (query: Query): "keywords" | "select" | "required" =>
  query._tag === "Keywords" ? "keywords" : query._tag === "Select" ? "select" : "required"
