/**
 * Catalog files: JSON Lines (one tool per line, as in `shared/bench/*\/tools.jsonl`), a JSON
 * array of the same objects, or an MCP `tools/list` result (`{"tools":[{name, description,
 * inputSchema}]}`). A tool without `loading` is deferred.
 *
 * Parsing is all-or-nothing: the first bad line is a `CatalogFileError` naming the file, the line
 * and what was wrong, and no tool of the file is returned.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import * as CatalogTool from "./CatalogTool.js"

/** A catalog file that cannot be read; `line` is 1-based (0 when the file itself is missing). */
export class CatalogFileError extends Schema.TaggedError<CatalogFileError>()("CatalogFileError", {
  file: Schema.String,
  line: Schema.Number,
  reason: Schema.String
}) {
  override get message(): string {
    return this.line > 0 ? `${this.file}:${this.line}: ${this.reason}` : `${this.file}: ${this.reason}`
  }
}

/** How a file's tools are decoded. */
export type Options = CatalogTool.DecodeOptions

/** Parses the text of a catalog file named `file` (the name is only used in errors). */
export const parse = (
  file: string,
  text: string,
  options: Options = {}
): Effect.Effect<ReadonlyArray<CatalogTool.CatalogTool>, CatalogFileError> =>
  Effect.gen(function*() {
    const items = yield* split(file, text)
    const tools: Array<CatalogTool.CatalogTool> = []
    const lineOfId = new Map<string, number>()
    for (const { line, value } of items) {
      const tool = yield* CatalogTool.decode(value, options).pipe(
        Effect.mapError((e) => new CatalogFileError({ file, line, reason: e.message }))
      )
      const previous = lineOfId.get(tool.id)
      if (previous !== undefined) {
        return yield* new CatalogFileError({
          file,
          line,
          reason: `duplicate tool id '${tool.id}' (first on line ${previous})`
        })
      }
      lineOfId.set(tool.id, line)
      tools.push(tool)
    }
    return tools
  })

interface Item {
  readonly line: number
  readonly value: unknown
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Splits a file into raw tool objects with the line each starts on. */
const split = (file: string, text: string): Effect.Effect<ReadonlyArray<Item>, CatalogFileError> => {
  const trimmed = text.trimStart()
  if (trimmed.length === 0) return Effect.fail(new CatalogFileError({ file, line: 1, reason: "the file is empty" }))
  const offset = text.length - trimmed.length
  if (trimmed.startsWith("[")) {
    return Effect.flatMap(parseJson(file, text), (value) =>
      Array.isArray(value)
        ? Effect.succeed(value.map((v, i) => ({ value: v, line: lineOf(text, v, i, offset) })))
        : Effect.fail(new CatalogFileError({ file, line: 1, reason: "expected a JSON array of tools" })))
  }
  // A single JSON document holding `tools` is an MCP tools/list result; anything else is JSON Lines.
  const whole = tryJson(text)
  if (whole.ok && isRecord(whole.value) && "tools" in whole.value) {
    const tools = whole.value["tools"]
    return Array.isArray(tools)
      ? Effect.succeed(tools.map((v, i) => ({ value: v, line: lineOf(text, v, i, offset) })))
      : Effect.fail(new CatalogFileError({ file, line: 1, reason: "'tools' must be an array" }))
  }
  const items: Array<Item> = []
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] as string).trim() // i < lines.length
    if (raw.length === 0) continue
    const parsed = tryJson(raw)
    if (!parsed.ok) {
      return Effect.fail(new CatalogFileError({ file, line: i + 1, reason: `invalid JSON: ${parsed.error}` }))
    }
    if (!isRecord(parsed.value)) {
      return Effect.fail(
        new CatalogFileError({ file, line: i + 1, reason: "expected a JSON object (one tool per line)" })
      )
    }
    items.push({ line: i + 1, value: parsed.value })
  }
  return Effect.succeed(items)
}

const tryJson = (
  text: string
): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string } => {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) }
  }
}

const parseJson = (file: string, text: string): Effect.Effect<unknown, CatalogFileError> => {
  const parsed = tryJson(text)
  if (parsed.ok) return Effect.succeed(parsed.value)
  const position = /position (\d+)/.exec(parsed.error)
  const line = position === null ? 1 : text.slice(0, Number(position[1])).split("\n").length
  return Effect.fail(new CatalogFileError({ file, line, reason: `invalid JSON: ${parsed.error}` }))
}

/** The line where an array element starts, found by its name; the element index as a fallback. */
const lineOf = (text: string, value: unknown, index: number, offset: number): number => {
  const name = isRecord(value) && typeof value["name"] === "string" ? JSON.stringify(value["name"]) : undefined
  const at = name === undefined ? -1 : text.indexOf(name, offset)
  return at < 0 ? index + 1 : text.slice(0, at).split("\n").length
}
