/**
 * Loads catalog files for the commands: reads the file (or standard input for `-`), parses it
 * (JSONL, JSON array or MCP `tools/list`), shows progress on stderr when that takes over a
 * second, and turns every problem into a one-line `UsageError` naming the file and line. With
 * `skipInvalid`, each tool left out is listed on stderr instead.
 *
 * @since 0.1.0
 */
import { CatalogFile, type CatalogFileError, type CatalogTool } from "@tool-search/core"
import { Console, Effect, FileSystem, Stdio, Stream } from "effect"
import { UsageError } from "./CliError.js"
import * as Progress from "./Progress.js"

/**
 * What `load` takes: the decode options and `skipInvalid`.
 *
 * @since 0.2.0
 * @category models
 */
export type Options = Omit<CatalogFile.Options, "onProgress">

/**
 * The name a catalog file has in messages: `<stdin>` for `-`.
 *
 * @since 0.2.0
 * @category naming
 */
export const label = (file: string): string => file === "-" ? "<stdin>" : file

const read = (file: string): Effect.Effect<string, UsageError, FileSystem.FileSystem | Stdio.Stdio> =>
  file === "-"
    ? Effect.gen(function*() {
      const stdio = yield* Stdio.Stdio
      if (yield* stdio.stdinIsTerminal) {
        yield* Console.error("tool-search: reading the catalog from standard input (end it with Ctrl-D)")
      }
      return yield* stdio.stdin.pipe(Stream.decodeText(), Stream.mkString)
    }).pipe(
      Effect.mapError((e) =>
        new UsageError({ reason: `<stdin>: cannot read the catalog (${e.message})`, subject: "catalog" })
      )
    )
    : Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(file)).pipe(
      Effect.mapError((e) =>
        new UsageError({
          reason: `${file}: cannot read the catalog file (${e.reason._tag === "NotFound" ? "not found" : e.message})`,
          subject: "catalog"
        })
      )
    )

/**
 * Reads and parses a catalog file (`-`: standard input).
 *
 * @since 0.1.0
 * @category loading
 */
export const load = (
  file: string,
  options: Options = {}
): Effect.Effect<ReadonlyArray<CatalogTool.CatalogTool>, UsageError, FileSystem.FileSystem | Stdio.Stdio> =>
  Progress.during(`loading ${CatalogFile.printable(label(file), 120)}`, (progress) =>
    Effect.gen(function*() {
      const text = yield* read(file)
      const { skipped, tools } = yield* CatalogFile.parseAll(label(file), text, {
        ...options,
        onProgress: progress.update
      }).pipe(Effect.mapError((e) => new UsageError({ reason: `${e.message}${hint(e, options)}`, subject: "catalog" })))
      for (const error of skipped) yield* Console.error(`tool-search: skipped ${error.message}`)
      if (skipped.length > 0) {
        yield* Console.error(
          `tool-search: ${label(file)}: ${skipped.length} invalid ${
            skipped.length === 1 ? "tool" : "tools"
          } left out, ${tools.length} loaded`
        )
      }
      return tools
    }))

/** What to try when a tool of the file is bad. */
const hint = (error: CatalogFileError, options: Options): string => {
  if (options.names !== "sanitize" && error.reason.includes("name must match")) {
    return " (--sanitize-names rewrites such names; --skip-invalid leaves bad tools out)"
  }
  const skippable = /^(Invalid tool|duplicate tool id|expected a JSON object)/.test(error.reason)
  return options.skipInvalid !== true && skippable ? " (--skip-invalid leaves bad tools out)" : ""
}
