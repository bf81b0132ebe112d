/**
 * Catalog files: JSON Lines (one tool per line, as in `shared/bench/*\/tools.jsonl`), a JSON
 * array of the same objects, or an MCP `tools/list` result (`{"tools":[{name, description,
 * inputSchema}]}`), bare or inside its JSON-RPC reply (`{"jsonrpc","id","result":{"tools":[...]}}`).
 * A tool without `loading` is deferred.
 *
 * Parsing is all-or-nothing by default: the first bad tool is a `CatalogFileError` naming the file,
 * the line and what was wrong, and no tool of the file is returned. With `skipInvalid`, bad tools
 * are left out and listed (`parseAll`). Parsing is linear in the size of the file (one pass finds
 * where each array element starts) and yields between tools, so an interrupt (Ctrl-C) stops it.
 * What an error echoes from the file is made printable: control characters and terminal escapes
 * are shown escaped, and long values are cut; a decoder's message keeps its line breaks.
 *
 * @since 0.1.0
 */
import { Effect, Predicate } from "effect"
import type * as CatalogTool from "./CatalogTool.js"
import { CatalogFileError } from "./Errors.js"
import * as JsonFile from "./internal/jsonFile.js"
import * as Printable from "./internal/printable.js"
import * as ToolSpec from "./ToolSpec.js"

/**
 * How a file's tools are decoded.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends ToolSpec.DecodeOptions {
  /**
   * Leave out the tools that cannot be decoded (and JSON Lines that are not JSON objects) instead
   * of failing; `parseAll` lists them. A file that is not JSON at all still fails.
   *
   * @since 0.2.0
   */
  readonly skipInvalid?: boolean
  /**
   * Called as tools are decoded (tools done, tools in the file), every few hundred tools.
   *
   * @since 0.2.0
   */
  readonly onProgress?: (done: number, total: number) => void
}

/**
 * The tools of a file and the ones left out.
 *
 * @since 0.2.0
 * @category models
 */
export interface Parsed {
  readonly tools: ReadonlyArray<CatalogTool.CatalogTool>
  /** The tools left out with `skipInvalid`, each with its line and reason. */
  readonly skipped: ReadonlyArray<CatalogFileError>
}

/**
 * Parses the text of a catalog file named `file` (the name is only used in errors).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (
  file: string,
  text: string,
  options: Options = {}
): Effect.Effect<ReadonlyArray<CatalogTool.CatalogTool>, CatalogFileError> =>
  Effect.map(parseAll(file, text, options), (parsed) => parsed.tools)

const PROGRESS_EVERY = 500

/**
 * Parses the text of a catalog file, returning the tools left out with `skipInvalid` too.
 *
 * @since 0.2.0
 * @category parsing
 */
export const parseAll = (file: string, text: string, options: Options = {}): Effect.Effect<Parsed, CatalogFileError> =>
  Effect.gen(function*() {
    const items = yield* split(file, text)
    const tools: Array<CatalogTool.CatalogTool> = []
    const skipped: Array<CatalogFileError> = []
    const lineOfId = new Map<string, number>()
    const reject = (error: CatalogFileError) =>
      options.skipInvalid === true ? Effect.sync(() => void skipped.push(error)) : Effect.fail(error)
    for (const [i, item] of items.entries()) {
      if (i % PROGRESS_EVERY === 0) {
        options.onProgress?.(i, items.length)
        yield* Effect.yieldNow // lets an interrupt (a signal) in between tools
      }
      if (item._tag === "Invalid") {
        yield* reject(item.error)
        continue
      }
      const { line, value } = item
      const decoded = yield* Effect.result(ToolSpec.decode(value, options))
      if (decoded._tag === "Failure") {
        const { name: tool, reason } = decoded.failure
        yield* reject(
          new CatalogFileError({
            file,
            line,
            reason: `Invalid tool '${printable(tool, 80)}': ${printable(reason, 300, { lineBreaks: true })}`
          })
        )
        continue
      }
      const tool = decoded.success
      const previous = lineOfId.get(tool.id)
      if (previous !== undefined) {
        yield* reject(
          new CatalogFileError({
            file,
            line,
            reason: `duplicate tool id '${printable(tool.id, 80)}' (first on line ${previous})`
          })
        )
        continue
      }
      lineOfId.set(tool.id, line)
      tools.push(tool)
    }
    options.onProgress?.(items.length, items.length)
    return { tools, skipped }
  })

// -----------------------------------------------------------------------------
// Echoing file content
// -----------------------------------------------------------------------------

/**
 * Text from a file made safe to print on a terminal: control characters, escapes (ANSI, bidi)
 * shown as `\uXXXX`, and anything over `max` characters cut with a note of how much was left out.
 * With `lineBreaks`, line feeds are kept as line breaks (a decoder's multi-line message); every
 * other control character is still escaped.
 *
 * @since 0.2.0
 * @category echoing
 */
export const printable: (text: string, max?: number, options?: { readonly lineBreaks?: boolean }) => string =
  Printable.printable

// -----------------------------------------------------------------------------
// Splitting a file into tools
// -----------------------------------------------------------------------------

/**
 * Splits a file into raw tool objects with the line each starts on. A single JSON document
 * holding `tools` is an MCP tools/list result (or its JSON-RPC reply); anything else is a JSON
 * array or JSON Lines.
 */
const split = (file: string, text: string): Effect.Effect<ReadonlyArray<JsonFile.Item>, CatalogFileError> =>
  JsonFile.split(file, text, "tool", (document, fail) => {
    const result = document["result"]
    if ("tools" in document) {
      return Array.isArray(document["tools"])
        ? Effect.succeed(JsonFile.elements(text, document["tools"], ["tools"]))
        : fail(1, "'tools' must be an array")
    }
    if ("jsonrpc" in document && Predicate.isObject(result) && "tools" in result) {
      const tools = result["tools"]
      return Array.isArray(tools)
        ? Effect.succeed(JsonFile.elements(text, tools, ["result", "tools"]))
        : fail(1, "'result.tools' must be an array")
    }
    if ("jsonrpc" in document && "error" in document) {
      return fail(
        1,
        `the file is a JSON-RPC error reply, not a tool list: ${printable(JSON.stringify(document["error"]))}`
      )
    }
    return undefined
  })
