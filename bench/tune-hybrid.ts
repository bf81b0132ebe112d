/**
 * `npm run bench -- --hybrid`: the hybrid strategy's lexical weight, lexical head and confidence
 * margin, chosen so that the hybrid never falls below BM25F on a development set.
 *
 * For every data set, every query is ranked once by BM25F (the defaults, a pool of 50) and by the
 * offline embedding model (the 50 most similar tools; vectors and pools cached on disk, so a second
 * run embeds nothing); then every triple (lexical weight, head, margin) of the grid is evaluated
 * from those rankings (`HybridIndex.fuse`, `HybridIndex.confident`). A triple is eligible on a
 * group of sets when it passes the tuning protocol's rule there (`Protocol.accepts`: none below
 * BM25F by more than noise, a positive mean gain and a positive mean risk-sensitive gain) and is at
 * or above BM25F on every one of them; the eligible triple with the best mean risk-sensitive gain
 * is chosen (BM25F itself when none is). Each fold chooses on the other sets and is judged on the
 * held-out one (Δ ± noise); the default: the choice on every set.
 */
import { Evaluation } from "@tool-search/cli"
import { Bm25f, Hybrid, SearchDocument, Semantic } from "@tool-search/core"
import { Bm25fIndex, HybridIndex, SemanticIndex } from "@tool-search/core/internal/bench"
import { OfflineEmbeddings } from "@tool-search/embeddings-offline"
import { Effect } from "effect"
import { EmbeddingModel } from "effect/ai"
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import * as Datasets from "./Datasets.js"
import { accepts, compare, type Comparison, evaluationsFile, noise } from "./Protocol.js"

const log = (message: string) => process.stderr.write(`hybrid: ${message}\n`)
const f3 = (x: number) => x.toFixed(3)
const signed = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(3)}`
const meanOf = (xs: ReadonlyArray<number>): number => xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length

/** Lexical weights tried. */
export const WEIGHTS = [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95]
/** Confidence margins tried (0: the lexical ranking always kept, which is BM25F; 2: never kept, always fused). */
export const MARGINS = [0, 0.05, 0.1, 0.2, 0.3, 0.5, 2]
/** Lexical heads tried (`Hybrid.Options.keepAbove`; 0: everything fused). */
export const HEADS = [0, 0.5, 0.6, 0.7, 0.8, 0.9]

interface Run {
  readonly q: Evaluation.QuerySpec
  readonly hits: ReadonlyArray<{ readonly id: string; readonly score: number }>
  readonly sims: ReadonlyMap<string, number>
}

interface Pair {
  readonly lexicalWeight: number
  readonly margin: number
  readonly keepAbove: number
}

const showPair = (p: Pair) =>
  `w ${p.lexicalWeight}, margin ${p.margin > 1 ? "never" : p.margin}, head ${p.keepAbove === 0 ? "none" : p.keepAbove}`

/**
 * The semantic side's pool per query is kept beside the protocol's evaluations (one JSON line per
 * query: data set, query id, the pool's ids and similarities), so an interrupted run resumes and a
 * second run embeds no query again.
 */
const poolsFile = (): string => join(dirname(evaluationsFile()), "hybrid-pools.jsonl")

const readPools = (dataset: string): Map<string, ReadonlyArray<readonly [string, number]>> => {
  const out = new Map<string, ReadonlyArray<readonly [string, number]>>()
  const file = poolsFile()
  if (!existsSync(file)) return out
  for (const line of readFileSync(file, "utf8").split("\n")) {
    try {
      const entry: unknown = JSON.parse(line)
      if (
        typeof entry === "object" && entry !== null && "model" in entry &&
        entry.model === OfflineEmbeddings.modelName &&
        "dataset" in entry && entry.dataset === dataset && "id" in entry && typeof entry.id === "string" &&
        "pool" in entry && Array.isArray(entry.pool)
      ) out.set(entry.id, entry.pool as ReadonlyArray<readonly [string, number]>)
    } catch {
      // an empty or cut line
    }
  }
  return out
}

/** The rankings of one data set's queries by both sides. */
const rankings = (dataset: Datasets.Dataset) =>
  Effect.gen(function*() {
    const pools = readPools(dataset.name)
    // a fresh clone has no cache directory yet
    mkdirSync(dirname(poolsFile()), { recursive: true })
    const docs = dataset.tools.map(SearchDocument.fromTool)
    const lexical = Bm25fIndex.make(Bm25f.defaults)
    lexical.add(docs)
    // no `cache` of its own: the model's file cache in the `VectorCache.Store` (a second run embeds nothing)
    const semantic = yield* SemanticIndex.make(yield* EmbeddingModel.EmbeddingModel, {
      batchSize: Semantic.defaults.batchSize,
      model: OfflineEmbeddings.modelName,
      onProgress: (done, total) => log(`${dataset.name}: embedding tools ${done}/${total}`)
    })
    semantic.add(docs)
    const runs: Array<Run> = []
    for (const q of dataset.queries) {
      if (runs.length % 250 === 0) log(`${dataset.name}: query ${runs.length}/${dataset.queries.length}`)
      const hits = yield* lexical.search({ text: q.query, limit: Hybrid.defaults.pool, accept: () => true })
      let pool = pools.get(q.id)
      if (pool === undefined) {
        const all = yield* semantic.similarities({ text: q.query, accept: () => true })
        // only the pool's most similar tools take part in the fusion
        pool = [...all].sort((a, b) => b[1] - a[1]).slice(0, Hybrid.defaults.pool)
        appendFileSync(
          poolsFile(),
          `${JSON.stringify({ model: OfflineEmbeddings.modelName, dataset: dataset.name, id: q.id, pool })}\n`
        )
      }
      runs.push({ q, hits, sims: new Map(pool) })
    }
    return runs
  })

const perQuery = (runs: ReadonlyArray<Run>, pair: Pair): ReadonlyArray<number> =>
  runs.map(({ hits, q, sims }) => {
    const ranked = HybridIndex.confident(hits, pair.margin)
      ? hits.slice(0, 10)
      : HybridIndex.fuse(
        hits,
        sims,
        { lexicalWeight: pair.lexicalWeight, pool: Hybrid.defaults.pool, keepAbove: pair.keepAbove },
        10
      )
    return Evaluation.quality(q, ranked.map((h) => h.id), 10).ndcg
  })

/** The report. */
export const report = (only?: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const datasets = yield* Effect.forEach(Datasets.names(only), Datasets.load)
    const names = datasets.map((d) => d.name)
    const runs = new Map<string, ReadonlyArray<Run>>()
    for (const d of datasets) runs.set(d.name, yield* rankings(d))
    const pairs: ReadonlyArray<Pair> = WEIGHTS.flatMap((lexicalWeight) =>
      HEADS.flatMap((keepAbove) => MARGINS.map((margin) => ({ lexicalWeight, margin, keepAbove })))
    )
    const scores = new Map<string, ReadonlyArray<number>>()
    const scoreOf = (pair: Pair, dataset: string) => {
      const key = `${dataset} ${showPair(pair)}`
      let s = scores.get(key)
      if (s === undefined) {
        s = perQuery(runs.get(dataset) ?? [], pair)
        scores.set(key, s)
      }
      return s
    }
    const lexicalOnly: Pair = { lexicalWeight: 1, margin: 2, keepAbove: 0 }
    const delta = (pair: Pair, dataset: string) =>
      meanOf(scoreOf(pair, dataset)) - meanOf(scoreOf(lexicalOnly, dataset))
    // a comparison (with its bootstrap) per pair and data set, computed once for every fold that asks
    const comparisons = new Map<string, Comparison>()
    const comparisonOf = (pair: Pair, dataset: string) => {
      const key = `${dataset} ${showPair(pair)}`
      let c = comparisons.get(key)
      if (c === undefined) {
        c = compare(scoreOf(pair, dataset), scoreOf(lexicalOnly, dataset))
        comparisons.set(key, c)
      }
      return c
    }
    /**
     * Among the pairs the protocol's acceptance rule (`Protocol.accepts`) keeps on `sets` and that
     * are at or above BM25F on every one of them (what a hybrid promises: never below BM25F), the
     * best mean risk-sensitive gain (the protocol's proposal rule); BM25F itself when none.
     */
    const choose = (sets: ReadonlyArray<string>): Pair =>
      // the cheap clause first: a bootstrap only for the pairs at or above BM25F everywhere
      pairs.filter((p) => sets.every((d) => delta(p, d) >= 0) && accepts(sets.map((d) => comparisonOf(p, d)))).reduce<
        { pair: Pair; risk: number }
      >(
        (best, p) => {
          const risk = meanOf(sets.map((d) => comparisonOf(p, d).risk))
          return risk > best.risk + 1e-9 ? { pair: p, risk } : best
        },
        { pair: lexicalOnly, risk: 0 }
      ).pair
    const out: Array<string> = [
      "Hybrid (offline model) against BM25F, nDCG@10 per data set, for each lexical weight and confidence margin:",
      "",
      `| pair | ${names.join(" | ")} |`,
      `|---|${names.map(() => "---").join("|")}|`,
      `| BM25F | ${names.map((d) => f3(meanOf(scoreOf(lexicalOnly, d)))).join(" | ")} |`
    ]
    for (const pair of pairs) {
      out.push(
        `| ${showPair(pair)} | ${
          names.map((d) => `${f3(meanOf(scoreOf(pair, d)))} (${signed(delta(pair, d))})`).join(" | ")
        } |`
      )
    }
    out.push(
      "",
      "Leave one data set out: each fold chooses on the other sets (the protocol's rule, and none below BM25F), judged on the held-out set",
      "",
      "| held out | chosen | hybrid | BM25F | Δ ± noise |",
      "|---|---|---|---|---|"
    )
    for (const heldOut of names) {
      const pair = choose(names.filter((n) => n !== heldOut))
      const mine = scoreOf(pair, heldOut)
      const base = scoreOf(lexicalOnly, heldOut)
      out.push(
        `| ${heldOut} | ${showPair(pair)} | ${f3(meanOf(mine))} | ${f3(meanOf(base))} | ${
          signed(meanOf(mine) - meanOf(base))
        } ±${f3(noise(mine, base))} |`
      )
    }
    const chosen = choose(names)
    out.push("", `Chosen on every data set: ${showPair(chosen)}.`)
    return out.join("\n")
  })
