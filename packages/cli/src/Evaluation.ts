/**
 * Retrieval evaluation: query files, the quality metrics, and the harness that measures an engine
 * (index time, latency percentiles, memory) on a catalog and its queries. `tool-search bench` and
 * `npm run bench` both run through `measure`, so a strategy and a peer library are measured the
 * same way in the same process.
 *
 * Metrics, per query, averaged over queries. Relevance is by tool id. A query's relevant items are
 * its `relevant_groups` when present (a group counts as found when any member is retrieved, once),
 * else each id of `relevant`:
 *
 * - nDCG@k: binary gains, `1 / log2(rank + 1)`, divided by the ideal ordering;
 * - Recall@k: the share of relevant items found in the top k;
 * - MRR@k: `1 / rank` of the first relevant hit in the top k, 0 when none.
 *
 * @since 0.1.0
 */
import type { SearchStrategy } from "@tool-search/core"
import { type CatalogTool, SearchDocument, type SearchFailed } from "@tool-search/core"
import { Effect, Schema } from "effect"
import * as v8 from "node:v8"
import * as vm from "node:vm"
import * as Queries from "./internal/queries.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * One line of a queries file.
 *
 * @since 0.1.0
 * @category schemas
 */
export const QuerySpec = Schema.Struct({
  id: Schema.String,
  query: Schema.String,
  relevant: Schema.Array(Schema.String),
  relevant_groups: Schema.optionalKey(Schema.Array(Schema.Array(Schema.String)))
})

/**
 * A decoded query.
 *
 * @since 0.1.0
 * @category models
 */
export type QuerySpec = typeof QuerySpec.Type

/**
 * Something that can be measured: a strategy's index or a peer library.
 *
 * @since 0.1.0
 * @category models
 */
export interface Engine<E = never> {
  readonly name: string
  /** Indexes the catalog. */
  readonly build: (tools: ReadonlyArray<CatalogTool.CatalogTool>) => Effect.Effect<void, E>
  /** The ids of the best `k` tools for a query; `undefined` when the engine rejects the query. */
  readonly search: (text: string, k: number) => Effect.Effect<ReadonlyArray<string> | undefined, E>
}

/**
 * Quality of one ranking.
 *
 * @since 0.1.0
 * @category models
 */
export interface Quality {
  readonly ndcg: number
  readonly recall1: number
  readonly recall5: number
  readonly recallK: number
  readonly mrr: number
}

/**
 * A problem with one query of the input: an empty query, no relevant tool, relevant ids not in the
 * catalog, a repeated id. `excluded` queries are left out of the means.
 *
 * @since 0.2.0
 * @category models
 */
export interface Issue {
  /** The line of the queries file (0 when the queries did not come from a file). */
  readonly line: number
  readonly id: string
  readonly problem: string
  readonly excluded: boolean
}

/**
 * A query with the line of the file it was read from.
 *
 * @since 0.2.0
 * @category models
 */
export interface Numbered {
  readonly line: number
  readonly spec: QuerySpec
}

/**
 * What `measure` reports.
 *
 * @since 0.1.0
 * @category models
 */
export interface Report {
  readonly strategy: string
  readonly tools: number
  /** Queries scored (the means are over these). */
  readonly queries: number
  /** Queries left out of the means because of their input (see `issues`). */
  readonly excluded: number
  /** Every problem found in the queries, excluded or not. */
  readonly issues: ReadonlyArray<Issue>
  readonly k: number
  readonly quality: Quality
  /** Time until the index can answer: adding every tool plus one warm-up query. */
  readonly indexMs: number
  readonly p50Us: number
  readonly p99Us: number
  /**
   * Memory held by the index after a garbage collection, in MB: the JavaScript heap plus array
   * buffers (an index kept in typed arrays holds its data outside the heap).
   */
  readonly memoryMb: number
  /** Queries the engine rejected (for example not a valid regular expression), scored as misses. */
  readonly rejected: number
  readonly rankings: ReadonlyArray<{ readonly id: string; readonly ranked: ReadonlyArray<string> }>
}

/**
 * How `measure` runs.
 *
 * @since 0.1.0
 * @category models
 */
export interface MeasureOptions {
  readonly k: number
  /** Timed passes over the queries stop after this many milliseconds (at least one pass). */
  readonly timeBudgetMs?: number
  /** Most timed passes. */
  readonly maxPasses?: number
  readonly onProgress?: (message: string) => void
}

// -----------------------------------------------------------------------------
// Metrics
// -----------------------------------------------------------------------------

/**
 * The relevant items of a query: groups of ids, any member of which finds the group.
 *
 * @since 0.1.0
 * @category metrics
 */
export const groupsOf: (query: QuerySpec) => ReadonlyArray<ReadonlyArray<string>> = Queries.groupsOf

/**
 * The quality of one ranking for one query, at cutoff `k`.
 *
 * @since 0.1.0
 * @category metrics
 */
export const quality: (query: QuerySpec, ranked: ReadonlyArray<string>, k: number) => Quality = Queries.quality

/**
 * The mean of each metric.
 *
 * @since 0.1.0
 * @category metrics
 */
export const mean = (qs: ReadonlyArray<Quality>): Quality => {
  const n = Math.max(qs.length, 1)
  const sum = (f: (q: Quality) => number) => qs.reduce((s, q) => s + f(q), 0) / n
  return {
    ndcg: sum((q) => q.ndcg),
    recall1: sum((q) => q.recall1),
    recall5: sum((q) => q.recall5),
    recallK: sum((q) => q.recallK),
    mrr: sum((q) => q.mrr)
  }
}

/**
 * The nearest-rank percentile `p` (0-100) of values.
 *
 * @since 0.1.0
 * @category metrics
 */
export const percentile = (values: ReadonlyArray<number>, p: number): number => {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number
}

// -----------------------------------------------------------------------------
// Harness
// -----------------------------------------------------------------------------

/** Forces a full garbage collection, so memory figures measure what is really held. */
const collectGarbage: () => void = (() => {
  // V8 frees the bytecode of functions idle over a few collections; that would make the heap of a
  // run shrink by code it merely stopped using (file parsing), so keep code memory stable.
  v8.setFlagsFromString("--no-flush-bytecode")
  v8.setFlagsFromString("--expose-gc")
  const gc = vm.runInNewContext("gc") as unknown
  return typeof gc === "function" ? () => (gc as () => void)() : () => undefined
})()

/**
 * The memory held after full collections, in bytes: the JavaScript heap plus array buffers (an index
 * kept in typed arrays holds its data outside the heap).
 *
 * @since 0.3.0
 * @category measuring
 */
export const memoryHeld = (): number => {
  // twice: the first pass may only run finalizers that free more
  collectGarbage()
  collectGarbage()
  const { arrayBuffers, heapUsed } = process.memoryUsage()
  return heapUsed + arrayBuffers
}

/**
 * Builds the engine on the tools, runs every query once for quality, then again in timed passes
 * for latency (until `timeBudgetMs` or `maxPasses`).
 *
 * @since 0.1.0
 * @category measuring
 */
export const measure = <E>(
  engine: Engine<E>,
  tools: ReadonlyArray<CatalogTool.CatalogTool>,
  input: ReadonlyArray<QuerySpec | Numbered>,
  options: MeasureOptions
): Effect.Effect<Report, E> =>
  Effect.gen(function*() {
    const progress = options.onProgress ?? (() => undefined)
    const { issues, queries } = validate(input, new Set(tools.map((t) => t.id)))
    const before = memoryHeld()
    progress(`${engine.name}: indexing ${tools.length} tools`)
    let start = performance.now()
    yield* engine.build(tools)
    yield* engine.search("warm up", options.k)
    const indexMs = performance.now() - start
    const memoryMb = (memoryHeld() - before) / 1e6

    const rankings: Array<{ readonly id: string; readonly ranked: ReadonlyArray<string> }> = []
    const qualities: Array<Quality> = []
    let rejected = 0
    for (const [i, q] of queries.entries()) {
      if (i > 0 && i % 100 === 0) progress(`${engine.name}: ${i}/${queries.length} queries`)
      const ranked = yield* engine.search(q.query, options.k)
      if (ranked === undefined) rejected++
      rankings.push({ id: q.id, ranked: ranked ?? [] })
      qualities.push(quality(q, ranked ?? [], options.k))
    }

    const latencies: Array<number> = []
    const budget = options.timeBudgetMs ?? 1500
    const maxPasses = options.maxPasses ?? 20
    start = performance.now()
    for (let pass = 0; pass < maxPasses && (pass === 0 || performance.now() - start < budget); pass++) {
      for (const q of queries) {
        const t0 = performance.now()
        yield* engine.search(q.query, options.k)
        latencies.push((performance.now() - t0) * 1000)
      }
    }
    return {
      strategy: engine.name,
      tools: tools.length,
      queries: queries.length,
      excluded: issues.filter((i) => i.excluded).length,
      issues,
      k: options.k,
      quality: mean(qualities),
      indexMs,
      p50Us: percentile(latencies, 50),
      p99Us: percentile(latencies, 99),
      memoryMb,
      rejected,
      rankings
    }
  })

/**
 * The `--json` object of a report: exactly the keys the benchmark format names.
 *
 * @since 0.1.0
 * @category output
 */
export const toJson = (report: Report): Record<string, string | number> => ({
  strategy: report.strategy,
  tools: report.tools,
  queries: report.queries,
  excluded: report.excluded,
  rejected: report.rejected,
  [`ndcg@${report.k}`]: round(report.quality.ndcg, 4),
  "recall@1": round(report.quality.recall1, 4),
  "recall@5": round(report.quality.recall5, 4),
  [`recall@${report.k}`]: round(report.quality.recallK, 4),
  [`mrr@${report.k}`]: round(report.quality.mrr, 4),
  indexMs: round(report.indexMs, 1),
  p50Us: round(report.p50Us, 1),
  p99Us: round(report.p99Us, 1),
  memoryMb: round(report.memoryMb, 1)
})

/**
 * Rounds to `digits` decimals.
 *
 * @since 0.1.0
 * @category output
 */
export const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits

// -----------------------------------------------------------------------------
// Engines and files
// -----------------------------------------------------------------------------

/**
 * A strategy's live index as an engine; queries it rejects (`InvalidQuery`) count as misses.
 *
 * @since 0.1.0
 * @category constructors
 */
export const strategyEngine = (
  strategy: SearchStrategy.Service
): Effect.Effect<Engine<SearchFailed>> =>
  Effect.map(strategy.makeIndex, (index) => ({
    name: strategy.name,
    build: (tools) => Effect.sync(() => index.add(tools.map(SearchDocument.fromTool))),
    // one combinator, so the harness adds as little as possible to the measured latency
    search: (text, k) =>
      Effect.matchEffect(index.search({ text, limit: k, accept: () => true }), {
        onSuccess: (hits) => Effect.succeed<ReadonlyArray<string> | undefined>(hits.map((h) => h.id)),
        onFailure: (error) => error._tag === "InvalidQuery" ? Effect.succeed(undefined) : Effect.fail(error)
      })
  }))

/**
 * Parses a queries file (JSON Lines); the first bad line is an error naming the file and line.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseQueries = (file: string, text: string): Effect.Effect<ReadonlyArray<QuerySpec>, string> =>
  Effect.map(readQueries(file, text), (queries) => queries.map((q) => q.spec))

/**
 * Parses a queries file (JSON Lines), keeping each query's line; the first line that is not a
 * query is an error naming the file and line.
 *
 * @since 0.2.0
 * @category files
 */
export const readQueries = (file: string, text: string): Effect.Effect<ReadonlyArray<Numbered>, string> =>
  Effect.gen(function*() {
    const out: Array<Numbered> = []
    const lines = text.split(/\r?\n/)
    for (let i = 0; i < lines.length; i++) {
      const raw = (lines[i] as string).trim() // i < lines.length
      if (raw === "") continue
      const decoded = Schema.decodeUnknownResult(Schema.fromJsonString(QuerySpec))(raw)
      if (decoded._tag === "Failure") return yield* Effect.fail(`${file}:${i + 1}: ${decoded.failure.message}`)
      out.push({ line: i + 1, spec: decoded.success })
    }
    if (out.length === 0) return yield* Effect.fail(`${file}: no queries`)
    return out
  })

// -----------------------------------------------------------------------------
// Validating the input
// -----------------------------------------------------------------------------

/**
 * The queries that can be scored, and every problem found: a repeated id (the first is kept), an
 * empty query, no relevant tool, relevant ids that are not in the catalog (left out of the label;
 * the query is excluded when no relevant tool remains).
 *
 * @since 0.2.0
 * @category validation
 */
export const validate: (
  input: ReadonlyArray<QuerySpec | Numbered>,
  toolIds: ReadonlySet<string>
) => { readonly queries: ReadonlyArray<QuerySpec>; readonly issues: ReadonlyArray<Issue> } = Queries.validate
