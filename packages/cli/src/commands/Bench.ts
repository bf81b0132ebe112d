/**
 * `tool-search bench --tools <tools.jsonl> --queries <queries.jsonl> [--strategy s] [--k 10]
 * [--json] [--rankings <out.jsonl>]`: measures one strategy on a catalog and its queries — nDCG@k,
 * Recall@1/5/k, MRR@k, index time, query latency p50/p99 and memory (heap plus array buffers) — the way `npm run bench` does.
 * Progress goes to stderr, results to stdout. Tool names that providers would reject are
 * sanitized (evaluation is by tool id).
 *
 * @since 0.1.0
 */
import { CatalogFile, SearchStrategy, Strategies } from "@tool-search/core"
import { Console, Effect, FileSystem, type Stdio } from "effect"
import { Command, Flag } from "effect/cli"
import * as Catalogs from "../Catalogs.js"
import { badValue, report as reportUsage, UsageError } from "../CliError.js"
import * as Evaluation from "../Evaluation.js"
import * as Flags from "../Flags.js"

/**
 * Prints a report as a few aligned lines.
 *
 * @since 0.1.0
 * @category output
 */
export const renderReport = (r: Evaluation.Report): ReadonlyArray<string> => [
  `strategy   ${r.strategy}`,
  `catalog    ${r.tools} tools, ${r.queries} queries${notes(r)}`,
  `quality    nDCG@${r.k} ${r.quality.ndcg.toFixed(4)}  Recall@1 ${r.quality.recall1.toFixed(4)}  Recall@5 ${
    r.quality.recall5.toFixed(4)
  }  Recall@${r.k} ${r.quality.recallK.toFixed(4)}  MRR@${r.k} ${r.quality.mrr.toFixed(4)}`,
  `speed      index ${r.indexMs.toFixed(1)} ms  p50 ${r.p50Us.toFixed(1)} µs  p99 ${r.p99Us.toFixed(1)} µs  memory ${
    r.memoryMb.toFixed(1)
  } MB`
]

/** What the query count leaves out: queries excluded for their input, queries the strategy rejected. */
const notes = (r: Evaluation.Report): string => {
  const parts = [
    ...(r.excluded > 0 ? [`${r.excluded} excluded for bad input`] : []),
    ...(r.rejected > 0 ? [`${r.rejected} rejected by the strategy`] : [])
  ]
  return parts.length === 0 ? "" : ` (${parts.join(", ")})`
}

const progress = (message: string) => process.stderr.write(`tool-search bench: ${message}\n`)

/** One warning line per problem in the queries file. */
const warnings = (file: string, issues: ReadonlyArray<Evaluation.Issue>): ReadonlyArray<string> =>
  issues.map((i) =>
    `tool-search bench: ${file}:${i.line}: query '${CatalogFile.printable(i.id, 80)}': ${
      CatalogFile.printable(i.problem)
    }${i.excluded ? " (excluded from the means)" : ""}`
  )

/**
 * The `bench` command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(
  "bench",
  {
    tools: Flags.catalog("tools"),
    queries: Flag.String("queries").pipe(
      Flag.withDescription("queries file: {id, query, relevant, relevant_groups?} per line")
    ),
    strategy: Flags.strategy,
    k: Flag.Int("k").pipe(Flags.withDefault(10, "ranking depth for nDCG, Recall and MRR")),
    json: Flags.json,
    skipInvalid: Flags.skipInvalid,
    rankings: Flag.String("rankings").pipe(
      Flag.withDescription("write {\"id\", \"ranked\": [tool ids]} per query to this file"),
      Flag.optional
    )
  },
  (
    { json, k, queries, rankings, skipInvalid, strategy, tools }
  ): Effect.Effect<void, UsageError, FileSystem.FileSystem | Stdio.Stdio> =>
    Effect.gen(function*() {
      if (k < 1) return yield* badValue("bench", `--k must be at least 1 (got ${k})`)
      const fs = yield* FileSystem.FileSystem
      const catalog = yield* Catalogs.load(tools, { names: "sanitize", skipInvalid })
      const queryText = yield* fs.readFileString(queries).pipe(
        Effect.mapError(() =>
          new UsageError({ reason: `${queries}: cannot read the queries file`, subject: "queries" })
        )
      )
      const specs = yield* Evaluation.readQueries(queries, queryText).pipe(
        Effect.mapError((reason) => new UsageError({ reason, subject: "queries" }))
      )
      const layer = Strategies.layer(strategy, {
        onProgress: (done, total) => progress(`embedding tools ${done}/${total}`)
      })
      const report = yield* Effect.gen(function*() {
        const engine = yield* Evaluation.strategyEngine(yield* SearchStrategy.SearchStrategy)
        return yield* Evaluation.measure(engine, catalog, specs, { k, onProgress: progress })
      }).pipe(
        Effect.provide(layer),
        Effect.mapError((e) => new UsageError({ reason: e.message, subject: "search" }))
      )
      for (const line of warnings(queries, report.issues)) yield* Console.error(line)
      if (report.queries === 0) {
        return yield* new UsageError({
          reason: `${queries}: no query can be scored (${report.excluded} excluded)`,
          subject: "queries"
        })
      }
      if (rankings._tag === "Some") {
        yield* fs.writeFileString(rankings.value, report.rankings.map((r) => JSON.stringify(r)).join("\n") + "\n").pipe(
          Effect.mapError(() =>
            new UsageError({ reason: `${rankings.value}: cannot write the rankings file`, subject: "output" })
          )
        )
      }
      if (json) return yield* Console.log(JSON.stringify(Evaluation.toJson(report)))
      for (const line of renderReport(report)) yield* Console.log(line)
    }).pipe(reportUsage("tool-search bench", { json }))
).pipe(Command.withDescription("measure a search strategy on a catalog and its queries"))
