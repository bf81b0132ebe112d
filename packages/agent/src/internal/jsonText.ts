/**
 * A value's JSON text, as the model reads it: a tool's result for the cap on what the model sees, a
 * message part for the token accounting. One result is read by both, so the text of an object is
 * kept (per object, while the object lives) and built once; a value built just to be written
 * (`writeJson`) is not kept. A value `JSON.stringify` cannot write (a cycle, a BigInt) is its
 * `String`. A tool definition's text is here too: the token counter and the prefix accounting read it.
 */
import type { Definition } from "../TokenCounter.js"

/** Texts of objects already written. Results are not changed after a tool returns them. */
const texts = new WeakMap<object, string>()

/** `value` as JSON text (a string stays a string only when asked: `JSON.stringify` quotes it). */
export const jsonText = (value: unknown): string => {
  if (typeof value !== "object" || value === null) return write(value)
  const hit = texts.get(value)
  if (hit !== undefined) return hit
  const text = write(value)
  texts.set(value, text)
  return text
}

/** `value` as JSON text, not kept: for a value built just now, which nothing reads again. */
export const writeJson = (value: unknown): string => write(value)

/** A tool definition as the JSON a provider receives: `{name, description, parameters}`. */
export const definitionText = (tool: Definition): string =>
  write({ name: tool.name, description: tool.description, parameters: tool.parameters })

const write = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value) // a cycle or a BigInt: handlers should not return them, but may
  }
}
