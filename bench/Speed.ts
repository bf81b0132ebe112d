/**
 * `npm run bench -- --speed`: the cost of BM25F queries in figures that depend less on the load of
 * the machine than wall time: CPU time of the process (`process.cpuUsage`) per query and for
 * building the index, on the generated scale catalogs and on the largest real catalog, against
 * wink-bm25 on the same queries (with both engines' nDCG@10). `--speed --callgrind <size|dataset> [--passes n] [--engine bm25f|wink]` runs one
 * engine on one catalog only, for an instruction count under `valgrind --tool=callgrind`
 * (repeatable whatever the load).
 *
 * CPU time counts every thread of the process (the garbage collector's helpers too), so it is an
 * upper bound of the query's own work, and it still grows when other processes crowd the caches;
 * wall time is printed beside it for runs on a quiet machine. Memory is what the built index holds
 * after the queries: the JavaScript heap and the array buffers (typed arrays), which `heapUsed`
 * alone does not count.
 */
import { Evaluation } from "@tool-search/cli"
import type { CatalogTool } from "@tool-search/core"
import { Effect } from "effect"
import * as Datasets from "./Datasets.js"
import * as Generate from "./Generate.js"
import * as Peers from "./Peers.js"

const log = (message: string) => process.stderr.write(`speed: ${message}\n`)

const cpuUs = (): number => {
  const u = process.cpuUsage()
  return u.user + u.system
}

/** One catalog and its queries. */
export interface Workload {
  readonly name: string
  readonly tools: ReadonlyArray<CatalogTool.CatalogTool>
  readonly queries: ReadonlyArray<string>
}

/** A generated catalog of `size` tools with 1,000 queries (the scale run's). */
export const generated = (size: number): Workload => {
  const tools = Generate.catalog(size)
  return { name: `generated ${size}`, tools, queries: Generate.queries(tools, 1_000).map((q) => q.query) }
}

/** A real data set's catalog and queries. */
export const dataset = (name: string): Effect.Effect<Workload> =>
  Effect.map(Datasets.load(name), (d) => ({ name, tools: d.tools, queries: d.queries.map((q) => q.query) }))

/** What one engine cost on a workload. */
export interface Cost {
  readonly buildCpuMs: number
  readonly buildWallMs: number
  readonly cpuP50Us: number
  readonly cpuP99Us: number
  readonly wallP50Us: number
  readonly wallP99Us: number
  /** Mean CPU time per query over the timed passes. */
  readonly cpuMeanUs: number
  /** Heap and array buffers held by the built index (and its engine), MB. */
  readonly memoryMb: number
}

/** Builds `engine` on the workload, runs every query once to warm up, then `passes` timed passes. */
export const cost = <E>(engine: Evaluation.Engine<E>, work: Workload, passes = 3): Effect.Effect<Cost, E> =>
  Effect.gen(function*() {
    const m0 = Evaluation.memoryHeld()
    const c0 = cpuUs()
    const w0 = performance.now()
    yield* engine.build(work.tools)
    const buildCpuMs = (cpuUs() - c0) / 1000
    const buildWallMs = performance.now() - w0
    for (const q of work.queries) yield* engine.search(q, 10)
    const cpu: Array<number> = []
    const wall: Array<number> = []
    const total0 = cpuUs()
    for (let pass = 0; pass < passes; pass++) {
      for (const q of work.queries) {
        const c = cpuUs()
        const w = performance.now()
        yield* engine.search(q, 10)
        wall.push((performance.now() - w) * 1000)
        cpu.push(cpuUs() - c)
      }
    }
    return {
      buildCpuMs,
      buildWallMs,
      cpuP50Us: Evaluation.percentile(cpu, 50),
      cpuP99Us: Evaluation.percentile(cpu, 99),
      wallP50Us: Evaluation.percentile(wall, 50),
      wallP99Us: Evaluation.percentile(wall, 99),
      cpuMeanUs: (cpuUs() - total0) / cpu.length,
      memoryMb: (Evaluation.memoryHeld() - m0) / 1e6
    }
  })

const row = (work: string, engine: string, c: Cost): string =>
  `| ${work} | ${engine} | ${c.buildCpuMs.toFixed(0)} | ${c.buildWallMs.toFixed(0)} | ${c.cpuMeanUs.toFixed(1)} | ${
    c.cpuP50Us.toFixed(0)
  } | ${c.cpuP99Us.toFixed(0)} | ${c.wallP50Us.toFixed(1)} | ${c.wallP99Us.toFixed(1)} | ${c.memoryMb.toFixed(1)} |`

/** The table: BM25F on the scale catalogs and on the largest real catalog, wink-bm25 (stock) beside it there, with both engines' nDCG@10. */
export const report = (sizes: ReadonlyArray<number> = [10_000, 100_000], real = "seal-tools") =>
  Effect.gen(function*() {
    const out = [
      "| catalog | engine | build CPU ms | build wall ms | query CPU mean µs | CPU p50 µs | CPU p99 µs | wall p50 µs | wall p99 µs | heap + array buffers MB |",
      "|---|---|---|---|---|---|---|---|---|---|"
    ]
    for (const size of sizes) {
      log(`generated ${size}`)
      const work = generated(size)
      out.push(row(work.name, "bm25f", yield* cost(Peers.bm25f(), work)))
    }
    const largest = yield* Datasets.load(real)
    const work: Workload = { name: real, tools: largest.tools, queries: largest.queries.map((q) => q.query) }
    log(real)
    out.push(row(real, "bm25f", yield* cost(Peers.bm25f(), work)))
    out.push(row(real, "wink-bm25 (stock)", yield* cost(Peers.winkBm25("stock"), work)))
    const quality = (engine: Evaluation.Engine) => Effect.map(Datasets.score(engine, largest), (s) => s.mean.ndcg)
    out.push(
      "",
      `${real} nDCG@10: bm25f ${(yield* quality(Peers.bm25f())).toFixed(3)}, wink-bm25 (stock) ${
        (yield* quality(Peers.winkBm25("stock"))).toFixed(3)
      }`
    )
    return out.join("\n")
  })

/**
 * `passes` passes of a workload's queries with one engine (`bm25f`, or `wink` for wink-bm25 in its
 * stock setup), after building it, for `valgrind --tool=callgrind`: the instruction count of the
 * whole process is the build plus the passes, so the difference of two runs with 1 and 2 passes is
 * one pass of the queries.
 */
export const once = (target: string, passes: number, engineName = "bm25f") =>
  Effect.gen(function*() {
    const work = /^\d+$/.test(target) ? generated(Number(target)) : yield* dataset(target)
    const engine = engineName === "wink" ? Peers.winkBm25("stock") : Peers.bm25f()
    yield* engine.build(work.tools)
    let hits = 0
    for (let pass = 0; pass < passes; pass++) {
      for (const q of work.queries) hits += (yield* engine.search(q, 10))?.length ?? 0
    }
    return `${work.name}: ${engine.name}, ${work.queries.length} queries × ${passes} passes, ${hits} hits`
  })
