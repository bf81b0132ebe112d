/**
 * Every analyzer step, ranking addition and weight of BM25F as a named knob with the values the
 * protocol may try. `--ablate` switches each off and on; `--protocol` tunes them leave one data set
 * out (docs/search.md).
 */
import { type Analyzer, Bm25f } from "@tool-search/core"
import { Bm25fIndex } from "@tool-search/core/internal/bench"

/** One knob: how to read it from parameters, set it, and the values to try. */
export interface Knob<A = unknown> {
  readonly name: string
  readonly kind: "analyzer" | "addition" | "weight"
  readonly get: (p: Bm25f.Parameters) => A
  readonly set: (p: Bm25f.Parameters, value: A) => Bm25f.Parameters
  readonly values: ReadonlyArray<A>
  /** The value that switches the step off (`--ablate`), when there is one. */
  readonly off?: A
}

const analyzerKnob = <K extends keyof Analyzer.Options>(
  key: K,
  values: ReadonlyArray<Analyzer.Options[K]>,
  off?: Analyzer.Options[K]
): Knob =>
  ({
    name: `analyzer.${key}`,
    kind: "analyzer",
    get: (p) => p.analyzer[key],
    set: (p, value) => ({ ...p, analyzer: { ...p.analyzer, [key]: value } }),
    values,
    ...(off === undefined ? {} : { off })
  }) as Knob

const knob = <K extends "k1" | "b" | "nameCoverage" | "clauseWeight" | "quotedWeight">(
  key: K,
  kind: Knob["kind"],
  values: ReadonlyArray<number>,
  off?: number
): Knob =>
  ({
    name: key,
    kind,
    get: (p) => p[key],
    set: (p, value) => ({ ...p, [key]: value }),
    values,
    ...(off === undefined ? {} : { off })
  }) as Knob

const weightKnob = (fields: ReadonlyArray<Bm25f.Field>, values: ReadonlyArray<number>): Knob =>
  ({
    name: `weights.${fields.join("+")}`,
    kind: "weight",
    get: (p) => p.weights[fields[0] as Bm25f.Field],
    set: (p, value) => ({
      ...p,
      weights: { ...p.weights, ...Object.fromEntries(fields.map((f) => [f, value])) }
    }),
    values
  }) as Knob

/** A fusion with the stock ranker (`Bm25fIndex.stockRanker`) at `weight`. */
export const stockFusion = (weight: number): Bm25f.Fusion => ({ ...Bm25fIndex.stockRanker, weight })

/**
 * Stands for the learned association table in parameters: the protocol's evaluator replaces it
 * with a table learned without the judged data set (`Associations.learn`).
 */
export const LEARNED: ReadonlyMap<string, ReadonlyArray<readonly [string, number]>> = new Map()

const additionKnob = <A>(
  name: string,
  get: (p: Bm25f.Parameters) => A,
  set: (p: Bm25f.Parameters, value: A) => Bm25f.Parameters,
  values: ReadonlyArray<A>,
  off: A
): Knob => ({ name, kind: "addition", get, set, values, off }) as Knob

/** An addition that is a number of the parameters, absent when off (0). */
const optionalKnob = (
  key: "fieldMapping" | "informativeness" | "boilerplate" | "lowerBound",
  values: ReadonlyArray<number>
): Knob =>
  additionKnob(
    key,
    (p) => p[key] ?? 0,
    (p, value: number) => ({ ...p, [key]: value > 0 ? value : undefined }),
    values,
    0
  )

/** RM3 settings tried: off, then (docs, terms, weight). */
const FEEDBACK: ReadonlyArray<Bm25f.Feedback> = [
  { docs: 0, terms: 0, weight: 0 },
  { docs: 1, terms: 5, weight: 0.05 },
  { docs: 3, terms: 5, weight: 0.1 },
  { docs: 3, terms: 10, weight: 0.2 },
  { docs: 10, terms: 20, weight: 0.1 }
]

/** A setting of the term-association expansion: its weight, and how selective it is (absent: not). */
export interface Expansion {
  readonly weight: number
  readonly selection?: Bm25f.Selection
}

const selective = (weight: number, terms: Bm25f.Selection["terms"], missing: number, targetIdf: number): Expansion => ({
  weight,
  selection: { terms, missing, targetIdf }
})

/**
 * Association settings tried: off, unselective (every request term), then selective (issue 24):
 * per-term gates from the widest to the narrowest, with and without the targets' idf discount, and
 * the request-level gate (a quarter of the request's terms unknown to the catalog).
 */
const EXPANSIONS: ReadonlyArray<Expansion> = [
  { weight: 0 },
  { weight: 0.05 },
  { weight: 0.1 },
  { weight: 0.25 },
  ...[0.25, 0.5].flatMap((w) =>
    (["unnamed", "rarer", "absent"] as const).flatMap((terms) => [0, 1].map((t) => selective(w, terms, 0, t)))
  ),
  selective(1, "absent", 0, 0),
  selective(1, "absent", 0, 1),
  ...[0.25, 0.5].flatMap((w) => (["all", "rarer"] as const).map((terms) => selective(w, terms, 0.25, 1)))
]

/**
 * Proximity settings tried (fixed before any was measured): off, then weights 0.1 and 0.25 of the
 * best score, for adjacent request terms found adjacent in order (the sequential dependence
 * model's ordered window) or within 4 terms either way (its unordered window).
 */
const PROXIMITIES: ReadonlyArray<Bm25f.Proximity> = [
  { weight: 0, window: 1, ordered: true },
  ...[0.1, 0.25].flatMap((weight) => [
    { weight, window: 1, ordered: true },
    { weight, window: 4, ordered: false }
  ])
]

/** The knobs, in the order the protocol visits them: analyzer, additions, then weights and saturation. */
export const knobs: ReadonlyArray<Knob> = [
  analyzerKnob("camelCase", [true, false], false),
  analyzerKnob("compounds", [false, true], false),
  analyzerKnob("snakeCase", [true, false], false),
  analyzerKnob("nfkc", [true, false], false),
  analyzerKnob("stopWords", [true, false], false),
  analyzerKnob("stemming", ["none", "plural", "light", "porter"], "none"),
  analyzerKnob("cjkBigrams", [true, false], false),
  analyzerKnob("koreanParticles", [true, false], false),
  knob("nameCoverage", "addition", [0, 0.25, 0.5, 1, 1.5, 2], 0),
  knob("clauseWeight", "addition", [0, 0.25, 0.5, 0.75], 0),
  knob("quotedWeight", "addition", [0.1, 0.3, 0.5, 0.75, 1], 1),
  additionKnob(
    "fusion",
    (p) => p.fusion?.weight ?? 0,
    (p, weight: number) => ({ ...p, fusion: weight > 0 ? stockFusion(weight) : undefined }),
    [0, 0.1, 0.25, 0.5, 0.75],
    0
  ),
  additionKnob(
    "feedback",
    (p) => p.feedback ?? (FEEDBACK[0] as Bm25f.Feedback),
    (p, feedback: Bm25f.Feedback) => ({ ...p, feedback: feedback.weight > 0 ? feedback : undefined }),
    FEEDBACK,
    FEEDBACK[0] as Bm25f.Feedback
  ),
  additionKnob(
    "associations",
    (p): Expansion =>
      p.associations === undefined || !(p.associations.weight > 0)
        ? { weight: 0 }
        : p.associations.selection === undefined
        ? { weight: p.associations.weight }
        : { weight: p.associations.weight, selection: p.associations.selection },
    (p, value: Expansion) => ({
      ...p,
      associations: value.weight > 0 ? { table: LEARNED, weight: value.weight, selection: value.selection } : undefined
    }),
    EXPANSIONS,
    { weight: 0 }
  ),
  optionalKnob("fieldMapping", [0, 0.25, 0.5, 0.75, 1]),
  optionalKnob("informativeness", [0, 0.5, 1, 2]),
  optionalKnob("boilerplate", [0, 0.5, 1, 2, 4]),
  optionalKnob("lowerBound", [0, 0.05, 0.1, 0.2, 0.4]),
  additionKnob(
    "proximity",
    (p) => p.proximity !== undefined && p.proximity.weight > 0 ? p.proximity : PROXIMITIES[0] as Bm25f.Proximity,
    (p, proximity: Bm25f.Proximity) => ({ ...p, proximity: proximity.weight > 0 ? proximity : undefined }),
    PROXIMITIES,
    PROXIMITIES[0] as Bm25f.Proximity
  ),
  weightKnob(["name", "aliases"], [1, 2, 3, 4, 5]),
  weightKnob(["parameterNames"], [0.5, 1, 2, 3]),
  weightKnob(["description", "category"], [0.5, 1, 1.5, 2]),
  weightKnob(["parameterDescriptions"], [0, 0.25, 0.5, 1]),
  knob("k1", "weight", [0.6, 0.9, 1.2, 1.5, 2, 3]),
  knob("b", "weight", [0.3, 0.5, 0.75, 0.9, 1])
]

/**
 * Where the protocol starts: the parameters of 0.1.0, chosen by hand before the protocol existed
 * (the feedback weight is not a knob here: without evidence it changes nothing).
 */
export const origin: Bm25f.Parameters = {
  // the hand-set BM25F that the default fusion keeps as its second ranker
  ...Bm25fIndex.stockRanker,
  weights: { ...Bm25fIndex.stockRanker.weights, queries: Bm25f.defaults.weights.queries },
  nameCoverage: 1,
  clauseWeight: 0.5,
  quotedWeight: 0.3,
  analyzer: {
    camelCase: true,
    compounds: false,
    snakeCase: true,
    nfkc: true,
    stopWords: true,
    stemming: "light",
    cjkBigrams: true,
    koreanParticles: true
  }
}

/**
 * A stable key of a parameter set, for caching evaluations (an association table keys by its weight
 * and selection).
 */
export const keyOf = (p: Bm25f.Parameters): string =>
  JSON.stringify({
    ...p,
    feedback: p.feedback?.weight ? p.feedback : undefined,
    associations: p.associations?.selection === undefined
      ? p.associations?.weight
      : { weight: p.associations.weight, selection: p.associations.selection }
  })

/** The value a knob has in the defaults. */
export const defaultOf = (k: Knob): unknown => k.get(Bm25f.defaults)

/** How a knob's value is printed. */
export const show = (value: unknown): string =>
  typeof value === "string"
    ? value
    : typeof value === "object" && value !== null && "docs" in value && "terms" in value && "weight" in value
    ? (value.weight === 0 ? "off" : `${value.docs} docs, ${value.terms} terms, ${value.weight}`)
    : isProximity(value)
    ? (value.weight === 0
      ? "off"
      : `${value.weight}, ${value.ordered ? "in order" : "either order"} within ${value.window}`)
    : isExpansion(value)
    ? (value.weight === 0
      ? "off"
      : value.selection === undefined
      ? `${value.weight}`
      : `${value.weight} ${value.selection.terms}${
        value.selection.missing > 0 ? `, requests ≥ ${value.selection.missing} unknown` : ""
      }${value.selection.targetIdf > 0 ? `, target idf^${value.selection.targetIdf}` : ""}`)
    : JSON.stringify(value)

const isProximity = (value: unknown): value is Bm25f.Proximity =>
  typeof value === "object" && value !== null && "window" in value && "ordered" in value && "weight" in value &&
  typeof value.weight === "number"

const isExpansion = (value: unknown): value is Expansion =>
  typeof value === "object" && value !== null && "weight" in value && typeof value.weight === "number" &&
  !("docs" in value)
