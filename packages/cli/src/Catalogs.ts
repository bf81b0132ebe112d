/**
 * Loads catalog files for the commands: reads the file, parses it (JSONL, JSON array or MCP
 * `tools/list`), and turns every problem into a one-line `UsageError` naming the file and line.
 *
 * @since 0.1.0
 */
import { CatalogFile, type CatalogTool } from "@tool-search/core"
import { Effect, FileSystem } from "effect"
import { UsageError } from "./CliError.js"

/** Reads and parses a catalog file. */
export const load = (
  file: string,
  options: CatalogFile.Options = {}
): Effect.Effect<ReadonlyArray<CatalogTool.CatalogTool>, UsageError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(file).pipe(
      Effect.mapError((e) =>
        new UsageError({
          reason: `${file}: cannot read the catalog file (${e.reason._tag === "NotFound" ? "not found" : e.message})`
        })
      )
    )
    return yield* CatalogFile.parse(file, text, options).pipe(
      Effect.mapError((e) =>
        new UsageError({
          reason: options.names !== "sanitize" && e.reason.includes("name must match")
            ? `${e.message} (--sanitize-names rewrites such names)`
            : e.message
        })
      )
    )
  })
