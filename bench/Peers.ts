/**
 * The peer libraries of the benchmark, configured like BM25F: the same six fields, the same field
 * weights, the same analyzer (`Analyzer.terms` for documents and queries), k1 = 1.5, b = 0.75.
 * What differs is only the ranking function and the index.
 *
 * - MiniSearch 7.2.0: BM25+ with per-field length normalization (`d = 0.5`, its default),
 *   incremental.
 * - wink-bm25-text-search 3.1.2: BM25 over the field-weighted bag of words with one length
 *   normalization; scores are precomputed at `consolidate`, after which nothing can be added.
 */
import type { Evaluation } from "@tool-search/cli"
import { Analyzer, Bm25f, SearchDocument } from "@tool-search/core"
import { Effect } from "effect"
import MiniSearch from "minisearch"
import wink from "wink-bm25-text-search"

const fieldsOf = (tool: Parameters<typeof SearchDocument.fromTool>[0]): Record<string, string> => ({
  id: tool.id,
  ...Bm25f.fieldTexts(SearchDocument.fromTool(tool))
})

/** MiniSearch with the BM25F fields, weights and analyzer. */
export const miniSearch = (parameters: Bm25f.Parameters = Bm25f.defaults): Evaluation.Engine => {
  const index = new MiniSearch<Record<string, string>>({
    fields: [...Bm25f.FIELDS],
    idField: "id",
    tokenize: (text) => Analyzer.terms(text),
    processTerm: (term) => term,
    searchOptions: {
      boost: { ...parameters.weights },
      bm25: { k: parameters.k1, b: parameters.b, d: 0.5 },
      combineWith: "OR",
      // queries go through the same analyzer; their terms are already processed
      tokenize: (text) => Analyzer.queryTerms(text),
      processTerm: (term) => term
    }
  })
  return {
    name: "minisearch",
    build: (tools) => Effect.sync(() => index.addAll(tools.map(fieldsOf))),
    search: (text, k) => Effect.sync(() => index.search(text).slice(0, k).map((r) => String(r.id)))
  }
}

/** wink-bm25-text-search with the BM25F fields, weights and analyzer. */
export const winkBm25 = (parameters: Bm25f.Parameters = Bm25f.defaults): Evaluation.Engine => {
  const engine = wink()
  engine.defineConfig({
    fldWeights: { ...parameters.weights },
    bm25Params: { k1: parameters.k1, b: parameters.b, k: 1 }
  })
  // documents keep repeated terms (term frequency); queries use distinct terms, as BM25F does
  for (const field of Bm25f.FIELDS) engine.definePrepTasks([(text) => Analyzer.terms(text)], field)
  engine.definePrepTasks([(text) => Analyzer.queryTerms(text)])
  return {
    name: "wink-bm25",
    build: (tools) =>
      Effect.sync(() => {
        for (const tool of tools) {
          const { id, ...fields } = fieldsOf(tool)
          engine.addDoc(fields, id as string)
        }
        engine.consolidate()
      }),
    search: (text, k) => Effect.sync(() => engine.search(text, k).map(([id]) => id))
  }
}
