/**
 * `npm run bench:gateway`: the figures behind two gateway settings.
 *
 * 1. `minRelativeScore`: for each data set of `../shared/bench`, the default strategy's top 5 per
 *    query (the default `max_results`), and for each threshold how many hits a search would load,
 *    how many relevant ones it keeps, and how many irrelevant ones it leaves out. The threshold is
 *    chosen on two data sets and judged on the third (each in turn), never on all three.
 * 2. The regex budget: a pattern with counted repetitions over 100k generated tool names, with and
 *    without the budget, and how long another fiber waits while the search runs.
 *
 * Wall-clock figures are for this machine, printed, never asserted.
 */
import { Evaluation } from "@tool-search/cli"
import { CatalogFile, Regex, SearchDocument, Strategies, ToolCatalog } from "@tool-search/core"
import { Effect, Fiber, Layer } from "effect"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import * as Generate from "./Generate.js"

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..")
const benchRoot = resolve(repoRoot, "../shared/bench")
const TOP = 5
const thresholds = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]

interface Counts {
  loaded: number
  relevantKept: number
  relevantInTop: number
  irrelevantDropped: number
  irrelevantInTop: number
  queries: number
}

const measureDataset = (name: string) =>
  Effect.gen(function*() {
    const dir = join(benchRoot, name)
    const tools = yield* CatalogFile.parse("tools.jsonl", readFileSync(join(dir, "tools.jsonl"), "utf8"), {
      names: "sanitize"
    }).pipe(Effect.orDie)
    const queries = yield* Evaluation.parseQueries("queries.jsonl", readFileSync(join(dir, "queries.jsonl"), "utf8"))
      .pipe(Effect.orDie)
    const counts = new Map(thresholds.map((t) => [t, {
      loaded: 0,
      relevantKept: 0,
      relevantInTop: 0,
      irrelevantDropped: 0,
      irrelevantInTop: 0,
      queries: 0
    } as Counts]))
    yield* Effect.gen(function*() {
      const catalog = yield* ToolCatalog.ToolCatalog
      yield* catalog.register(tools)
      for (const q of queries) {
        const matches = yield* catalog.search({ _tag: "Keywords", text: q.query }, { limit: TOP }).pipe(
          Effect.orElseSucceed(() => [])
        )
        const best = matches[0]?.score ?? 0
        const relevant = new Set(q.relevant)
        for (const t of thresholds) {
          const c = counts.get(t) as Counts
          c.queries++
          for (const m of matches) {
            const isRelevant = relevant.has(m.tool.id)
            const kept = m.score >= best * t
            if (kept) c.loaded++
            if (isRelevant) {
              c.relevantInTop++
              if (kept) c.relevantKept++
            } else {
              c.irrelevantInTop++
              if (!kept) c.irrelevantDropped++
            }
          }
        }
      }
    }).pipe(Effect.provide(ToolCatalog.ToolCatalog.layer.pipe(Layer.provide(Strategies.layer(Strategies.defaultName)))))
    return counts
  })

const row = (c: Counts) => ({
  loaded: c.loaded / c.queries,
  relevantKept: c.relevantInTop === 0 ? 1 : c.relevantKept / c.relevantInTop,
  irrelevantDropped: c.irrelevantInTop === 0 ? 0 : c.irrelevantDropped / c.irrelevantInTop
})

/** The threshold that drops the most irrelevant hits while keeping at least 98% of the relevant ones. */
const choose = (rows: ReadonlyArray<ReadonlyMap<number, Counts>>): number => {
  let chosen = 0
  for (const t of thresholds) {
    const merged = rows.map((r) => r.get(t) as Counts).reduce((a, b) => ({
      loaded: a.loaded + b.loaded,
      relevantKept: a.relevantKept + b.relevantKept,
      relevantInTop: a.relevantInTop + b.relevantInTop,
      irrelevantDropped: a.irrelevantDropped + b.irrelevantDropped,
      irrelevantInTop: a.irrelevantInTop + b.irrelevantInTop,
      queries: a.queries + b.queries
    }))
    if (row(merged).relevantKept >= 0.98) chosen = t
  }
  return chosen
}

const relativeScore = Effect.gen(function*() {
  const datasets = existsSync(benchRoot)
    ? readdirSync(benchRoot).filter((d) => existsSync(join(benchRoot, d, "tools.jsonl")))
    : []
  const results = new Map<string, ReadonlyMap<number, Counts>>()
  for (const d of datasets) results.set(d, yield* measureDataset(d))
  console.log(
    `## minRelativeScore (${Strategies.defaultName}, top ${TOP}; loaded per query, relevant kept, irrelevant left out)\n`
  )
  console.log(`| data set | ${thresholds.map((t) => `r=${t}`).join(" | ")} |`)
  console.log(`|---|${thresholds.map(() => "---").join("|")}|`)
  for (const [d, counts] of results) {
    const cells = thresholds.map((t) => {
      const r = row(counts.get(t) as Counts)
      return `${r.loaded.toFixed(2)} / ${(r.relevantKept * 100).toFixed(1)}% / ${
        (r.irrelevantDropped * 100).toFixed(1)
      }%`
    })
    console.log(`| ${d} | ${cells.join(" | ")} |`)
  }
  console.log(
    "\nLeave one out: the threshold chosen on the other data sets (≥ 98% of relevant hits kept), judged here:\n"
  )
  for (const d of datasets) {
    const others = datasets.filter((o) => o !== d).map((o) => results.get(o) as ReadonlyMap<number, Counts>)
    const t = choose(others)
    const r = row((results.get(d) as ReadonlyMap<number, Counts>).get(t) as Counts)
    const none = row((results.get(d) as ReadonlyMap<number, Counts>).get(0) as Counts)
    console.log(
      `- ${d}: r=${t} loads ${r.loaded.toFixed(2)} tools per search instead of ${none.loaded.toFixed(2)}, keeps ${
        (r.relevantKept * 100).toFixed(1)
      }% of the relevant hits, leaves out ${(r.irrelevantDropped * 100).toFixed(1)}% of the irrelevant ones`
    )
  }
})

const regexBudget = Effect.gen(function*() {
  const tools = Generate.catalog(100_000)
  const docs = tools.map(SearchDocument.fromTool)
  const pattern = "(.{0,30}){10}x"
  console.log(`\n## Regex budget: '${pattern}' over ${tools.length} generated names\n`)
  for (
    const [label, maxSteps] of [["with the budget (default)", Regex.MAX_STEPS], ["without a budget", Infinity]] as const
  ) {
    const index = yield* Regex.makeIndexWith({ maxSteps })
    index.add(docs)
    // another session's request: how long it waits behind this search
    let waited = 0
    const started = performance.now()
    const search = yield* Effect.forkChild(Effect.result(index.search({ text: pattern, limit: 5, accept: () => true })))
    const ping = yield* Effect.forkChild(Effect.sync(() => {
      waited = performance.now() - started
    }))
    const outcome = yield* Fiber.join(search)
    const elapsed = performance.now() - started
    yield* Fiber.join(ping)
    const what = outcome._tag === "Failure"
      ? /stopped after (\d+) steps/.exec(outcome.failure.message)?.[0] ?? outcome.failure.message
      : `${outcome.success.length} hits`
    console.log(`- ${label}: ${elapsed.toFixed(0)} ms (${what}); a concurrent fiber waited ${waited.toFixed(1)} ms`)
  }
  const ordinary = yield* Regex.makeIndexWith({})
  ordinary.add(docs)
  const started = performance.now()
  const hits = yield* ordinary.search({ text: "send.*message", limit: 5, accept: () => true }).pipe(Effect.orDie)
  console.log(
    `- an ordinary pattern ('send.*message'): ${(performance.now() - started).toFixed(0)} ms, ${hits.length} hits`
  )
})

Effect.runPromise(Effect.andThen(relativeScore, regexBudget)).catch((e) => {
  console.error(e)
  process.exit(1)
})
