/**
 * The cap on what the model sees of one tool result. A result within the cap passes unchanged (as
 * the value the tool returned); a longer one becomes its text cut to the cap, plus a note saying
 * how much was cut. The whole result goes to the app in the `Truncation`.
 */
import type { Service as TokenCounterService } from "../TokenCounter.js"
import type { Truncation } from "../UnitToolkit.js"
import { jsonText } from "./jsonText.js"

/** The result the model receives, and what was cut. */
export interface Capped {
  readonly result: unknown
  readonly truncated: Truncation | null
}

/** Caps `result` at `maxTokens` tokens of its text (a string as is, anything else as JSON). */
export const cap = (result: unknown, maxTokens: number, counter: TokenCounterService): Capped => {
  const text = typeof result === "string" ? result : jsonText(result)
  // a token is at least one byte of UTF-8: within the cap in bytes, no count is needed
  if (withinBytes(text, maxTokens)) return { result, truncated: null }
  const kept = counter.truncate(text, maxTokens)
  if (kept.length === text.length) return { result, truncated: null }
  const cut = text.length - kept.length
  return {
    result: `${kept}\n\n[Result cut to ${maxTokens.toLocaleString("en-US")} tokens: ${cut.toLocaleString("en-US")} of ${
      text.length.toLocaleString("en-US")
    } characters not shown. Ask the tool for less (a narrower query, a page, a filter) to see the rest.]`,
    truncated: { maxTokens, shownCharacters: kept.length, totalCharacters: text.length, full: result }
  }
}

/** Whether `text` is at most `max` bytes of UTF-8; stops counting as soon as it is not. */
const withinBytes = (text: string, max: number): boolean => {
  if (text.length > max) return false
  if (text.length * 3 <= max) return true
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    // a surrogate pair is 4 bytes in all, 2 per UTF-16 unit
    bytes += unit < 0x80 ? 1 : unit < 0x800 ? 2 : unit >= 0xd800 && unit <= 0xdfff ? 2 : 3
    if (bytes > max) return false
  }
  return true
}
