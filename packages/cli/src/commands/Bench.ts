/**
 * `tool-search bench --tools <tools.jsonl> --queries <queries.jsonl> [--strategy s] [--k 10]
 * [--json] [--rankings <out.jsonl>]`: measures one strategy on a catalog and its queries — nDCG@k,
 * Recall@1/5/k, MRR@k, index time, query latency p50/p99 and heap — the way `npm run bench` does.
 * Progress goes to stderr, results to stdout. Tool names that providers would reject are
 * sanitized (evaluation is by tool id).
 *
 * @since 0.1.0
 */
import { SearchStrategy, Strategies } from "@tool-search/core"
import { Console, Effect, FileSystem } from "effect"
import { Command, Flag } from "effect/cli"
import * as Catalogs from "../Catalogs.js"
import { report as reportUsage, UsageError } from "../CliError.js"
import * as Evaluation from "../Evaluation.js"
import { strategyFlag } from "./Search.js"

/** Prints a report as a few aligned lines. */
export const renderReport = (r: Evaluation.Report): ReadonlyArray<string> => [
  `strategy   ${r.strategy}`,
  `catalog    ${r.tools} tools, ${r.queries} queries${
    r.rejected > 0 ? ` (${r.rejected} rejected by the strategy)` : ""
  }`,
  `quality    nDCG@${r.k} ${r.quality.ndcg.toFixed(4)}  Recall@1 ${r.quality.recall1.toFixed(4)}  Recall@5 ${
    r.quality.recall5.toFixed(4)
  }  Recall@${r.k} ${r.quality.recallK.toFixed(4)}  MRR@${r.k} ${r.quality.mrr.toFixed(4)}`,
  `speed      index ${r.indexMs.toFixed(1)} ms  p50 ${r.p50Us.toFixed(1)} µs  p99 ${r.p99Us.toFixed(1)} µs  heap ${
    r.heapMb.toFixed(1)
  } MB`
]

const progress = (message: string) => process.stderr.write(`tool-search bench: ${message}\n`)

/** The `bench` command. */
export const command = Command.make(
  "bench",
  {
    tools: Flag.String("tools").pipe(Flag.withDescription("catalog file (tools.jsonl)")),
    queries: Flag.String("queries").pipe(
      Flag.withDescription("queries file: {id, query, relevant, relevant_groups?} per line")
    ),
    strategy: strategyFlag,
    k: Flag.Int("k").pipe(Flag.withDescription("ranking depth for nDCG, Recall and MRR"), Flag.withDefault(10)),
    json: Flag.Boolean("json").pipe(Flag.withDescription("print one JSON object"), Flag.withDefault(false)),
    rankings: Flag.String("rankings").pipe(
      Flag.withDescription("write {\"id\", \"ranked\": [tool ids]} per query to this file"),
      Flag.optional
    )
  },
  ({ json, k, queries, rankings, strategy, tools }): Effect.Effect<void, UsageError, FileSystem.FileSystem> =>
    Effect.gen(function*() {
      if (k < 1) return yield* new UsageError({ reason: `--k must be at least 1 (got ${k})` })
      const fs = yield* FileSystem.FileSystem
      const catalog = yield* Catalogs.load(tools, { names: "sanitize" })
      const queryText = yield* fs.readFileString(queries).pipe(
        Effect.mapError(() => new UsageError({ reason: `${queries}: cannot read the queries file` }))
      )
      const specs = yield* Evaluation.parseQueries(queries, queryText).pipe(
        Effect.mapError((reason) => new UsageError({ reason }))
      )
      const layer = Strategies.layer(strategy, {
        onProgress: (done, total) => progress(`embedding tools ${done}/${total}`)
      })
      const report = yield* Effect.gen(function*() {
        const engine = yield* Evaluation.strategyEngine(yield* SearchStrategy.SearchStrategy)
        return yield* Evaluation.measure(engine, catalog, specs, { k, onProgress: progress })
      }).pipe(
        Effect.provide(layer),
        Effect.mapError((e) => new UsageError({ reason: e.message }))
      )
      if (rankings._tag === "Some") {
        yield* fs.writeFileString(rankings.value, report.rankings.map((r) => JSON.stringify(r)).join("\n") + "\n").pipe(
          Effect.mapError(() => new UsageError({ reason: `${rankings.value}: cannot write the rankings file` }))
        )
      }
      if (json) return yield* Console.log(JSON.stringify(Evaluation.toJson(report)))
      for (const line of renderReport(report)) yield* Console.log(line)
    }).pipe(reportUsage)
).pipe(Command.withDescription("measure a search strategy on a catalog and its queries"))
