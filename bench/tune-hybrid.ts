/**
 * `node dist/bench/tune-hybrid.js`: tunes the lexical weight of the hybrid strategy on development
 * queries only. Each data set's queries are split deterministically by a hash of the query id:
 * even hashes are development queries, odd hashes are held out (never looked at here). For each
 * weight from 0 to 1 in steps of 0.05, it prints nDCG@10 and Recall@1 on the development queries
 * of every data set, and the weight with the best mean nDCG@10 over data sets.
 *
 * Uses the offline embedding model and the vector cache, like `npm run bench`.
 */
import { NodeServices } from "@effect/platform-node"
import { Evaluation } from "@tool-search/cli"
import {
  Bm25f,
  CatalogFile,
  CatalogTool,
  Hybrid,
  OfflineEmbeddings,
  SearchDocument,
  Semantic,
  VectorCache
} from "@tool-search/core"
import { Effect } from "effect"
import { EmbeddingModel } from "effect/ai"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const benchRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../../shared/bench")
const log = (message: string) => process.stderr.write(`tune: ${message}\n`)

/** Development queries: an even FNV hash of the id. */
export const isDevelopment = (id: string): boolean => parseInt(CatalogTool.hash(id).slice(-1), 16) % 2 === 0

const WEIGHTS = Array.from({ length: 21 }, (_, i) => i / 20)

const program = Effect.gen(function*() {
  const model = yield* EmbeddingModel.EmbeddingModel
  const datasets = readdirSync(benchRoot).filter((d) => existsSync(join(benchRoot, d, "queries.jsonl"))).sort()
  const results = new Map<string, Array<{ readonly ndcg: number; readonly recall1: number }>>()
  for (const dataset of datasets) {
    const tools: ReadonlyArray<CatalogTool.CatalogTool> = yield* CatalogFile.parse(
      dataset,
      readFileSync(join(benchRoot, dataset, "tools.jsonl"), "utf8"),
      { names: "sanitize" }
    ).pipe(Effect.orDie)
    const queries =
      (yield* Evaluation.parseQueries(dataset, readFileSync(join(benchRoot, dataset, "queries.jsonl"), "utf8"))
        .pipe(Effect.orDie)).filter((q) => isDevelopment(q.id))
    log(`${dataset}: ${queries.length} development queries`)
    const docs = tools.map(SearchDocument.fromTool)
    const lexical = Bm25f.makeIndexWith(Bm25f.defaults)
    lexical.add(docs)
    const semantic = yield* Semantic.makeIndexWith(model, {
      ...Semantic.defaults,
      model: OfflineEmbeddings.modelName,
      cache: yield* VectorCache.makeFile(yield* VectorCache.directory, OfflineEmbeddings.modelName),
      onProgress: (done, total) => log(`${dataset}: embedding ${done}/${total}`)
    })
    semantic.add(docs)
    const runs: Array<
      {
        readonly q: Evaluation.QuerySpec
        readonly hits: ReadonlyArray<{ id: string; score: number }>
        readonly sims: ReadonlyMap<string, number>
      }
    > = []
    for (const q of queries) {
      const hits = yield* lexical.search({ text: q.query, limit: Hybrid.defaults.pool, accept: () => true })
      const sims = yield* semantic.similarities({ text: q.query, accept: () => true })
      runs.push({ q, hits, sims })
    }
    results.set(
      dataset,
      WEIGHTS.map((lexicalWeight) => {
        const quality = Evaluation.mean(
          runs.map(({ hits, q, sims }) =>
            Evaluation.quality(
              q,
              Hybrid.fuse(hits, sims, { lexicalWeight, pool: Hybrid.defaults.pool }, 10).map((h) => h.id),
              10
            )
          )
        )
        return { ndcg: quality.ndcg, recall1: quality.recall1 }
      })
    )
  }
  const lines = [`| lexical weight | ${datasets.map((d) => `${d} nDCG@10 / R@1`).join(" | ")} | mean nDCG@10 |`]
  lines.push(`|---|${datasets.map(() => "---").join("|")}|---|`)
  let best = { weight: 0, ndcg: -1 }
  WEIGHTS.forEach((w, i) => {
    const cells = datasets.map((d) => {
      const r = results.get(d)?.[i]
      return r === undefined ? "" : `${r.ndcg.toFixed(3)} / ${r.recall1.toFixed(3)}`
    })
    const mean = datasets.reduce((s, d) => s + (results.get(d)?.[i]?.ndcg ?? 0), 0) / datasets.length
    if (mean > best.ndcg) best = { weight: w, ndcg: mean }
    lines.push(`| ${w.toFixed(2)} | ${cells.join(" | ")} | ${mean.toFixed(4)} |`)
  })
  lines.push(
    "",
    `best lexical weight on development queries: ${best.weight.toFixed(2)} (mean nDCG@10 ${best.ndcg.toFixed(4)})`
  )
  process.stdout.write(`${lines.join("\n")}\n`)
})

Effect.runPromise(program.pipe(Effect.provide([OfflineEmbeddings.layer, NodeServices.layer]))).catch(
  (error: unknown) => {
    process.stderr.write(`tune failed: ${String(error)}\n`)
    process.exit(1)
  }
)
