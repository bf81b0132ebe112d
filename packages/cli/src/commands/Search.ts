/**
 * `tool-search search "<query>" --catalog <file|-> [--strategy s] [--max N] [--json]
 * [--sanitize-names] [--skip-invalid]`: runs one query against a catalog file with the model's
 * `ToolSearch` itself (`Unit.search`, in a unit of its own): the same query language, the same
 * `select:` rule (every name up to the hard limit, whatever `--max` says), the same weak-hit rule,
 * the same notes.
 *
 * @since 0.1.0
 */
import { CatalogFile, CatalogTool, Disclosure, Query, Setting, ToolCatalog, Unit } from "@tool-search/core"
import { Providers } from "@tool-search/providers"
import { Console, Effect, type FileSystem, Layer, Result, type Stdio } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { FetchHttpClient } from "effect/http"
import * as Catalogs from "../Catalogs.js"
import { badValue, report, UsageError } from "../CliError.js"
import * as Flags from "../Flags.js"
import * as Progress from "../Progress.js"

/**
 * One result line of `--json`.
 *
 * @since 0.1.0
 * @category models
 */
export interface JsonResult {
  readonly id: string
  readonly name: string
  readonly score: number
  readonly description: string
}

/**
 * The `search` command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(
  "search",
  {
    query: Argument.String("query").pipe(Argument.withDescription("keywords, select:A,B or +part words")),
    catalog: Flags.catalog(),
    strategy: Flags.strategy,
    max: Flag.Int("max").pipe(Flags.withDefault(5, "how many results (1-20); select: loads every name it lists")),
    json: Flags.json,
    sanitizeNames: Flags.sanitizeNames,
    skipInvalid: Flags.skipInvalid
  },
  (
    { catalog, json, max, query, sanitizeNames, skipInvalid, strategy }
  ): Effect.Effect<void, UsageError, FileSystem.FileSystem | Stdio.Stdio> =>
    Effect.gen(function*() {
      if (max < 1 || max > 20) return yield* badValue("search", `--max must be between 1 and 20 (got ${max})`)
      const parsed = Query.parse(query)
      if (Result.isFailure(parsed)) {
        return yield* new UsageError({ reason: `invalid query: ${parsed.failure.message}`, subject: "arguments" })
      }
      const tools = yield* Catalogs.load(catalog, { names: sanitizeNames ? "sanitize" : "strict", skipInvalid })
      const embeds = strategy === "semantic" || strategy === "hybrid"
      const answer = yield* Progress.during(embeds ? "embedding tools" : "indexing tools", (progress) =>
        Effect.gen(function*() {
          const cat = yield* ToolCatalog.ToolCatalog
          yield* cat.register(tools)
          return yield* Unit.provide(Unit.search(query, { maxResults: max }))
        }).pipe(
          // every tool of the file is searchable, whatever the catalog's size
          Effect.provide(Disclosure.layer({ defer: "always" })),
          // semantic and hybrid embed with TOOL_SEARCH_EMBEDDINGS when it is set (docs/providers.md)
          Effect.provide(ToolCatalog.layer.pipe(
            Layer.provide(Providers.searchStrategy(strategy, { onProgress: progress.update })),
            Layer.provide(FetchHttpClient.layer)
          )),
          Effect.mapError((e) =>
            e._tag === "ConfigError"
              ? new UsageError({ reason: Setting.explain(e), subject: "settings" })
              : new UsageError({ reason: e.message, subject: "search" })
          )
        ))
      const results: ReadonlyArray<JsonResult> = answer.matches.map((m) => ({
        id: m.tool.id,
        name: m.tool.modelName,
        score: round(m.score),
        description: m.tool.description
      }))
      const note = answer.note === undefined ? {} : { note: answer.note }
      if (json) {
        return yield* Console.log(JSON.stringify({ query, mode: Query.mode(parsed.success), results, ...note }))
      }
      if (results.length === 0) {
        yield* Console.log(`no match for "${CatalogFile.printable(query, 200)}" (${tools.length} tools, ${strategy})`)
        if (answer.note !== undefined) {
          yield* Console.log(CatalogFile.printable(answer.note, 2_000))
        }
        return
      }
      const width = Math.max(...results.map((r) =>
        r.name.length
      ))
      for (const [i, r] of results.entries()) {
        yield* Console.log(
          `${String(i + 1).padStart(2)}. ${r.name.padEnd(width)}  ${r.score.toFixed(3)}  ${
            CatalogFile.printable(CatalogTool.firstSentence(r.description).slice(0, 100))
          }`
        )
      }
      if (answer.note !== undefined) yield* Console.log(CatalogFile.printable(answer.note, 2_000))
    }).pipe(report("tool-search search", { json }))
).pipe(Command.withDescription("search a catalog file as the model's search tool would"))

const round = (x: number): number => Math.round(x * 1e6) / 1e6
