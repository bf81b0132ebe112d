/**
 * The relevant groups of a query, the quality of a ranking for it, and checking a queries file
 * against a catalog.
 *
 * @internal
 */
import type { Issue, Numbered, Quality, QuerySpec } from "../Evaluation.js"

/** The relevant items of a query: groups of ids, any member of which finds the group. */
export const groupsOf = (query: QuerySpec): ReadonlyArray<ReadonlyArray<string>> =>
  query.relevant_groups !== undefined && query.relevant_groups.length > 0
    ? query.relevant_groups
    : query.relevant.map((id) => [id])

/** The quality of one ranking for one query, at cutoff `k` (see `Evaluation.quality`). */
export const quality = (query: QuerySpec, ranked: ReadonlyArray<string>, k: number): Quality => {
  const groups = groupsOf(query)
  if (groups.length === 0) return { ndcg: 0, recall1: 0, recall5: 0, recallK: 0, mrr: 0 }
  const groupOf = new Map<string, Array<number>>()
  groups.forEach((g, i) => g.forEach((id) => groupOf.set(id, [...(groupOf.get(id) ?? []), i])))
  const found = new Set<number>()
  let dcg = 0
  let mrr = 0
  let at1 = 0
  let at5 = 0
  const depth = Math.min(k, ranked.length)
  for (let i = 0; i < depth; i++) {
    const fresh = (groupOf.get(ranked[i] as string) ?? []).filter((g) => !found.has(g))
    if (fresh.length > 0) {
      fresh.forEach((g) => found.add(g))
      dcg += 1 / Math.log2(i + 2)
      if (mrr === 0) mrr = 1 / (i + 1)
    }
    if (i === 0) at1 = found.size
    if (i === 4) at5 = found.size
  }
  if (depth < 1) at1 = found.size
  if (depth < 5) at5 = found.size
  let ideal = 0
  for (let i = 0; i < Math.min(groups.length, k); i++) ideal += 1 / Math.log2(i + 2)
  return {
    ndcg: dcg / ideal,
    recall1: at1 / groups.length,
    recall5: at5 / groups.length,
    recallK: found.size / groups.length,
    mrr
  }
}

const quote = (ids: ReadonlyArray<string>): string => {
  const shown = ids.slice(0, 5).map((id) => `'${id}'`).join(", ")
  return ids.length > 5 ? `${shown} and ${ids.length - 5} more` : shown
}

/** The queries that can be scored, and every problem found (see `Evaluation.validate`). */
export const validate = (
  input: ReadonlyArray<QuerySpec | Numbered>,
  toolIds: ReadonlySet<string>
): { readonly queries: ReadonlyArray<QuerySpec>; readonly issues: ReadonlyArray<Issue> } => {
  const queries: Array<QuerySpec> = []
  const issues: Array<Issue> = []
  const firstLine = new Map<string, number>()
  for (const item of input) {
    const { line, spec } = "spec" in item ? item : { line: 0, spec: item }
    const issue = (problem: string, excluded: boolean) => issues.push({ line, id: spec.id, problem, excluded })
    const first = firstLine.get(spec.id)
    if (first !== undefined) {
      issue(`duplicate query id${first > 0 ? ` (first on line ${first})` : ""}`, true)
      continue
    }
    firstLine.set(spec.id, line)
    if (spec.query.trim() === "") {
      issue("empty query", true)
      continue
    }
    const groups = groupsOf(spec)
    if (groups.every((g) => g.length === 0)) {
      issue("no relevant tool", true)
      continue
    }
    const unknown = [...new Set(groups.flat().filter((id) => !toolIds.has(id)))]
    if (unknown.length === 0) {
      queries.push(spec)
      continue
    }
    const known = groups.map((g) => g.filter((id) => toolIds.has(id))).filter((g) => g.length > 0)
    if (known.length === 0) {
      issue(`none of its relevant tools is in the catalog (${quote(unknown)})`, true)
      continue
    }
    issue(`relevant ids not in the catalog, left out: ${quote(unknown)}`, false)
    queries.push({
      ...spec,
      relevant: spec.relevant.filter((id) => toolIds.has(id)),
      ...(spec.relevant_groups === undefined ? {} : { relevant_groups: known })
    })
  }
  return { queries, issues }
}
