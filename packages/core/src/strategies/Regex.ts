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

/** A new regex index. */
export const makeIndex: Effect.Effect<SearchIndex> = Effect.sync(() => {
  const names = new Map<string, ReadonlyArray<string>>()
  return {
    add: (docs: ReadonlyArray<SearchDocument>) => docs.forEach((doc) => names.set(doc.id, [doc.name, ...doc.aliases])),
    remove: (ids) => ids.forEach((id) => names.delete(id)),
    search: (request) =>
      Effect.suspend(() => {
        const compiled = compile(request.text)
        if (Result.isFailure(compiled)) return Effect.fail(compiled.failure)
        const pattern = compiled.success
        const top = new TopK(request.limit)
        for (const [id, candidates] of names) {
          let best = 0
          for (const name of candidates) best = Math.max(best, scoreName(pattern, name))
          if (top.wouldKeep(id, best) && request.accept(id)) top.offer(id, best)
        }
        return Effect.succeed(top.result())
      })
  }
})

/** The regex strategy as a layer. */
export const layer: Layer.Layer<SearchStrategy> = Layer.succeed(SearchStrategy, { name: "regex", makeIndex })
