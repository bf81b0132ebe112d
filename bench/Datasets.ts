/**
 * The data sets of `../shared/bench`, read at run time (never copied into the repository), and a
 * quality-only evaluation of an engine on them: no latency passes, so tuning runs stay cheap.
 */
import { Evaluation } from "@tool-search/cli"
import { CatalogFile, CatalogTool } from "@tool-search/core"
import { Effect } from "effect"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

/** `../shared/bench` beside the repository (dist/bench/X.js → the repository root → ..). */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../../shared/bench")

/** One data set: a catalog and its labelled queries. */
export interface Dataset {
  readonly name: string
  readonly tools: ReadonlyArray<CatalogTool.CatalogTool>
  readonly queries: ReadonlyArray<Evaluation.QuerySpec>
}

/**
 * What is missing for a run on the data sets, in one line, or `undefined` when `root` holds at
 * least one data set (a folder with `tools.jsonl` and `queries.jsonl`) and every one `only` names.
 */
export const missing = (only?: ReadonlyArray<string>): string | undefined => {
  if (!existsSync(root)) {
    return `bench: the data sets are missing: ${root} does not exist (the benchmark reads ../shared/bench beside the repository)`
  }
  const present = names()
  if (present.length === 0) {
    return `bench: no data set in ${root} (each is a folder with tools.jsonl and queries.jsonl)`
  }
  const absent = (only ?? []).filter((d) => !present.includes(d))
  return absent.length > 0
    ? `bench: no data set named ${absent.join(", ")} in ${root} (there are: ${present.join(", ")})`
    : undefined
}

/** The data sets with both files, sorted; `only` keeps some. */
export const names = (only?: ReadonlyArray<string>): ReadonlyArray<string> =>
  readdirSync(root).filter((d) =>
    existsSync(join(root, d, "tools.jsonl")) && existsSync(join(root, d, "queries.jsonl")) &&
    (only === undefined || only.includes(d))
  ).sort()

/** Reads one data set (tool names sanitized, as the CLI loads them). */
export const load = (name: string): Effect.Effect<Dataset> =>
  Effect.gen(function*() {
    const toolsFile = join(root, name, "tools.jsonl")
    const tools = yield* CatalogFile.parse(toolsFile, readFileSync(toolsFile, "utf8"), { names: "sanitize" })
    const queriesFile = join(root, name, "queries.jsonl")
    const queries = yield* Evaluation.parseQueries(queriesFile, readFileSync(queriesFile, "utf8"))
    return { name, tools, queries }
  }).pipe(Effect.orDie)

/** Mean quality and per-query quality of an engine's rankings at `k`. */
export interface Scored {
  readonly mean: Evaluation.Quality
  readonly perQuery: ReadonlyArray<Evaluation.Quality>
}

/** Builds `engine` on the data set's tools and scores its ranking of `queries` (default: all). */
export const score = <E>(
  engine: Evaluation.Engine<E>,
  dataset: Dataset,
  options: { readonly k?: number; readonly queries?: ReadonlyArray<Evaluation.QuerySpec> } = {}
): Effect.Effect<Scored, E> =>
  Effect.gen(function*() {
    const k = options.k ?? 10
    yield* engine.build(dataset.tools)
    const perQuery: Array<Evaluation.Quality> = []
    for (const q of options.queries ?? dataset.queries) {
      perQuery.push(Evaluation.quality(q, (yield* engine.search(q.query, k)) ?? [], k))
    }
    return { mean: Evaluation.mean(perQuery), perQuery }
  })

/** Splits queries in two halves by a hash of their id: `true` for the first half. */
export const half = (id: string): boolean => (Number.parseInt(CatalogTool.hash(id).slice(-1), 16) & 1) === 0
