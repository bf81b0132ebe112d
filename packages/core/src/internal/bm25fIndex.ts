/**
 * The BM25F index behind `Bm25f.layer` and `Hybrid`: its fields, the stock ranker of the default
 * fusion, and the index itself. Internal: tests and the benchmark reach it directly
 * (`@tool-search/core/internal/bench`); applications choose parameters through `Bm25f.layerWith`.
 *
 * @internal
 */
import { Effect } from "effect"
import * as Analyzer from "../Analyzer.js"
import type { SearchDocument } from "../SearchDocument.js"
import type { Field, Fusion, Index, Parameters } from "../strategies/Bm25f.js"
import * as Proximity from "./bm25f/Proximity.js"
import * as Scorer from "./bm25f/Scorer.js"
import * as Store from "./bm25f/Store.js"

/** The indexed fields, in packing order (the name first). */
export const FIELDS = [
  "name",
  "aliases",
  "parameterNames",
  "category",
  "description",
  "parameterDescriptions",
  "queries"
] as const satisfies ReadonlyArray<Field>

/**
 * The second ranker of the default fusion: BM25F as it is usually configured by hand (the name
 * weighted 3, parameter names 2, the rest 1; k1 1.5, b 0.75), with no additions.
 */
export const stockRanker: Omit<Fusion, "weight"> = {
  k1: 1.5,
  b: 0.75,
  weights: {
    name: 3,
    aliases: 3,
    parameterNames: 2,
    category: 1,
    description: 1,
    parameterDescriptions: 1,
    queries: 0.25
  }
}

/** Plain BM25F: `parameters` without name coverage, clauses, quote weighting, fusion and associations. */
export const plain = (parameters: Parameters): Parameters => ({
  ...parameters,
  nameCoverage: 0,
  clauseWeight: 0,
  quotedWeight: 1,
  fusion: undefined,
  associations: undefined
})

/** The value of each field of a document in `FIELDS` order: a text, or a list of texts (the index reads each item). */
export const fieldValues = (doc: SearchDocument): ReadonlyArray<string | ReadonlyArray<string>> => [
  doc.name,
  doc.aliases,
  doc.parameterNames,
  doc.category,
  doc.description,
  doc.parameterDescriptions,
  doc.queries ?? []
]

/** The text of each field of a document, as the index analyzes it (list items joined). */
export const fieldTexts = (doc: SearchDocument): Readonly<Record<Field, string>> => {
  const values = fieldValues(doc)
  const text = (f: number): string => {
    const value = values[f] ?? ""
    return typeof value === "string" ? value : value.join(" \n ")
  }
  return {
    name: text(0),
    aliases: text(1),
    parameterNames: text(2),
    category: text(3),
    description: text(4),
    parameterDescriptions: text(5),
    queries: text(6)
  }
}

/**
 * A new, empty BM25F index with the given parameters; `pruning` says which common terms a search
 * may skip (tests set it to prune small catalogs, or never), and `firstStamp` where the scorer's
 * query stamps start (tests start them near their wrap-around).
 */
export const make = (parameters: Parameters, pruning?: Scorer.Pruning, firstStamp?: number): Index => {
  const analyzer = Analyzer.make(parameters.analyzer)
  const fusion = parameters.fusion !== undefined && parameters.fusion.weight > 0 ? parameters.fusion : undefined
  const store = Store.make(analyzer, FIELDS.length, [
    {
      k1: parameters.k1,
      b: parameters.b,
      weights: Float64Array.from(FIELDS, (f) => parameters.weights[f]),
      fieldMapping: parameters.fieldMapping,
      informativeness: parameters.informativeness,
      boilerplate: parameters.boilerplate,
      lowerBound: parameters.lowerBound,
      nameCoverage: parameters.nameCoverage
    },
    ...(fusion === undefined
      ? []
      : [{ k1: fusion.k1, b: fusion.b, weights: Float64Array.from(FIELDS, (f) => fusion.weights[f]) }])
  ])
  const scorer = Scorer.make(
    store,
    analyzer,
    {
      nameCoverage: parameters.nameCoverage,
      clauseWeight: parameters.clauseWeight,
      quotedWeight: parameters.quotedWeight,
      fusionWeight: fusion?.weight ?? 0,
      feedback: parameters.feedback ?? { docs: 0, terms: 0, weight: 0 },
      associations: parameters.associations?.table,
      associationWeight: parameters.associations?.weight ?? 0,
      selection: parameters.associations?.selection
    },
    pruning,
    firstStamp
  )
  const proximity = parameters.proximity !== undefined && parameters.proximity.weight > 0
    ? Proximity.make(
      analyzer,
      { size: store.size, find: store.vocabulary.find, df: store.df },
      parameters.proximity,
      parameters.quotedWeight
    )
    : undefined
  // the best `limit` hits: with proximity, the first `limit` of the re-scored ranking (`Proximity`)
  const search = (text: string, limit: number, accept: (id: string) => boolean) =>
    proximity === undefined || limit <= 0
      ? scorer.search(text, limit, accept)
      : proximity.rescore(text, scorer.search(text, Math.max(limit, Proximity.DEPTH), accept)).slice(0, limit)
  return {
    add: (docs) => {
      // lists as they are: the store reads each item without joining them
      store.expect(docs.length)
      for (const doc of docs) {
        const values = fieldValues(doc)
        store.add(doc.id, values)
        proximity?.add(doc.id, values)
      }
      store.commit()
    },
    remove: (ids) => {
      for (const id of ids) {
        store.remove(id)
        proximity?.remove(id)
      }
      store.commit()
    },
    search: (request) => Effect.sync(() => search(request.text, request.limit, request.accept)),
    score: (id, text) => {
      const slot = store.slotOf(id)
      if (slot === undefined) return 0
      if (proximity !== undefined) {
        const hit = search(text, Proximity.DEPTH, () => true).find((h) => h.id === id)
        if (hit !== undefined) return hit.score
      }
      const count = scorer.run(text)
      for (let i = 0; i < count; i++) if (scorer.touched(i) === slot) return scorer.score(slot)
      return 0
    },
    size: store.size
  }
}
