/**
 * A term-association (translation) model learned from (request, tool) pairs, in the sense of
 * Berger and Lafferty (1999): for a request term `u`, the index terms `w` of the tools that such
 * requests asked for, with `p(w | u)` estimated by co-occurrence (each request term spreads one
 * count evenly over the terms of its tool, IBM Model 1's first step) and kept only where it is
 * above the term's background probability over all tools asked for. Expansion terms then join the
 * query (`Bm25f.Parameters.associations`).
 *
 * Learned here from the development sets; the protocol judges it strictly leave one data set out:
 * a set is always scored with a model learned without it.
 */
import { Analyzer, Bm25f, type CatalogTool, SearchDocument } from "@tool-search/core"
import { Bm25fIndex } from "@tool-search/core/internal/bench"
import type * as Datasets from "./Datasets.js"

/** A learned table: request term → associated index terms with their strength (the strongest 1), best first. */
export type Table = Map<string, ReadonlyArray<readonly [string, number]>>

/** How the table is cut. */
export interface Options {
  /** A request term needs this many training requests. */
  readonly minRequests: number
  /** Associated terms kept per request term. */
  readonly perTerm: number
  /** Least `p(w | u) − p(w)` kept. */
  readonly minLift: number
}

/** The cut used by the protocol. */
export const defaults: Options = { minRequests: 5, perTerm: 5, minLift: 0.01 }

/** The terms of a tool the model translates into: its name, description and parameter names. */
const toolTerms = (analyzer: Analyzer.Analyzer, tool: CatalogTool.CatalogTool): ReadonlyArray<string> => {
  const texts = Bm25fIndex.fieldTexts(SearchDocument.fromTool(tool))
  return [...new Set(analyzer.terms(`${texts.name} \n ${texts.description} \n ${texts.parameterNames}`))]
}

/** Learns a table from the labelled queries of `datasets`. */
export const learn = (datasets: ReadonlyArray<Datasets.Dataset>, options: Options = defaults): Table => {
  const analyzer = Analyzer.make(Bm25f.defaults.analyzer)
  const counts = new Map<string, Map<string, number>>()
  const requests = new Map<string, number>()
  const background = new Map<string, number>()
  let pairs = 0
  for (const dataset of datasets) {
    const byId = new Map(dataset.tools.map((t) => [t.id, t]))
    const termsOf = new Map<string, ReadonlyArray<string>>()
    for (const query of dataset.queries) {
      const asked = new Set(analyzer.queryTerms(query.query))
      for (const id of query.relevant) {
        const tool = byId.get(id)
        if (tool === undefined) continue
        let terms = termsOf.get(id)
        if (terms === undefined) {
          terms = toolTerms(analyzer, tool)
          termsOf.set(id, terms)
        }
        if (terms.length === 0) continue
        pairs++
        const share = 1 / terms.length
        for (const w of terms) background.set(w, (background.get(w) ?? 0) + share)
        for (const u of asked) {
          requests.set(u, (requests.get(u) ?? 0) + 1)
          let row = counts.get(u)
          if (row === undefined) {
            row = new Map()
            counts.set(u, row)
          }
          for (const w of terms) row.set(w, (row.get(w) ?? 0) + share)
        }
      }
    }
  }
  const table: Table = new Map()
  for (const [u, row] of counts) {
    const n = requests.get(u) ?? 0
    if (n < options.minRequests) continue
    const kept = [...row].flatMap(([w, c]): Array<readonly [string, number]> => {
      if (w === u) return []
      const lift = c / n - (background.get(w) ?? 0) / pairs
      return lift >= options.minLift ? [[w, lift] as const] : []
    }).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, options.perTerm)
    // strengths relative to the term's strongest association: the knob's weight sets the scale
    const top = kept[0]?.[1] ?? 0
    if (kept.length > 0) table.set(u, kept.map(([w, lift]) => [w, lift / top] as const))
  }
  return table
}
