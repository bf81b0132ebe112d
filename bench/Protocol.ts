/**
 * `npm run bench -- --ablate` and `npm run bench -- --protocol`: the tuning protocol of
 * docs/search.md, on the data sets of `../shared/bench` only.
 *
 * - `--ablate`: per data set, nDCG@10 of the defaults, of every other value of every knob
 *   (`Space.knobs`), and of both setups of each peer.
 * - `--protocol`: leave one data set out, judged for robustness. Knob by knob (in `Space.knobs`
 *   order, repeated until a pass changes nothing), each fold — every data set but one to tune on,
 *   that one held out — proposes the value with the best mean risk-sensitive gain (`riskGain`) over
 *   the current value on its tuning sets (none positive: the current value). A value proposed by a
 *   majority of folds is kept only when **no** held-out set falls below its value before the change
 *   by more than noise (`noise`: a paired bootstrap over that set's queries), the mean held-out gain
 *   is positive **and** so is the mean held-out risk-sensitive gain (`accepts`). Then the nested
 *   estimate: the same protocol, the same rule, run without each data set in turn, judged on it.
 * - `--nested a,b`: only the nested estimate's folds that hold out `a` and `b`.
 *
 * A knob that learns from labelled queries (the term-association model, `Associations`) is judged
 * strictly: a data set is always scored with a model learned without it (and, in the nested runs,
 * without the outer held-out set either).
 */
import { Bm25f } from "@tool-search/core"
import { Effect } from "effect"
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import * as Associations from "./Associations.js"
import * as Datasets from "./Datasets.js"
import * as Generate from "./Generate.js"
import * as Peers from "./Peers.js"
import * as Space from "./Space.js"

const log = (message: string) => process.stderr.write(`protocol: ${message}\n`)
const f3 = (x: number) => x.toFixed(3)
const signed = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(3)}`

/** Changes smaller than this are neutral (the feedback and "no good match" protocols). */
export const EPSILON = 0.002

/** Bootstrap resamples of a paired comparison. */
export const RESAMPLES = 2000

/** The one-sided 95 % normal quantile: a loss larger than `Z · SE` is beyond noise. */
const Z = 1.645

/**
 * The noise of a paired comparison over one query set: `Z` times the bootstrap standard error of
 * the mean per-query difference (queries resampled with replacement, seeded, `RESAMPLES` times).
 */
export const noise = (a: ReadonlyArray<number>, b: ReadonlyArray<number>, seed = 1): number => {
  const n = a.length
  if (n === 0) return 0
  const d = Float64Array.from(a, (x, i) => x - (b[i] as number))
  const next = Generate.random(seed)
  let sum = 0
  let sumSq = 0
  for (let r = 0; r < RESAMPLES; r++) {
    let s = 0
    for (let i = 0; i < n; i++) s += d[Math.floor(next() * n)] as number
    const m = s / n
    sum += m
    sumSq += m * m
  }
  const mean = sum / RESAMPLES
  return Z * Math.sqrt(Math.max(0, sumSq / RESAMPLES - mean * mean))
}

const meanOf = (xs: ReadonlyArray<number>): number => xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length

/**
 * The risk aversion of `riskGain`: a query that loses counts `1 + ALPHA` times. 1 is the value of
 * the TREC Web track's risk-sensitive task (2013–2014) and of Wang, Bennett and Collins-Thompson's
 * risk-sensitive ranking (SIGIR 2012).
 */
export const ALPHA = 1

/**
 * The risk-sensitive gain of `after` over `before` on one query set (URisk): the mean per-query
 * difference with every loss counted `1 + ALPHA` times. A change that wins some queries and loses
 * as many others by as much is a gain of 0 by the mean and a loss by this: such a change moves
 * rankings around rather than improving them, and on a catalog of another style its losses are
 * what remains.
 */
export const riskGain = (after: ReadonlyArray<number>, before: ReadonlyArray<number>): number => {
  let sum = 0
  for (let i = 0; i < after.length; i++) {
    const d = (after[i] as number) - (before[i] as number)
    sum += d >= 0 ? d : (1 + ALPHA) * d
  }
  return after.length === 0 ? 0 : sum / after.length
}

/** Per-query nDCG@10 of parameter sets on data sets, each evaluated once. */
export interface Evaluator {
  /** Per-query nDCG@10 of `p` on `dataset`; a learned knob is learned without `dataset` and `without`. */
  readonly perQuery: (
    p: Bm25f.Parameters,
    dataset: string,
    without?: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<number>>
  readonly ndcg: (p: Bm25f.Parameters, dataset: string, without?: ReadonlyArray<string>) => Effect.Effect<number>
}

/**
 * The version of the ranking's arithmetic, part of every key of the evaluation file: raise it when
 * a change of the index, the analyzer or the scorer changes any score (not for one, such as
 * a faster loop, that only changes how fast the same scores come).
 */
export const RANKING_VERSION = 3

/**
 * Where the evaluations of `--protocol`, `--ablate` and `--defaults` are kept between runs (one
 * JSON line per evaluation: key and per-query nDCG@10), so a long run that is interrupted resumes
 * where it stopped: `TOOL_SEARCH_CACHE_DIR`, else `node_modules/.cache/tool-search` of the
 * repository. The key holds `RANKING_VERSION`, the data set's file sizes, and the parameters.
 */
export const evaluationsFile = (): string =>
  join(
    process.env["TOOL_SEARCH_CACHE_DIR"] ??
      resolve(dirname(fileURLToPath(import.meta.url)), "../../node_modules/.cache/tool-search"),
    "protocol-evaluations.jsonl"
  )

const readEvaluations = (file: string): Map<string, ReadonlyArray<number>> => {
  const out = new Map<string, ReadonlyArray<number>>()
  if (!existsSync(file)) return out
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue
    try {
      const entry: unknown = JSON.parse(line)
      if (
        typeof entry === "object" && entry !== null && "key" in entry && typeof entry.key === "string" &&
        "values" in entry && Array.isArray(entry.values) && entry.values.every((v) => typeof v === "number")
      ) out.set(entry.key, entry.values as ReadonlyArray<number>)
    } catch {
      // a line cut short by an interrupted run: evaluated again
    }
  }
  return out
}

/** An evaluator over loaded data sets; evaluations persist in `file` (none: in memory only). */
export const evaluator = (
  datasets: ReadonlyArray<Datasets.Dataset>,
  file: string | undefined = evaluationsFile()
): Evaluator => {
  const cache = file === undefined ? new Map<string, ReadonlyArray<number>>() : readEvaluations(file)
  if (file !== undefined) mkdirSync(dirname(file), { recursive: true })
  // what identifies a data set's content cheaply: its sizes
  const shapes = new Map(datasets.map((d) => [d.name, `${d.tools.length}/${d.queries.length}`]))
  const tables = new Map<string, Associations.Table>()
  const tableWithout = (excluded: ReadonlyArray<string>): Associations.Table => {
    const key = [...excluded].sort().join(",")
    let table = tables.get(key)
    if (table === undefined) {
      table = Associations.learn(datasets.filter((d) => !excluded.includes(d.name)))
      tables.set(key, table)
    }
    return table
  }
  const perQuery = (p: Bm25f.Parameters, dataset: string, without: ReadonlyArray<string> = []) => {
    const learned = p.associations !== undefined && p.associations.weight > 0
    const excluded = learned ? [...new Set([dataset, ...without])].sort() : []
    const key = `v${RANKING_VERSION} ${dataset}@${shapes.get(dataset)} ${excluded.join(",")} ${Space.keyOf(p)}`
    const hit = cache.get(key)
    if (hit !== undefined) return Effect.succeed(hit)
    const data = datasets.find((d) => d.name === dataset) as Datasets.Dataset
    const resolved: Bm25f.Parameters = learned && p.associations !== undefined
      ? { ...p, associations: { ...p.associations, table: tableWithout(excluded) } }
      : p
    return Effect.map(Datasets.score(Peers.bm25f(resolved), data), (s) => {
      const values = s.perQuery.map((q) => q.ndcg)
      cache.set(key, values)
      if (file !== undefined) appendFileSync(file, `${JSON.stringify({ key, values })}\n`)
      return values
    })
  }
  return {
    perQuery,
    ndcg: (p, dataset, without) => Effect.map(perQuery(p, dataset, without), meanOf)
  }
}

/** Per-query nDCG@10 of every peer setup on every data set. */
export type PeerScores = ReadonlyMap<
  string,
  ReadonlyArray<{ readonly name: string; readonly perQuery: ReadonlyArray<number> }>
>

/** Scores every peer on every data set (MiniSearch's stock setup is slow on the large catalogs: minutes). */
export const peerScores = (datasets: ReadonlyArray<Datasets.Dataset>) =>
  Effect.gen(function*() {
    const out = new Map<string, ReadonlyArray<{ readonly name: string; readonly perQuery: ReadonlyArray<number> }>>()
    for (const d of datasets) {
      const rows: Array<{ readonly name: string; readonly perQuery: ReadonlyArray<number> }> = []
      for (const [name, make] of Object.entries(Peers.peers)) {
        log(`peer ${name} on ${d.name}`)
        const s = yield* Datasets.score(make(), d)
        rows.push({ name, perQuery: s.perQuery.map((q) => q.ndcg) })
      }
      out.set(d.name, rows)
    }
    return out as PeerScores
  })

/** The stronger stock peer on a data set (as the peers' users run them). */
export const strongestStock = (peers: PeerScores, dataset: string) =>
  (peers.get(dataset) ?? []).filter((p) => p.name.includes("(stock)")).reduce<
    { readonly name: string; readonly perQuery: ReadonlyArray<number> } | undefined
  >((a, b) => (a === undefined || meanOf(b.perQuery) > meanOf(a.perQuery) ? b : a), undefined)

/** The ablation table; `knobs` keeps the knobs named (and leaves the peers out). */
export const ablate = (only?: ReadonlyArray<string>, knobs?: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const datasets = yield* Effect.forEach(Datasets.names(only), Datasets.load)
    const names = datasets.map((d) => d.name)
    const ev = evaluator(datasets)
    const base = yield* Effect.forEach(names, (d) => ev.perQuery(Bm25f.defaults, d))
    const out = [
      "Ablation: nDCG@10 per data set; Δ against the defaults (first row) ± noise, and the risk-sensitive gain (`riskGain`). A learned knob (associations) is learned without the data set it is scored on.",
      "",
      `| change | ${names.join(" | ")} |`,
      `|---|${names.map(() => "---").join("|")}|`,
      `| defaults | ${base.map((b) => f3(meanOf(b))).join(" | ")} |`
    ]
    for (const k of Space.knobs.filter((k) => knobs === undefined || knobs.includes(k.name))) {
      const current = k.get(Bm25f.defaults)
      for (const value of k.values) {
        if (Space.show(value) === Space.show(current)) continue
        const p = k.set(Bm25f.defaults, value)
        log(`${k.name} = ${Space.show(value)}`)
        const cells = yield* Effect.forEach(names, (d, i) =>
          Effect.map(ev.perQuery(p, d), (after) => {
            const c = compare(after, base[i] as ReadonlyArray<number>)
            return `${f3(meanOf(after))} (${signed(c.delta)} ±${f3(c.noise)}, risk ${signed(c.risk)})`
          }))
        const label = k.off !== undefined && Space.show(value) === Space.show(k.off) ? " (off)" : ""
        out.push(`| ${k.name} = ${Space.show(value)}${label} | ${cells.join(" | ")} |`)
      }
    }
    if (knobs !== undefined) return out.join("\n")
    for (const [name, make] of Object.entries(Peers.peers)) {
      log(name)
      const cells = yield* Effect.forEach(datasets, (d, i) =>
        Effect.map(Datasets.score(make(), d), (s) =>
          `${f3(s.mean.ndcg)} (${signed(s.mean.ndcg - meanOf(base[i] as ReadonlyArray<number>))})`))
      out.push(`| peer: ${name} | ${cells.join(" | ")} |`)
    }
    return out.join("\n")
  })

interface Fold {
  readonly heldOut: string
  readonly tune: ReadonlyArray<string>
}

/** One comparison on one held-out set: the Δ of the means, its noise, and the risk-sensitive gain. */
export interface Comparison {
  readonly delta: number
  readonly noise: number
  readonly risk: number
}

/** `after` against `before` on one query set (paired per query). */
export const compare = (after: ReadonlyArray<number>, before: ReadonlyArray<number>): Comparison => ({
  delta: meanOf(after) - meanOf(before),
  noise: noise(after, before),
  risk: riskGain(after, before)
})

/** One candidate value of a knob, as the folds judged it: one comparison per fold's held-out set. */
interface Judged {
  readonly value: unknown
  readonly votes: number
  readonly held: ReadonlyArray<Comparison>
}

/**
 * The acceptance rule: no held-out set below its value before by more than noise, a positive mean
 * gain, and a positive mean risk-sensitive gain (`riskGain`).
 */
export const accepts = (held: ReadonlyArray<Comparison>): boolean =>
  held.every((c) => c.delta >= -c.noise) && meanOf(held.map((c) => c.delta)) > 0 &&
  meanOf(held.map((c) => c.risk)) > 0

/**
 * The protocol over `names`, from `start`: the parameters it keeps and its last pass. `without`
 * are data sets a learned knob must never learn from (the outer held-out set of a nested run).
 */
const choose = (
  ev: Evaluator,
  names: ReadonlyArray<string>,
  start: Bm25f.Parameters,
  label: string,
  without: ReadonlyArray<string> = []
) =>
  Effect.gen(function*() {
    const folds: ReadonlyArray<Fold> = names.map((heldOut) => ({ heldOut, tune: names.filter((n) => n !== heldOut) }))
    // a fold's tuning sets are scored with a learned model that never saw its held-out set either
    const gainOn = (p: Bm25f.Parameters, from: Bm25f.Parameters, sets: ReadonlyArray<string>, heldOut: string) =>
      Effect.map(
        Effect.forEach(sets, (d) =>
          Effect.zipWith(
            ev.perQuery(p, d, [heldOut, ...without]),
            ev.perQuery(from, d, [heldOut, ...without]),
            riskGain
          )),
        meanOf
      )
    let current = start
    const decisions: Array<string> = []
    const changes: Array<string> = []
    for (let pass = 1; pass <= 4; pass++) {
      let changed = false
      decisions.length = 0
      for (const k of Space.knobs) {
        const now = k.get(current)
        const proposals: Array<unknown> = []
        for (const fold of folds) {
          let best = now
          let bestScore = 0
          for (const value of k.values) {
            const s = yield* gainOn(k.set(current, value), current, fold.tune, fold.heldOut)
            if (s > bestScore + 1e-9) {
              best = value
              bestScore = s
            }
          }
          proposals.push(best)
        }
        const candidates = [...new Set(proposals.map(Space.show))].filter((v) => v !== Space.show(now))
        const judged: Array<Judged> = []
        for (const shown of candidates) {
          const value = proposals.find((v) => Space.show(v) === shown)
          const votes = proposals.filter((v) => Space.show(v) === shown).length
          const held: Array<Comparison> = []
          for (const fold of folds) {
            const after = yield* ev.perQuery(k.set(current, value), fold.heldOut, without)
            const before = yield* ev.perQuery(current, fold.heldOut, without)
            held.push(compare(after, before))
          }
          judged.push({ value, votes, held })
        }
        const meanRisk = (j: Judged) => meanOf(j.held.map((c) => c.risk))
        const passing = judged.filter((j) => j.votes * 2 > folds.length && accepts(j.held))
          .sort((a, b) => b.votes - a.votes || meanRisk(b) - meanRisk(a))
        const chosen = passing[0]
        let verdict = "kept"
        if (chosen !== undefined) {
          changes.push(`${k.name} ${Space.show(now)} → ${Space.show(chosen.value)}`)
          current = k.set(current, chosen.value)
          changed = true
          verdict = `**changed to ${Space.show(chosen.value)}**`
        } else if (judged.some((j) => j.votes * 2 > folds.length)) {
          verdict = "kept (a held-out set loses beyond noise, or no mean gain, or no risk-sensitive gain)"
        } else if (judged.length > 0) verdict = "kept (no majority)"
        const cells = judged.map((j) =>
          `${Space.show(j.value)} (${j.votes} of ${folds.length}): ${
            folds.map((fold, i) => {
              const c = j.held[i] as Comparison
              return `${fold.heldOut} ${signed(c.delta)} ±${f3(c.noise)} (risk ${signed(c.risk)})`
            }).join(", ")
          }; mean ${signed(meanOf(j.held.map((c) => c.delta)))} (risk ${signed(meanRisk(j))})`
        )
        log(`${label} pass ${pass}: ${k.name} = ${Space.show(now)}: ${verdict}`)
        decisions.push(`| ${k.name} | ${Space.show(now)} | ${cells.join("; ") || "(the current value)"} | ${verdict} |`)
      }
      if (!changed) break
    }
    return { chosen: current, decisions, changes }
  })

/** The header of the nested table. */
const NESTED_HEADER = [
  "Nested: the protocol run without the held-out set (its folds never see it; a learned model never learns from it), judged on it",
  "",
  "| held out | changes chosen without it | start | nested choice | Δ vs start | stronger stock peer | Δ vs peer |",
  "|---|---|---|---|---|---|---|"
]

/** The peer columns of a row: the stronger stock peer's nDCG@10, and `mine` against it (Δ ± noise). */
const versusPeer = (peers: PeerScores, name: string, mine: ReadonlyArray<number>) => {
  const peer = strongestStock(peers, name)
  // two empty cells, as many as a peer fills
  if (peer === undefined) return " | "
  return `${peer.name} ${f3(meanOf(peer.perQuery))} | ${signed(meanOf(mine) - meanOf(peer.perQuery))} ±${
    f3(noise(mine, peer.perQuery))
  }`
}

/** The nested rows of `heldOuts`: for each, the protocol run on the other sets of `names` from `start`, judged on it. */
const nestedRows = (
  ev: Evaluator,
  names: ReadonlyArray<string>,
  heldOuts: ReadonlyArray<string>,
  peers: PeerScores,
  start: Bm25f.Parameters = Bm25f.defaults
) =>
  Effect.gen(function*() {
    const rows: Array<string> = []
    for (const heldOut of heldOuts) {
      const others = names.filter((n) => n !== heldOut)
      const run = yield* choose(ev, others, start, `without ${heldOut}`, [heldOut])
      const before = yield* ev.perQuery(start, heldOut)
      const after = yield* ev.perQuery(run.chosen, heldOut)
      const line = `| ${heldOut} | ${run.changes.join("; ") || "(none)"} | ${f3(meanOf(before))} | ${
        f3(meanOf(after))
      } | ${signed(meanOf(after) - meanOf(before))} ±${f3(noise(after, before))} | ${
        versusPeer(peers, heldOut, after)
      } |`
      // each fold as it ends: a run cut short still says what it found (and resumes from the cache)
      log(`nested fold done: ${line}`)
      rows.push(line)
    }
    return rows
  })

/**
 * `npm run bench -- --nested a,b`: only the nested estimate's folds holding out `a` and `b` (the
 * protocol run on every other data set, judged on the held-out one), without the run on every set.
 * `--from origin` starts each fold from the hand-set parameters of 0.1.0 (`Space.origin`) instead
 * of the defaults: the estimate of what the whole protocol gains on a catalog it never saw, rather
 * than of what it adds to the defaults.
 */
export const nested = (heldOuts: ReadonlyArray<string>, from: "defaults" | "origin" = "defaults") =>
  Effect.gen(function*() {
    const datasets = yield* Effect.forEach(Datasets.names(), Datasets.load)
    const names = datasets.map((d) => d.name)
    const ev = evaluator(datasets)
    const peers = yield* peerScores(datasets.filter((d) => heldOuts.includes(d.name)))
    const start = from === "origin" ? Space.origin : Bm25f.defaults
    const rows = yield* nestedRows(ev, names, names.filter((n) => heldOuts.includes(n)), peers, start)
    return [
      `Start: ${from === "origin" ? "the 0.1.0 parameters (Space.origin)" : "the defaults"}.`,
      "",
      ...NESTED_HEADER,
      ...rows
    ]
      .join("\n")
  })

/**
 * The protocol on every data set from the current defaults, and nested: run without each data set
 * in turn and judged on it, the honest estimate for a catalog never tuned on.
 */
export const protocol = (only?: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const datasets = yield* Effect.forEach(Datasets.names(only), Datasets.load)
    const names = datasets.map((d) => d.name)
    const ev = evaluator(datasets)
    const start = Bm25f.defaults
    const { changes, chosen, decisions } = yield* choose(ev, names, start, "all")
    const peers = yield* peerScores(datasets)

    const nested = yield* nestedRows(ev, names, names, peers)
    const final: Array<string> = []
    for (const name of names) {
      const before = yield* ev.perQuery(start, name)
      const after = yield* ev.perQuery(chosen, name)
      final.push(
        `| ${name} | ${f3(meanOf(before))} | ${f3(meanOf(after))} | ${signed(meanOf(after) - meanOf(before))} ±${
          f3(noise(after, before))
        } | ${versusPeer(peers, name, after)} |`
      )
    }
    const matches = Space.keyOf(chosen) === Space.keyOf(Bm25f.defaults)
    const report = [
      "Protocol on every data set, last pass: the values the folds proposed (how many folds; nDCG@10 Δ on each held-out set ± its noise, and its risk-sensitive gain; the means) and the verdict",
      "",
      "| knob | value | proposed (folds): held-out Δ ± noise | verdict |",
      "|---|---|---|---|",
      ...decisions,
      "",
      `Changes from the defaults it started from: ${changes.join("; ") || "none"}.`,
      `Bm25f.defaults ${matches ? "are" : "are NOT"} the protocol's choice.`,
      "",
      "The protocol's choice against the defaults it started from and the stronger stock peer (nDCG@10; Δ ± noise: paired bootstrap over the set's queries, one-sided 95 %):",
      "",
      "| data set | start | protocol's choice | Δ vs start | stronger stock peer | Δ vs peer |",
      "|---|---|---|---|---|---|",
      ...final,
      "",
      ...NESTED_HEADER,
      ...nested
    ]
    return { report: report.join("\n"), chosen }
  })
