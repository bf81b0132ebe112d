/**
 * `tool-search search "<query>" --catalog <file> [--strategy s] [--max N] [--json]`: runs one
 * query against a catalog file the way the model's search tool would, without activating.
 *
 * @since 0.1.0
 */
import { CatalogTool, Query, Setting, Strategies, ToolCatalog, ToolView } from "@tool-search/core"
import { Providers } from "@tool-search/providers"
import { Console, Effect, type FileSystem, Layer, Result } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { FetchHttpClient } from "effect/http"
import * as Catalogs from "../Catalogs.js"
import { report, UsageError } from "../CliError.js"

/** The `--strategy` flag shared by the commands that search. */
export const strategyFlag = Flag.Literals("strategy", Strategies.names).pipe(
  Flag.withDescription("search strategy"),
  Flag.withDefault(Strategies.defaultName)
)

/** The `--sanitize-names` flag: rewrite names providers would reject instead of failing. */
export const sanitizeFlag = Flag.Boolean("sanitize-names").pipe(
  Flag.withDescription("rewrite tool names that providers would reject (e.g. 'getPM2.5Level') instead of failing"),
  Flag.withDefault(false)
)

/** One result line of `--json`. */
export interface JsonResult {
  readonly id: string
  readonly name: string
  readonly score: number
  readonly description: string
}

/** The `search` command. */
export const command = Command.make(
  "search",
  {
    query: Argument.String("query").pipe(Argument.withDescription("keywords, select:A,B or +part words")),
    catalog: Flag.String("catalog").pipe(Flag.withDescription("catalog file: JSONL, JSON array or MCP tools/list")),
    strategy: strategyFlag,
    max: Flag.Int("max").pipe(Flag.withDescription("how many results (1-20)"), Flag.withDefault(5)),
    json: Flag.Boolean("json").pipe(Flag.withDescription("print one JSON object"), Flag.withDefault(false)),
    sanitizeNames: sanitizeFlag
  },
  ({ catalog, json, max, query, sanitizeNames, strategy }): Effect.Effect<void, UsageError, FileSystem.FileSystem> =>
    Effect.gen(function*() {
      const tools = yield* Catalogs.load(catalog, { names: sanitizeNames ? "sanitize" : "strict" })
      const parsed = Query.parse(query)
      if (Result.isFailure(parsed)) return yield* new UsageError({ reason: `invalid query: ${parsed.failure.message}` })
      const matches = yield* Effect.gen(function*() {
        const cat = yield* ToolCatalog.ToolCatalog
        yield* cat.register(tools)
        return yield* ToolView.withUnit(
          Effect.flatMap(
            ToolView.ToolView,
            (view) => view.browse(query, { maxResults: Math.min(20, Math.max(1, max)) })
          )
        )
      }).pipe(
        // semantic and hybrid embed with TOOL_SEARCH_EMBEDDINGS when it is set (docs/providers.md)
        Effect.provide(ToolCatalog.ToolCatalog.layer.pipe(
          Layer.provide(Providers.searchStrategy(strategy)),
          Layer.provide(FetchHttpClient.layer)
        )),
        Effect.mapError((e) => new UsageError({ reason: e._tag === "ConfigError" ? Setting.explain(e) : e.message }))
      )
      const results: ReadonlyArray<JsonResult> = matches.map((m) => ({
        id: m.tool.id,
        name: m.tool.modelName,
        score: round(m.score),
        description: m.tool.description
      }))
      if (json) {
        return yield* Console.log(JSON.stringify({ query, mode: Query.mode(parsed.success), results }))
      }
      if (results.length === 0) {
        return yield* Console.log(`no match for "${query}" (${tools.length} tools, ${strategy})`)
      }
      const width = Math.max(...results.map((r) => r.name.length))
      for (const [i, r] of results.entries()) {
        yield* Console.log(
          `${String(i + 1).padStart(2)}. ${r.name.padEnd(width)}  ${r.score.toFixed(3)}  ${
            CatalogTool.firstSentence(r.description).slice(0, 100)
          }`
        )
      }
    }).pipe(report)
).pipe(Command.withDescription("search a catalog file as the model's search tool would"))

const round = (x: number): number => Math.round(x * 1e6) / 1e6
