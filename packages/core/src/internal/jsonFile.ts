/**
 * A file of JSON entries — a JSON array, or JSON Lines (one object per line) — split into raw
 * values with the line each starts on. The tool and the resource files share it, so both report a
 * broken file the same way: the line of a JSON error, and its text made printable.
 *
 * @internal
 */
import { Effect, Predicate } from "effect"
import { CatalogFileError } from "../Errors.js"
import * as Json from "./json.js"
import { elementLines } from "./jsonElements.js"
import { printable } from "./printable.js"

/** One entry of the file: a raw value and the line it starts on, or why that line is not one. */
export type Item =
  | { readonly _tag: "Entry"; readonly line: number; readonly value: unknown }
  | { readonly _tag: "Invalid"; readonly error: CatalogFileError }

/** A file that is one JSON object may say where its entries are (an MCP `tools/list` result). */
export type Document = (
  document: Record<string, unknown>,
  fail: (line: number, reason: string) => Effect.Effect<never, CatalogFileError>
) => Effect.Effect<ReadonlyArray<Item>, CatalogFileError> | undefined

/** Splits `text` into the raw objects of `noun`s (`tool`, `resource`) with the line each starts on. */
export const split = (
  file: string,
  text: string,
  noun: string,
  document: Document = () => undefined
): Effect.Effect<ReadonlyArray<Item>, CatalogFileError> => {
  const fail = (line: number, reason: string) => Effect.fail(new CatalogFileError({ file, line, reason }))
  const trimmed = text.trimStart()
  if (trimmed.length === 0) return fail(1, "the file is empty")
  if (trimmed.startsWith("[")) {
    const whole = Json.parse(text)
    if (!whole.ok) return fail(errorLine(text, whole.error), `invalid JSON: ${printable(whole.error)}`)
    return Array.isArray(whole.value)
      ? Effect.succeed(elements(text, whole.value, []))
      : fail(1, `expected a JSON array of ${noun}s`)
  }
  const whole = trimmed.startsWith("{") ? Json.parse(text) : undefined
  if (whole?.ok === true && Predicate.isObject(whole.value)) {
    const entries = document(whole.value, fail)
    if (entries !== undefined) return entries
  }
  return Effect.succeed(jsonLines(file, text, noun))
}

/** The elements of the array at `path` of the file's JSON, each with the line it starts on. */
export const elements = (text: string, values: ReadonlyArray<unknown>, path: ReadonlyArray<string>): Array<Item> => {
  const lines = elementLines(text, path)
  return values.map((value, i) => ({ _tag: "Entry", line: lines[i] ?? i + 1, value }))
}

const jsonLines = (file: string, text: string, noun: string): Array<Item> =>
  Json.lines(text).map((parsed): Item => {
    const { line } = parsed
    if (!parsed.ok) {
      return {
        _tag: "Invalid",
        error: new CatalogFileError({ file, line, reason: `invalid JSON: ${printable(parsed.error)}` })
      }
    }
    if (!Predicate.isObject(parsed.value)) {
      return {
        _tag: "Invalid",
        error: new CatalogFileError({ file, line, reason: `expected a JSON object (one ${noun} per line)` })
      }
    }
    return { _tag: "Entry", line, value: parsed.value }
  })

/** The line of a `JSON.parse` error, from the position V8 reports. */
const errorLine = (text: string, error: string): number => {
  const line = /\(line (\d+) column \d+\)/.exec(error)
  if (line !== null) return Number(line[1])
  const position = /position (\d+)/.exec(error)
  if (position === null) return 1
  let count = 1
  const end = Math.min(text.length, Number(position[1]))
  for (let i = 0; i < end; i++) if (text.charCodeAt(i) === 10) count++
  return count
}
