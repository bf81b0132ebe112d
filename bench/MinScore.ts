/**
 * `npm run bench -- --min-score`: what the "no good match" thresholds save and cost. `ToolSearch`
 * (the agent's and the MCP gateway's) activates every tool it returns (5 by default); a hit that
 * `Disclosure.weakHits` calls weak (strength below `minScore`, or below `minScoreRatio` times the
 * best hit's) is dropped, so a weak answer loads fewer tools, or none.
 *
 * For each data set and threshold: Recall@5 of the labelled queries, irrelevant activations per
 * query (returned tools that are not relevant), and, as queries with no right answer at all, the
 * other data sets' queries run on this catalog: how many tools they activate, and the share left
 * with no tool. The threshold is chosen leave one data set out: each fold proposes the threshold
 * with the fewest irrelevant activations on its two tuning sets among those costing at most
 * `MAX_RECALL_LOSS` Recall@5 on each; of the proposals that cost at most that on every data set,
 * the one most folds proposed is kept (ties: the most conservative).
 *
 * Then `minScoreRatio` alone, with `minScore` at its default (`ratioReport`): per data set and
 * ratio, the share of the relevant hits of the top 5 kept and of the irrelevant ones left out, and
 * the same leave-one-data-set-out choice, each held-out set judged with the ratio its two tuning
 * sets chose. The gateway's former rule (raw score at least 0.6 of the best hit's) is measured
 * beside it, for comparison.
 */
import type { Evaluation } from "@tool-search/cli"
import { Bm25f, Disclosure, SearchDocument } from "@tool-search/core"
import { Bm25fIndex } from "@tool-search/core/internal/bench"
import { Effect } from "effect"
import * as Datasets from "./Datasets.js"

const log = (message: string) => process.stderr.write(`min-score: ${message}\n`)

/** A threshold: hits below `absolute` strength, or below `relative` times the best hit's, are dropped. */
export interface Threshold {
  readonly absolute: number
  readonly relative: number
}

/** The thresholds tried. */
export const THRESHOLDS: ReadonlyArray<Threshold> = [0, 0.025, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1, 0.12, 0.15, 0.2]
  .flatMap((absolute) => [0, 0.1, 0.2, 0.3, 0.4, 0.5].map((relative) => ({ absolute, relative })))

const show = (t: Threshold) => `${t.absolute} / ${t.relative}`

/** The most Recall@5 a threshold may cost on a data set. */
export const MAX_RECALL_LOSS = 0.005

const LIMIT = 5

interface Hits {
  readonly query: Evaluation.QuerySpec | undefined
  readonly hits: ReadonlyArray<{ readonly id: string; readonly strength: number | undefined; readonly score: number }>
}

/** One data set's top 5s: its own queries (positives), and the other data sets' (negatives). */
interface Runs {
  readonly name: string
  readonly positives: ReadonlyArray<Hits>
  readonly negatives: ReadonlyArray<Hits>
}

interface Row {
  readonly recall5: number
  readonly irrelevant: number
  readonly negativeActivations: number
  readonly negativeEmpty: number
}

/** The hits `ToolSearch` loads under `t`: the rule itself, `Disclosure.weakHits`. */
const keep = (hits: Hits["hits"], t: Threshold) => {
  const weak = Disclosure.weakHits(hits, { minScore: t.absolute, minScoreRatio: t.relative })
  return hits.filter((h) => !weak.includes(h))
}

/** The query's Recall over the ids loaded: each relevant group counts when one of its tools is. */
const recallOf = (spec: Evaluation.QuerySpec, ids: ReadonlySet<string>): number => {
  const groups = spec.relevant_groups ?? spec.relevant.map((id) => [id])
  return groups.filter((g) => g.some((id) => ids.has(id))).length / Math.max(groups.length, 1)
}

const rowOf = (positives: ReadonlyArray<Hits>, negatives: ReadonlyArray<Hits>, threshold: Threshold): Row => {
  let recall = 0
  let irrelevant = 0
  for (const { hits, query } of positives) {
    const spec = query as Evaluation.QuerySpec
    const kept = keep(hits, threshold).map((h) => h.id)
    const relevant = new Set(spec.relevant)
    recall += recallOf(spec, new Set(kept))
    irrelevant += kept.filter((id) => !relevant.has(id)).length
  }
  let activations = 0
  let empty = 0
  for (const { hits } of negatives) {
    const kept = keep(hits, threshold).length
    activations += kept
    if (kept === 0) empty++
  }
  return {
    recall5: recall / positives.length,
    irrelevant: irrelevant / positives.length,
    negativeActivations: activations / Math.max(negatives.length, 1),
    negativeEmpty: empty / Math.max(negatives.length, 1)
  }
}

/** Each data set's top 5s, positives and negatives, with the strength and score of each hit. */
const collect = (only?: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const datasets = yield* Effect.forEach(Datasets.names(only), Datasets.load)
    const runs: Array<Runs> = []
    for (const d of datasets) {
      log(d.name)
      const index = Bm25fIndex.make(Bm25f.defaults)
      index.add(d.tools.map(SearchDocument.fromTool))
      const run = (text: string) =>
        Effect.map(
          Effect.orDie(index.search({ text, limit: LIMIT, accept: () => true })),
          (hits) => hits.map((h) => ({ id: h.id, strength: h.strength, score: h.score }))
        )
      const positives = yield* Effect.forEach(
        d.queries,
        (q) => Effect.map(run(q.query), (hits) => ({ query: q, hits }))
      )
      const others = datasets.filter((o) => o.name !== d.name).flatMap((o) => o.queries)
      const negatives = yield* Effect.forEach(
        others,
        (q) => Effect.map(run(q.query), (hits) => ({ query: undefined, hits }))
      )
      runs.push({ name: d.name, positives, negatives })
    }
    return runs
  })

/** The table and the chosen threshold. */
export const report = (only?: ReadonlyArray<string>, full = false) =>
  Effect.gen(function*() {
    const runs = yield* collect(only)
    const rows = new Map(runs.map((r) => [r.name, THRESHOLDS.map((t) => rowOf(r.positives, r.negatives, t))]))
    const names = runs.map((r) => r.name)
    const loss = (name: string, i: number) => {
      const r = rows.get(name) as ReadonlyArray<Row>
      return (r[0] as Row).recall5 - (r[i] as Row).recall5
    }
    const activations = (name: string, i: number) => {
      const r = (rows.get(name) as ReadonlyArray<Row>)[i] as Row
      return r.irrelevant + r.negativeActivations
    }
    // each fold: the threshold with the fewest irrelevant activations on its tuning sets among
    // those costing at most MAX_RECALL_LOSS Recall@5 on each of them
    const proposals = names.map((heldOut) => {
      const tune = names.filter((n) => n !== heldOut)
      let best = 0
      THRESHOLDS.forEach((_, i) => {
        const fewer = tune.reduce((s, n) =>
          s + activations(n, i), 0) < tune.reduce((s, n) => s + activations(n, best), 0)
        if (tune.every((n) => loss(n, i) <= MAX_RECALL_LOSS) && fewer) best = i
      })
      return best
    })
    // proposals that cost at most MAX_RECALL_LOSS on every data set (each judged, among others, by
    // the fold that did not tune on it); the most proposed, then the most conservative one
    const votes = (i: number) => proposals.filter((p) => p === i).length
    const total = (i: number) => names.reduce((s, n) => s + activations(n, i), 0)
    const passing = [...new Set(proposals)].filter((i) => names.every((n) => loss(n, i) <= MAX_RECALL_LOSS))
      .sort((a, b) => votes(b) - votes(a) || total(b) - total(a))
    const chosen = passing[0] ?? 0
    const out = [
      `"No good match": ToolSearch with max_results ${LIMIT}; hits below the threshold are not activated.`,
      "Positives: the data set's own queries. Negatives: the other data sets' queries on this catalog (no right answer).",
      "",
      "| data set | min score: absolute / relative to the best | Recall@5 | irrelevant activations / query | negatives: activations / query | negatives answered with no tool |",
      "|---|---|---|---|---|---|"
    ]
    for (const name of names) {
      ;(rows.get(name) as ReadonlyArray<Row>).forEach((r, i) => {
        const mark = i === chosen ? " **(chosen)**" : ""
        const t = THRESHOLDS[i] as Threshold
        if (!full && mark === "" && !proposals.includes(i) && !(t.absolute === 0 || t.relative === 0)) return
        out.push(
          `| ${name} | ${show(t)}${mark} | ${r.recall5.toFixed(3)} | ${r.irrelevant.toFixed(2)} | ${
            r.negativeActivations.toFixed(2)
          } | ${(r.negativeEmpty * 100).toFixed(1)} % |`
        )
      })
    }
    out.push(
      "",
      `Fold proposals (fewest irrelevant activations costing ≤ ${MAX_RECALL_LOSS} Recall@5 on each tuning set): ${
        names.map((n, i) => `held out ${n}: ${show(THRESHOLDS[proposals[i] as number] as Threshold)}`).join("; ")
      }. Chosen: ${show(THRESHOLDS[chosen] as Threshold)}.`
    )
    return out.join("\n")
  })

// -----------------------------------------------------------------------------
// minScoreRatio, with minScore at its default
// -----------------------------------------------------------------------------

/** The ratios tried, each with `Disclosure.Disclosure.defaultValue().minScore`. */
export const RATIOS: ReadonlyArray<number> = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]

/** What one rule does to one data set's top 5s. */
interface RatioRow {
  /** Relevant hits of the top 5 that are loaded, over all relevant hits of the top 5. */
  readonly relevantKept: number
  /** Irrelevant hits of the top 5 that are not loaded, over all irrelevant hits of the top 5. */
  readonly irrelevantLeftOut: number
  readonly recall5: number
  /** Tools loaded per labelled query. */
  readonly loaded: number
  /** Tools loaded per negative (a query with no right answer in this catalog). */
  readonly negativeLoaded: number
}

/** What `kept` does to the top 5s of `runs`, together. */
const ratioRowOf = (runs: ReadonlyArray<Runs>, kept: (hits: Hits["hits"]) => Hits["hits"]): RatioRow => {
  let relevantIn = 0, relevantKept = 0, irrelevantIn = 0, irrelevantLeftOut = 0, loaded = 0, recall = 0
  const positives = runs.flatMap((r) => r.positives)
  const negatives = runs.flatMap((r) => r.negatives)
  for (const { hits, query } of positives) {
    const spec = query as Evaluation.QuerySpec
    const relevant = new Set(spec.relevant)
    const ids = new Set(kept(hits).map((h) => h.id))
    loaded += ids.size
    for (const h of hits) {
      if (relevant.has(h.id)) {
        relevantIn++
        if (ids.has(h.id)) relevantKept++
      } else {
        irrelevantIn++
        if (!ids.has(h.id)) irrelevantLeftOut++
      }
    }
    recall += recallOf(spec, ids)
  }
  const negativeLoaded = negatives.reduce((n, { hits }) => n + kept(hits).length, 0)
  return {
    relevantKept: relevantIn === 0 ? 1 : relevantKept / relevantIn,
    irrelevantLeftOut: irrelevantIn === 0 ? 0 : irrelevantLeftOut / irrelevantIn,
    recall5: recall / Math.max(positives.length, 1),
    loaded: loaded / Math.max(positives.length, 1),
    negativeLoaded: negativeLoaded / Math.max(negatives.length, 1)
  }
}

/** The gateway's rule before it used `Disclosure.weakHits`: raw score at least 0.6 of the best hit's. */
const formerGateway = (hits: Hits["hits"]) => hits.filter((h) => h.score >= 0.6 * (hits[0]?.score ?? 0))

const pct = (x: number) => `${(x * 100).toFixed(1)} %`

/**
 * `minScoreRatio` chosen leave one data set out, with `minScore` at its default: each fold takes,
 * among the ratios costing at most `MAX_RECALL_LOSS` Recall@5 (against the unfiltered top 5) on
 * each of its two tuning sets, the one leaving out the most irrelevant hits on them together; the
 * held-out set is judged with it. The default is the ratio most folds chose (ties: the lowest).
 */
export const ratioReport = (only?: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const runs = yield* collect(only)
    const minScore = Disclosure.Disclosure.defaultValue().minScore
    const at = (i: number) => (hits: Hits["hits"]) => keep(hits, { absolute: minScore, relative: RATIOS[i] as number })
    const rows = new Map(runs.map((r) => [r.name, RATIOS.map((_, i) => ratioRowOf([r], at(i)))]))
    const none = new Map(runs.map((r) => [r.name, ratioRowOf([r], (hits) => hits)]))
    const row = (name: string, i: number) => (rows.get(name) as ReadonlyArray<RatioRow>)[i] as RatioRow
    const loss = (name: string, i: number) => (none.get(name) as RatioRow).recall5 - row(name, i).recall5
    const names = runs.map((r) => r.name)
    const irrelevantLeftOut = (tune: ReadonlyArray<string>, i: number) =>
      ratioRowOf(runs.filter((r) => tune.includes(r.name)), at(i)).irrelevantLeftOut
    const folds = names.map((heldOut) => {
      const tune = names.filter((n) => n !== heldOut)
      let chosen = 0
      RATIOS.forEach((_, i) => {
        if (
          tune.every((n) => loss(n, i) <= MAX_RECALL_LOSS) &&
          irrelevantLeftOut(tune, i) > irrelevantLeftOut(tune, chosen)
        ) chosen = i
      })
      return { heldOut, tune, chosen }
    })
    const votes = (i: number) => folds.filter((f) => f.chosen === i).length
    const chosen = [...new Set(folds.map((f) => f.chosen))].sort((a, b) => votes(b) - votes(a) || a - b)[0] ?? 0
    const cells = (r: RatioRow, base: RatioRow) =>
      `${pct(r.relevantKept)} | ${pct(r.irrelevantLeftOut)} | ${r.recall5.toFixed(3)} (${
        (r.recall5 - base.recall5).toFixed(3)
      }) | ${r.loaded.toFixed(2)} | ${r.negativeLoaded.toFixed(2)} |`
    const out = [
      `minScoreRatio with minScore ${minScore} (its default), top ${LIMIT}; a hit is loaded unless \`Disclosure.weakHits\` calls it weak.`,
      "Relevant kept and irrelevant left out are shares of the hits of the unfiltered top 5; Recall@5 in brackets: against the unfiltered top 5.",
      "",
      "| data set | rule | relevant hits kept | irrelevant hits left out | Recall@5 | tools loaded / query | negatives: tools loaded / query |",
      "|---|---|---|---|---|---|---|"
    ]
    for (const name of names) {
      const base = none.get(name) as RatioRow
      out.push(`| ${name} | none (0 / 0) | ${cells(base, base)}`)
      RATIOS.forEach((ratio, i) => {
        const mark = i === chosen ? " **(chosen)**" : ""
        out.push(`| ${name} | ${minScore} / ${ratio}${mark} | ${cells(row(name, i), base)}`)
      })
      const run = runs.filter((r) => r.name === name)
      out.push(`| ${name} | former gateway: raw score ≥ 0.6 × best | ${cells(ratioRowOf(run, formerGateway), base)}`)
    }
    out.push(
      "",
      `Leave one data set out (each fold: the ratio leaving out the most irrelevant hits on its two tuning sets among those costing ≤ ${MAX_RECALL_LOSS} Recall@5 on each), judged on the held-out set:`,
      "",
      "| held out | chosen on | ratio | relevant hits kept | irrelevant hits left out | Recall@5 | tools loaded / query | negatives: tools loaded / query |",
      "|---|---|---|---|---|---|---|---|"
    )
    for (const f of folds) {
      out.push(
        `| ${f.heldOut} | ${f.tune.join(", ")} | ${RATIOS[f.chosen]} | ${
          cells(row(f.heldOut, f.chosen), none.get(f.heldOut) as RatioRow)
        }`
      )
    }
    out.push("", `Chosen: minScoreRatio ${RATIOS[chosen]} (the ratio most folds chose; ties: the lowest).`)
    return out.join("\n")
  })
