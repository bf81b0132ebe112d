/**
 * Patterns of the regex strategy: compiling a model's pattern with RE2JS (linear-time matching,
 * RE2 syntax), scoring a name, and what a match may cost.
 *
 * @internal
 */
import { Result } from "effect"
import { RE2JS } from "re2js"

import { InvalidQuery } from "../Errors.js"

/** Longest pattern accepted, in characters. */
export const MAX_LENGTH = 200

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
  if (source.length > MAX_LENGTH) {
    return Result.fail(
      new InvalidQuery({
        query: source.slice(0, 80),
        reason:
          `The regular expression is too long (${source.length} characters; at most ${MAX_LENGTH}). Use a shorter pattern.`
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

/** The instructions of a compiled pattern: what one character of a name may cost. */
export const instructions = (pattern: Pattern): number => {
  // RE2JS keeps its program on the compiled object; the count is only used to bound work.
  const program = (pattern as unknown as { re2Input?: { prog?: { inst?: { length?: unknown } } } }).re2Input?.prog
  const length = program?.inst?.length
  return typeof length === "number" && length > 0 ? length : 1
}

/** The answer for a search that would cost more than its budget. */
export const tooExpensive = (source: string, perChar: number, steps: number, maxSteps: number): InvalidQuery =>
  new InvalidQuery({
    query: source.slice(0, 80),
    reason: `The regular expression '${source}' is too expensive for this catalog: it costs up to ${perChar} ` +
      `steps per character of each tool name, and the search stopped after ${steps} steps (the limit is ` +
      `${maxSteps}). Use a simpler pattern (fewer counted repetitions such as {0,30}, fewer nested groups) ` +
      `or a required name part ('+slack send').`
  })
