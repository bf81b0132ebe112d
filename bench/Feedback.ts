/**
 * `npm run bench -- --feedback`: learning from use, measured. Each data set's queries are split in
 * two halves by a hash of their id. One half is fed as use — for each of its queries, each relevant
 * tool gets the query as evidence, as `SearchFeedback` would record it after a successful call
 * (at most `SearchFeedback.defaults.perTool` queries per tool) — and the other half is judged; then
 * the reverse. nDCG@10 is the mean of both directions, without feedback and with each weight of the
 * `queries` field.
 *
 * The weight is chosen leave one data set out, as in `Protocol.ts`: each fold proposes the weight
 * with the best mean on its two tuning sets; a weight proposed by a majority of folds is kept when
 * no held-out set loses more than 0.002 against the current default.
 */
import { Evaluation } from "@tool-search/cli"
import { Bm25f, SearchDocument, SearchFeedback } from "@tool-search/core"
import { Bm25fIndex } from "@tool-search/core/internal/bench"
import { Effect } from "effect"
import * as Datasets from "./Datasets.js"
import { EPSILON } from "./Protocol.js"

const log = (message: string) => process.stderr.write(`feedback: ${message}\n`)
const f3 = (x: number) => x.toFixed(3)
const signed = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(3)}`

/** The weights of the `queries` field tried. */
export const WEIGHTS = [0.25, 0.5, 1, 1.5, 2, 3, 4]

/** nDCG@10 on `judged` after feeding `fed` as evidence, with the `queries` field weighted `weight`. */
const fedAndJudged = (
  dataset: Datasets.Dataset,
  fed: ReadonlyArray<Evaluation.QuerySpec>,
  judged: ReadonlyArray<Evaluation.QuerySpec>,
  weight: number,
  used: ReadonlySet<string>
) =>
  Effect.gen(function*() {
    const queries = new Map<string, Array<string>>()
    for (const q of fed) {
      for (const id of q.relevant) {
        const past = queries.get(id) ?? []
        past.push(q.query)
        queries.set(id, past.slice(-SearchFeedback.defaults.perTool))
      }
    }
    const index = Bm25fIndex.make({ ...Bm25f.defaults, weights: { ...Bm25f.defaults.weights, queries: weight } })
    index.add(dataset.tools.map((t) => ({ ...SearchDocument.fromTool(t), queries: queries.get(t.id) ?? [] })))
    let sum = 0
    let repeatSum = 0
    let repeats = 0
    for (const q of judged) {
      const hits = yield* Effect.orDie(index.search({ text: q.query, limit: 10, accept: () => true }))
      const ndcg = Evaluation.quality(q, hits.map((h) => h.id), 10).ndcg
      sum += ndcg
      // queries for a tool that was used in the fed half
      if (q.relevant.some((id) => used.has(id))) {
        repeatSum += ndcg
        repeats++
      }
    }
    return { all: sum / judged.length, repeat: repeats === 0 ? 0 : repeatSum / repeats, repeats }
  })

/** Both directions of the half split, averaged; weight 0 is "without feedback". */
const both = (dataset: Datasets.Dataset, weight: number) =>
  Effect.gen(function*() {
    const a = dataset.queries.filter((q) => Datasets.half(q.id))
    const b = dataset.queries.filter((q) => !Datasets.half(q.id))
    const tools = (qs: ReadonlyArray<Evaluation.QuerySpec>) => new Set(qs.flatMap((q) => q.relevant))
    const ab = yield* fedAndJudged(dataset, weight === 0 ? [] : a, b, weight, tools(a))
    const ba = yield* fedAndJudged(dataset, weight === 0 ? [] : b, a, weight, tools(b))
    return {
      all: (ab.all + ba.all) / 2,
      repeat: (ab.repeat * ab.repeats + ba.repeat * ba.repeats) / Math.max(ab.repeats + ba.repeats, 1),
      repeats: ab.repeats + ba.repeats
    }
  })

/** The table and the chosen weight. */
export const report = (only?: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const datasets = yield* Effect.forEach(Datasets.names(only), Datasets.load)
    const names = datasets.map((d) => d.name)
    const scores = new Map<string, Map<number, { all: number; repeat: number; repeats: number }>>()
    for (const d of datasets) {
      const row = new Map<number, { all: number; repeat: number; repeats: number }>()
      for (const w of [0, ...WEIGHTS]) {
        log(`${d.name}: weight ${w}`)
        row.set(w, yield* both(d, w))
      }
      scores.set(d.name, row)
    }
    const at = (name: string, w: number) => scores.get(name)?.get(w)?.all ?? 0
    const repeat = (name: string, w: number) => scores.get(name)?.get(w)?.repeat ?? 0
    const current = Bm25f.defaults.weights.queries
    const proposals = names.map((heldOut) => {
      const tune = names.filter((n) => n !== heldOut)
      const mean = (w: number) => tune.reduce((s, n) => s + at(n, w), 0) / tune.length
      return WEIGHTS.reduce((best, w) => (mean(w) > mean(best) + 1e-9 ? w : best), current)
    })
    const majority = WEIGHTS.filter((w) => proposals.filter((p) => p === w).length * 2 > names.length)
      .filter((w) => names.every((n) => at(n, w) - at(n, current) >= -EPSILON))
    const chosen = majority[0] ?? current
    const out = [
      "Learning from use: half of each data set's queries fed as evidence, the other half judged, and the reverse (nDCG@10, mean of both directions)",
      "",
      `| data set | without feedback | ${
        WEIGHTS.map((w) => `weight ${w}${w === chosen ? " (chosen)" : ""}`).join(" | ")
      } |`,
      `|---|---|${WEIGHTS.map(() => "---").join("|")}|`,
      ...names.map((n) =>
        `| ${n} | ${f3(at(n, 0))} | ${
          WEIGHTS.map((w) => `${f3(at(n, w))} (${signed(at(n, w) - at(n, 0))})`).join(" | ")
        } |`
      ),
      "",
      "The same, on the judged queries whose relevant tool was used in the fed half (the queries feedback can help):",
      "",
      `| data set | queries | without feedback | ${WEIGHTS.map((w) => `weight ${w}`).join(" | ")} |`,
      `|---|---|---|${WEIGHTS.map(() => "---").join("|")}|`,
      ...names.map((n) =>
        `| ${n} | ${scores.get(n)?.get(0)?.repeats ?? 0} | ${f3(repeat(n, 0))} | ${
          WEIGHTS.map((w) => `${f3(repeat(n, w))} (${signed(repeat(n, w) - repeat(n, 0))})`).join(" | ")
        } |`
      ),
      "",
      `Fold proposals (best mean on the two tuning sets): ${
        names.map((n, i) => `held out ${n}: ${proposals[i]}`).join("; ")
      }. Chosen: ${chosen}${chosen === current ? " (the current default)" : ` (the default is ${current})`}.`
    ]
    return out.join("\n")
  })
