/**
 * The engines of the benchmark: BM25F with any parameters, and the peer libraries, each in two
 * setups, so every delta can be reported against the peer's stronger one:
 *
 * - `stock`: as their users run them. wink-bm25-text-search has no tokenizer of its own; its users
 *   give it one, here the plain tokenizer below (split camelCase, lower-case, split on anything that
 *   is not a letter or digit, a 40-word English stop list, no stemming), the seed's field weights
 *   (name 3, parameter names 2, description 1, parameter descriptions 1; aliases as the name,
 *   category as the description) and k1 1.5, b 0.75. MiniSearch keeps its own default tokenizer
 *   (split on spaces and punctuation), its lower-casing and its BM25+ defaults (k 1.2, b 0.7,
 *   d 0.5), with the same field boosts.
 * - `analyzer`: the project's analyzer (`Analyzer.defaults`) for documents and queries, and the
 *   BM25F defaults' field weights, k1 and b.
 *
 * - MiniSearch 7.2.0: BM25+ with per-field length normalization, incremental.
 * - wink-bm25-text-search 3.1.2: BM25 over the field-weighted bag of words with one length
 *   normalization; scores are precomputed at `consolidate`, after which nothing can be added.
 */
import type { Evaluation } from "@tool-search/cli"
import { Analyzer, Bm25f, type CatalogTool, SearchDocument } from "@tool-search/core"
import { Bm25fIndex } from "@tool-search/core/internal/bench"
import { Effect } from "effect"
import MiniSearch from "minisearch"
import wink from "wink-bm25-text-search"

/** How a peer is set up. */
export type Setup = "stock" | "analyzer"

/** Both setups, stock first. */
export const setups: ReadonlyArray<Setup> = ["stock", "analyzer"]

/** The seed's field weights, as the peers' users configure them. */
export const seedWeights: Readonly<Record<Bm25f.Field, number>> = { ...Bm25fIndex.stockRanker.weights, queries: 1 }

/** A 40-word English stop list: Lucene's 33 English stop words and `from has have i me my were`. */
export const PLAIN_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these " +
    "they this to was will with from has have i me my were"
  ).split(" ")
)

/** The plain tokenizer: camelCase split, lower case, non-alphanumerics split, stop words dropped, no stemming. */
export const plainTokens = (text: string): Array<string> =>
  text.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2").toLowerCase()
    .split(/[^\p{L}\p{N}]+/u).filter((t) => t.length > 0 && !PLAIN_STOP_WORDS.has(t))

const fieldsOf = (tool: CatalogTool.CatalogTool): Readonly<Record<Bm25f.Field, string>> =>
  Bm25fIndex.fieldTexts(SearchDocument.fromTool(tool))

/** BM25F with the given parameters (its live index, as the catalog uses it). */
export const bm25f = (parameters: Bm25f.Parameters = Bm25f.defaults, name = "bm25f"): Evaluation.Engine => {
  const index = Bm25fIndex.make(parameters)
  return {
    name,
    build: (tools) => Effect.sync(() => index.add(tools.map(SearchDocument.fromTool))),
    search: (text, k) =>
      index.search({ text, limit: k, accept: () => true }).pipe(
        Effect.map((hits) => hits.map((h) => h.id)),
        Effect.orDie
      )
  }
}

/** MiniSearch in one setup. */
export const miniSearch = (setup: Setup): Evaluation.Engine => {
  const analyzer = Analyzer.make()
  const parameters = Bm25f.defaults
  const index = new MiniSearch<Record<string, string>>(
    setup === "stock"
      ? {
        fields: [...Bm25fIndex.FIELDS],
        idField: "id",
        searchOptions: { boost: { ...seedWeights }, combineWith: "OR" }
      }
      : {
        fields: [...Bm25fIndex.FIELDS],
        idField: "id",
        tokenize: (text) => analyzer.terms(text),
        processTerm: (term) => term,
        searchOptions: {
          boost: { ...parameters.weights },
          bm25: { k: parameters.k1, b: parameters.b, d: 0.5 },
          combineWith: "OR",
          // queries go through the same analyzer; their terms are already processed
          tokenize: (text) => analyzer.queryTerms(text),
          processTerm: (term) => term
        }
      }
  )
  return {
    name: `minisearch (${setup})`,
    build: (tools) => Effect.sync(() => index.addAll(tools.map((t) => ({ id: t.id, ...fieldsOf(t) })))),
    search: (text, k) => Effect.sync(() => index.search(text).slice(0, k).map((r) => String(r.id)))
  }
}

/** wink-bm25-text-search in one setup. */
export const winkBm25 = (setup: Setup): Evaluation.Engine => {
  const engine = wink()
  const analyzer = Analyzer.make()
  const parameters = setup === "stock" ? { ...Bm25f.defaults, k1: 1.5, b: 0.75, weights: seedWeights } : Bm25f.defaults
  engine.defineConfig({
    fldWeights: { ...parameters.weights },
    bm25Params: { k1: parameters.k1, b: parameters.b, k: 1 }
  })
  if (setup === "stock") {
    for (const field of Bm25fIndex.FIELDS) engine.definePrepTasks([plainTokens], field)
    engine.definePrepTasks([plainTokens])
  } else {
    // documents keep repeated terms (term frequency); queries use distinct terms, as BM25F does
    for (const field of Bm25fIndex.FIELDS) engine.definePrepTasks([(text) => analyzer.terms(text)], field)
    engine.definePrepTasks([(text) => analyzer.queryTerms(text)])
  }
  return {
    name: `wink-bm25 (${setup})`,
    build: (tools) =>
      Effect.sync(() => {
        for (const tool of tools) engine.addDoc({ ...fieldsOf(tool) }, tool.id)
        engine.consolidate()
      }),
    search: (text, k) => Effect.sync(() => engine.search(text, k).map(([id]) => id))
  }
}

/** The peer engines by name, as `npm run bench` names them. */
export const peers: Record<string, () => Evaluation.Engine> = {
  "minisearch (stock)": () => miniSearch("stock"),
  "minisearch (analyzer)": () => miniSearch("analyzer"),
  "wink-bm25 (stock)": () => winkBm25("stock"),
  "wink-bm25 (analyzer)": () => winkBm25("analyzer")
}
