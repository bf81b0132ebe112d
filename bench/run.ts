/**
 * `npm run bench`: every data set of `../shared/bench` × every strategy, with MiniSearch and
 * wink-bm25-text-search each measured in two setups (as their users run them, and with the
 * project's analyzer; `Peers.ts`), every delta against each peer's stronger setup on that data set;
 * then a scale run on generated catalogs of 10k and 100k tools. Progress on stderr, markdown on
 * stdout.
 *
 * Flags: `--semantic` adds the semantic and hybrid strategies (the offline embedding model: the
 * first run embeds every catalog, minutes); `--no-scale` skips the scale run; `--datasets a,b`
 * picks data sets. Without `../shared/bench` it says what is missing in one line and exits 2; so
 * it does for a data set or knob named that does not exist. Other modes: `--ablate` (every knob
 * switched per data set; `--knobs a,b`: only the knobs named, without the peers), `--protocol` (the
 * leave-one-data-set-out tuning protocol and its nested estimate; `--nested a,b [--from origin]`:
 * only the nested folds holding out `a` and `b`), `--feedback` (learning from use), `--min-score`
 * (the "no good match" thresholds, `minScore` then `minScoreRatio`), `--speed` (CPU time of BM25F
 * queries, pruned and exhaustive, against wink-bm25; `--speed --callgrind <size|dataset> [--passes
 * n] [--engine bm25f|wink]` for instruction counts); see `Protocol.ts`, `Feedback.ts`,
 * `MinScore.ts`, `Speed.ts`.
 */
import { NodeServices } from "@effect/platform-node"
import { Evaluation } from "@tool-search/cli"
import {
  Bm25f,
  CatalogFile,
  type CatalogTool,
  OfflineEmbeddings,
  SearchDocument,
  type SearchFailed,
  SearchStrategy,
  Strategies,
  VectorCache
} from "@tool-search/core"
import { Effect, Layer } from "effect"
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Associations from "./Associations.js"
import * as Datasets from "./Datasets.js"
import * as Defaults from "./Defaults.js"
import * as Feedback from "./Feedback.js"
import * as Generate from "./Generate.js"
import * as MinScore from "./MinScore.js"
import * as Peers from "./Peers.js"
import * as Protocol from "./Protocol.js"
import * as Space from "./Space.js"
import * as Speed from "./Speed.js"
import * as TuneHybrid from "./tune-hybrid.js"

const args = process.argv.slice(2)
/** The argument after `flag`, when the flag is given. */
const valueOf = (flag: string): string | undefined => {
  const at = args.indexOf(flag)
  return at >= 0 ? args[at + 1] ?? "" : undefined
}
/** The comma-separated names after `flag`, when the flag is given. */
const listOf = (flag: string): ReadonlyArray<string> | undefined => valueOf(flag)?.split(",")
// `--one <dataset> <engine>`: measure one engine on one data set and print its report as JSON.
// The parent runs every measurement in a fresh process, so heap figures and JIT state are not
// polluted by the engines measured before.
const oneFlag = args.indexOf("--one")
// lexical strategies by default; `--lexical` is accepted for older scripts
const lexicalOnly = !args.includes("--semantic")
const scale = !args.includes("--no-scale")
const only = listOf("--datasets")
const knobs = listOf("--knobs")
const heldOuts = listOf("--nested")

const benchRoot = Datasets.root
const K = 10

const log = (message: string) => process.stderr.write(`bench: ${message}\n`)

const loadTools = (file: string) =>
  CatalogFile.parse(file, readFileSync(file, "utf8"), { names: "sanitize" }).pipe(Effect.orDie)

const loadQueries = (file: string) => Evaluation.parseQueries(file, readFileSync(file, "utf8")).pipe(Effect.orDie)

const strategyNames: ReadonlyArray<Strategies.Name> = lexicalOnly
  ? ["bm25f", "keyword", "regex"]
  : ["bm25f", "keyword", "regex", "semantic", "hybrid"]

const strategyEngine = (name: Strategies.Name) =>
  Effect.gen(function*() {
    const strategy = yield* SearchStrategy.SearchStrategy
    return yield* Evaluation.strategyEngine(strategy)
  }).pipe(
    Effect.provide(
      Strategies.layer(name, { onProgress: (done, total) => log(`${name}: embedding tools ${done}/${total}`) })
    )
  )

type Row = { readonly dataset: string; readonly report: Evaluation.Report } | {
  readonly dataset: string
  readonly strategy: string
  readonly error: string
}

const f = (x: number, digits = 3) => x.toFixed(digits)
const signed = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(3)}`
const times = (x: number) => `${x >= 10 ? x.toFixed(0) : x.toFixed(1)}×`

/** One line of the scale table: bm25f on a generated catalog of `size` tools. */
const scaleOne = (size: number) =>
  Effect.gen(function*() {
    log(`scale: generating ${size} tools`)
    const tools = Generate.catalog(size)
    const queries = Generate.queries(tools, 1_000)
    const index = yield* Effect.gen(function*() {
      return yield* (yield* SearchStrategy.SearchStrategy).makeIndex
    }).pipe(Effect.provide(Strategies.layer("bm25f")))
    const engine: Evaluation.Engine = {
      name: "bm25f",
      build: (ts) => Effect.sync(() => index.add(ts.map(SearchDocument.fromTool))),
      search: (text, k) =>
        index.search({ text, limit: k, accept: () => true }).pipe(
          Effect.map((hits) => hits.map((h) => h.id)),
          Effect.orDie
        )
    }
    const report = yield* Evaluation.measure(engine, tools, queries, { k: K, onProgress: log, maxPasses: 5 })
    const extra = Generate.catalog(200, 99).map((t, i): CatalogTool.CatalogTool => ({ ...t, id: `extra_${i}` }))
    const adds: Array<number> = []
    for (const tool of extra) {
      const t0 = performance.now()
      index.add([SearchDocument.fromTool(tool)])
      adds.push((performance.now() - t0) * 1000)
    }
    return `| ${size.toLocaleString("en")} | ${report.indexMs.toFixed(0)} | ${report.memoryMb.toFixed(1)} | ${
      report.p50Us.toFixed(1)
    } | ${report.p99Us.toFixed(1)} | ${Evaluation.percentile(adds, 50).toFixed(1)} / ${
      Evaluation.percentile(adds, 99).toFixed(1)
    } |`
  })

/**
 * The defaults as a catalog that never taught the shipped association table would see them: the
 * table learned from every other data set (the shipped one learned from this one too).
 */
const heldOutDefaults = (dataset: string) =>
  Effect.map(
    Effect.forEach(Datasets.names().filter((d) => d !== dataset), Datasets.load),
    (others): Bm25f.Parameters =>
      Bm25f.defaults.associations === undefined ? Bm25f.defaults : {
        ...Bm25f.defaults,
        associations: { ...Bm25f.defaults.associations, table: Associations.learn(others) }
      }
  )

const measureOne = (dataset: string, name: string) =>
  Effect.gen(function*() {
    const tools = yield* loadTools(join(benchRoot, dataset, "tools.jsonl"))
    const queries = yield* loadQueries(join(benchRoot, dataset, "queries.jsonl"))
    const peer = Peers.peers[name]
    const make: Effect.Effect<Evaluation.Engine<SearchFailed>> = peer !== undefined
      ? Effect.sync(peer)
      : name === "bm25f"
      ? Effect.map(heldOutDefaults(dataset), (p) => Peers.bm25f(p))
      : strategyEngine(name as Strategies.Name)
    const report = yield* Effect.flatMap(make, (engine) =>
      Evaluation.measure(engine, tools, queries, { k: K, onProgress: (m) => log(`${dataset}: ${m}`) }))
    return { ...report, rankings: [] }
  })

/** One engine on one data set in a child process, under the parent's conditions (`--conditions=@tool-search/internal`). */
const child = (dataset: string, name: string): Row => {
  const result = spawnSync(process.execPath, [
    ...process.execArgv,
    fileURLToPath(import.meta.url),
    "--one",
    dataset,
    name
  ], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 64 * 1024 * 1024
  })
  if (result.status !== 0) return { dataset, strategy: name, error: `exit ${result.status}` }
  const parsed = JSON.parse(result.stdout) as { readonly ok: true; readonly report: Evaluation.Report } | {
    readonly ok: false
    readonly error: string
  }
  return parsed.ok ? { dataset, report: parsed.report } : { dataset, strategy: name, error: parsed.error }
}

const program = Effect.gen(function*() {
  const datasets = Datasets.names(only)
  const rows: Array<Row> = []
  for (const dataset of datasets) {
    log(dataset)
    for (const name of [...strategyNames, ...Object.keys(Peers.peers)]) rows.push(child(dataset, name))
  }

  const out: Array<string> = []
  out.push(
    `Quality and speed (k = ${K}; latency per query on one core; memory held by the index: heap plus array buffers). Deltas are against the stronger setup of each peer on that data set (marked *).`,
    ""
  )
  out.push(
    "| data set | engine | nDCG@10 | R@1 | R@5 | R@10 | MRR@10 | index ms | p50 µs | p99 µs | memory MB | ΔnDCG vs wink / MiniSearch | p50 speed-up vs wink / MiniSearch |"
  )
  out.push("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
  for (const dataset of datasets) {
    const mine = rows.filter((r) => r.dataset === dataset)
    const reports = mine.flatMap((r) => ("report" in r ? [r.report] : []))
    // the stronger setup of a peer on this data set, by nDCG@10
    const strongest = (peer: string) =>
      reports.filter((r) => r.strategy.startsWith(peer)).reduce<Evaluation.Report | undefined>(
        (best, r) => (best === undefined || r.quality.ndcg > best.quality.ndcg ? r : best),
        undefined
      )
    const wink = strongest("wink-bm25")
    const mini = strongest("minisearch")
    for (const row of mine) {
      if (!("report" in row)) {
        out.push(`| ${dataset} | ${row.strategy} | failed: ${row.error.replace(/\|/g, "/")} |||||||||||`)
        continue
      }
      const r = row.report
      const isPeer = r.strategy.startsWith("wink-bm25") || r.strategy.startsWith("minisearch")
      const delta = isPeer || wink === undefined || mini === undefined
        ? ""
        : `${signed(r.quality.ndcg - wink.quality.ndcg)} / ${signed(r.quality.ndcg - mini.quality.ndcg)}`
      const speed = isPeer || wink === undefined || mini === undefined
        ? ""
        : `${times(wink.p50Us / r.p50Us)} / ${times(mini.p50Us / r.p50Us)}`
      const mark = r === wink || r === mini ? " *" : ""
      out.push(
        `| ${dataset} | ${r.strategy}${mark}${r.rejected > 0 ? ` (${r.rejected} rejected)` : ""} | ${
          f(r.quality.ndcg)
        } | ${f(r.quality.recall1)} | ${f(r.quality.recall5)} | ${f(r.quality.recallK)} | ${f(r.quality.mrr)} | ${
          r.indexMs.toFixed(0)
        } | ${r.p50Us.toFixed(1)} | ${r.p99Us.toFixed(1)} | ${r.memoryMb.toFixed(1)} | ${delta} | ${speed} |`
      )
    }
  }

  if (scale) {
    out.push("", "Scale (bm25f on generated catalogs; 1,000 queries of 3–6 words)", "")
    out.push("| tools | index ms | memory MB | p50 µs | p99 µs | add one tool to the built index, p50 / p99 µs |")
    out.push("|---|---|---|---|---|---|")
    for (const size of [10_000, 100_000]) {
      const result = spawnSync(process.execPath, [
        ...process.execArgv,
        fileURLToPath(import.meta.url),
        "--scale",
        String(size)
      ], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"]
      })
      out.push(result.status === 0 ? result.stdout.trim() : `| ${size} | failed: exit ${result.status} |||||`)
    }
  }
  process.stdout.write(`${out.join("\n")}\n`)
})

const scaleFlag = args.indexOf("--scale")
const printing = <E>(report: Effect.Effect<string, E>) =>
  Effect.flatMap(report, (text) => Effect.sync(() => process.stdout.write(`${text}\n`)))
const main = scaleFlag >= 0
  ? Effect.flatMap(scaleOne(Number(args[scaleFlag + 1])), (line) => Effect.sync(() => process.stdout.write(line)))
  : oneFlag >= 0
  ? Effect.flatMap(
    Effect.result(measureOne(args[oneFlag + 1] ?? "", args[oneFlag + 2] ?? "")),
    (result) =>
      Effect.sync(() =>
        process.stdout.write(
          JSON.stringify(
            result._tag === "Success"
              ? { ok: true, report: result.success }
              : { ok: false, error: result.failure.message }
          )
        )
      )
  )
  : args.includes("--speed")
  ? printing(
    args.includes("--callgrind")
      ? Speed.once(valueOf("--callgrind") || "10000", Number(valueOf("--passes") ?? 1), valueOf("--engine") || "bm25f")
      : Speed.report()
  )
  : args.includes("--ablate")
  ? printing(Protocol.ablate(only, knobs))
  : args.includes("--defaults")
  ? printing(Defaults.report(only))
  : args.includes("--hybrid")
  ? printing(Effect.provide(TuneHybrid.report(only), OfflineEmbeddings.layer))
  : args.includes("--feedback")
  ? printing(Feedback.report(only))
  : args.includes("--min-score")
  ? printing(Effect.map(Effect.all([MinScore.report(only), MinScore.ratioReport(only)]), (r) => r.join("\n\n")))
  : heldOuts !== undefined
  ? printing(Protocol.nested(heldOuts, valueOf("--from") === "origin" ? "origin" : "defaults"))
  : args.includes("--protocol")
  ? printing(Effect.map(Protocol.protocol(only), (r) => r.report))
  : program

// the data sets are read at run time: without them, say so in one line (no stack trace) and exit 2
const named = [...(only ?? []), ...(heldOuts ?? [])]
const unknownKnobs = (knobs ?? []).filter((k) => !Space.knobs.some((known) => known.name === k))
const absent = scaleFlag >= 0 ? undefined : unknownKnobs.length > 0
  ? `bench: no knob named ${unknownKnobs.join(", ")} (there are: ${Space.knobs.map((k) => k.name).join(", ")})`
  : Datasets.missing(named.length > 0 ? named : undefined)
if (absent !== undefined) {
  process.stderr.write(`${absent}\n`)
  process.exit(2)
}

// tool vectors in files (`TOOL_SEARCH_CACHE_DIR`, else node_modules/.cache): a second run embeds nothing
Effect.runPromise(main.pipe(Effect.provide(VectorCache.layerFile.pipe(Layer.provide(NodeServices.layer))))).catch((
  error: unknown
) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
  process.exit(1)
})
