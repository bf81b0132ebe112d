/**
 * What an error or defect says, in one bounded line: the catalogs turn a strategy's defect into
 * `SearchFailed`, the views a reader's defect into `ResourceReadError`, handlers a failure into
 * `ToolExecutionError`, all with the same words.
 *
 * @internal
 */
import { Predicate } from "effect"

/** The message of an error (anything with a string `message`), else its string form; cut at `max` characters. */
export const messageOf = (cause: unknown, max = Number.POSITIVE_INFINITY): string => {
  const text = Predicate.hasProperty(cause, "message") && typeof cause.message === "string"
    ? cause.message
    : String(cause)
  return text.length > max ? text.slice(0, max) : text
}
