/**
 * Query expansion from a term-association (translation) table, applied to a request's terms before
 * scoring: the associated terms of the request's terms join the query at a fraction of their
 * weight (`Bm25f.Parameters.associations`).
 *
 * Unselective, every request term is expanded. A table learned on other catalogs then pulls
 * requests that already use the catalog's own words toward generic ones, so the expansion can be
 * made **selective**, the way the IR literature makes expansion robust (selective query expansion:
 * expand where the vocabulary mismatches, not where the request already matches), from the judged
 * catalog's own statistics at query time:
 *
 * - per term (`Selection.terms`): expand a request term only where it mismatches the catalog:
 *   `"unnamed"`, a term no tool's name holds; `"rarer"`, in addition, toward an associated term only
 *   when the catalog holds that term in more tools than the request's own (the catalog says it
 *   otherwise); `"absent"`, a term no tool holds at all; `"all"`, every term;
 * - per request (`Selection.missing`): expand only a request at least this share of whose terms no
 *   tool holds (a pre-retrieval predictor of a weak match, Cronen-Townsend and Croft's selective
 *   expansion in its simplest form);
 * - per associated term: only terms the catalog holds (the others would add nothing but take a
 *   place among the expansion terms), their strength times `(idf / idf of a term no tool
 *   holds)^targetIdf`, so an association toward a word many tools carry counts less.
 *
 * @internal
 */
import type { Associations, Selection } from "../../strategies/Bm25f.js"
import { idf } from "./Idf.js"

/** The statistics of the judged catalog the selection reads. */
export interface Catalog {
  /** Live tools. */
  readonly size: () => number
  /** How many tools hold an analyzed term (0 when none). */
  readonly df: (term: string) => number
  /** Whether some tool's name holds an analyzed term. */
  readonly named: (term: string) => boolean
}

/** At most this many expansion terms join a request. */
export const MAX_EXPANSION = 10

/**
 * The expansion terms of a request whose analyzed terms are `asked`: the most strongly associated
 * terms not already asked, with their weights (`weight` times the summed strength, at most 1).
 */
export const expand = (
  asked: ReadonlyArray<string>,
  table: Associations | undefined,
  weight: number,
  selection: Selection | undefined,
  catalog: Catalog
): { readonly terms: Array<string>; readonly weights: Array<number> } => {
  if (table === undefined || !(weight > 0) || asked.length === 0) return { terms: [], weights: [] }
  const own = new Set(asked)
  const dfs = new Map<string, number>()
  const dfOf = (term: string): number => {
    let df = dfs.get(term)
    if (df === undefined) {
      df = catalog.df(term)
      dfs.set(term, df)
    }
    return df
  }
  if (selection !== undefined && selection.missing > 0) {
    let missing = 0
    for (const term of own) if (dfOf(term) === 0) missing++
    if (missing < selection.missing * own.size) return { terms: [], weights: [] }
  }
  const n = catalog.size()
  const most = idf(n, 0)
  const mass = new Map<string, number>()
  for (const term of own) {
    const associated = table.get(term)
    if (associated === undefined) continue
    const df = selection === undefined ? 0 : dfOf(term)
    if (selection !== undefined) {
      if (selection.terms === "absent" && df > 0) continue
      if ((selection.terms === "unnamed" || selection.terms === "rarer") && df > 0 && catalog.named(term)) continue
    }
    for (const [other, p] of associated) {
      if (own.has(other)) continue
      let strength = p
      if (selection !== undefined) {
        const target = dfOf(other)
        if (target === 0 || (selection.terms === "rarer" && target <= df)) continue
        if (selection.targetIdf > 0 && most > 0) strength *= (idf(n, target) / most) ** selection.targetIdf
      }
      mass.set(other, (mass.get(other) ?? 0) + strength)
    }
  }
  const best = [...mass].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, MAX_EXPANSION)
  return { terms: best.map(([t]) => t), weights: best.map(([, p]) => weight * Math.min(1, p)) }
}
