/**
 * `npm run bench -- --min-score`: what the "no good match" threshold saves and costs. `ToolSearch`
 * activates every tool it returns (5 by default); a hit whose strength (`SearchStrategy.Hit`) is
 * below `minScore` is dropped, so a weak answer loads fewer tools, or none.
 *
 * For each data set and threshold: Recall@5 of the labelled queries, irrelevant activations per
 * query (returned tools that are not relevant), and, as queries with no right answer at all, the
 * other data sets' queries run on this catalog: how many tools they activate, and the share left
 * with no tool. The threshold is chosen leave one data set out: each fold proposes the threshold
 * with the fewest irrelevant activations on its two tuning sets among those costing at most
 * `MAX_RECALL_LOSS` Recall@5 on each; of the proposals that cost at most that on every data set,
 * the one most folds proposed is kept (ties: the most conservative).
 */
import type { Evaluation } from "@tool-search/cli"
import { Bm25f, SearchDocument } from "@tool-search/core"
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
  readonly hits: ReadonlyArray<{ readonly id: string; readonly strength: number }>
}

interface Row {
  readonly recall5: number
  readonly irrelevant: number
  readonly negativeActivations: number
  readonly negativeEmpty: number
}

const keep = (hits: Hits["hits"], t: Threshold) => {
  const best = hits[0]?.strength ?? 0
  return hits.filter((h) => h.strength >= t.absolute && h.strength >= t.relative * best)
}

const rowOf = (positives: ReadonlyArray<Hits>, negatives: ReadonlyArray<Hits>, threshold: Threshold): Row => {
  let recall = 0
  let irrelevant = 0
  for (const { hits, query } of positives) {
    const spec = query as Evaluation.QuerySpec
    const kept = keep(hits, threshold).map((h) => h.id)
    const relevant = new Set(spec.relevant)
    const groups = spec.relevant_groups ?? spec.relevant.map((id) => [id])
    recall += groups.filter((g) => g.some((id) => kept.includes(id))).length / Math.max(groups.length, 1)
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

/** The table and the chosen threshold. */
export const report = (only?: ReadonlyArray<string>, full = false) =>
  Effect.gen(function*() {
    const datasets = yield* Effect.forEach(Datasets.names(only), Datasets.load)
    const rows = new Map<string, ReadonlyArray<Row>>()
    for (const d of datasets) {
      log(d.name)
      const index = Bm25f.makeIndexWith(Bm25f.defaults)
      index.add(d.tools.map(SearchDocument.fromTool))
      const run = (text: string) =>
        Effect.map(
          Effect.orDie(index.search({ text, limit: LIMIT, accept: () => true })),
          (hits) => hits.map((h) => ({ id: h.id, strength: h.strength ?? 0 }))
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
      rows.set(d.name, THRESHOLDS.map((t) => rowOf(positives, negatives, t)))
    }
    const names = datasets.map((d) => d.name)
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
