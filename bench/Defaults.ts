/**
 * `npm run bench -- --defaults`: the current defaults against the 0.2 defaults and the stock wink
 * peer on every data set, nDCG@10 with Δ ± noise (the protocol's evaluator and bootstrap), judged
 * as one change, the check that every change of a round holds together.
 */
import { Bm25f } from "@tool-search/core"
import { Effect } from "effect"
import * as Datasets from "./Datasets.js"
import * as Peers from "./Peers.js"
import * as Protocol from "./Protocol.js"

/** The defaults of 0.2, before this round. */
export const previous: Bm25f.Parameters = {
  ...Bm25f.defaults,
  quotedWeight: 0.1,
  weights: { ...Bm25f.defaults.weights, name: 1, aliases: 1, parameterNames: 0.5 },
  fusion: undefined,
  associations: undefined
}

const meanOf = (xs: ReadonlyArray<number>): number => xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length
const signed = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(3)}`

/** The table. */
export const report = (only?: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const datasets = yield* Effect.forEach(Datasets.names(only), Datasets.load)
    const ev = Protocol.evaluator(datasets)
    const out = [
      "| data set | 0.2 defaults | defaults | Δ ± noise | wink-bm25 (stock) | Δ vs wink ± noise |",
      "|---|---|---|---|---|---|"
    ]
    for (const d of datasets) {
      const before = yield* ev.perQuery(previous, d.name)
      const now = yield* ev.perQuery(Bm25f.defaults, d.name)
      const wink = (yield* Datasets.score(Peers.winkBm25("stock"), d)).perQuery.map((q) => q.ndcg)
      out.push(
        `| ${d.name} | ${meanOf(before).toFixed(3)} | ${meanOf(now).toFixed(3)} | ${
          signed(meanOf(now) - meanOf(before))
        } ±${Protocol.noise(now, before).toFixed(3)} | ${meanOf(wink).toFixed(3)} | ${
          signed(meanOf(now) - meanOf(wink))
        } ±${Protocol.noise(now, wink).toFixed(3)} |`
      )
    }
    return out.join("\n")
  })
