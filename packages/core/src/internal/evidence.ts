/**
 * The catalog's side of learning from use: which `SearchFeedback` snapshot its index holds, the
 * search document of a tool with its past queries, and re-indexing the tools whose queries changed.
 *
 * @internal
 */
import type { CatalogTool } from "../CatalogTool.js"
import * as SearchDocument from "../SearchDocument.js"
import * as SearchFeedback from "../SearchFeedback.js"
import type { SearchIndex } from "../SearchStrategy.js"

/** The evidence an index holds. */
export interface IndexedEvidence {
  /** A tool's search document, with its past queries. */
  readonly documentOf: (tool: CatalogTool) => SearchDocument.SearchDocument
  /** Re-indexes the tools (found by `lookup`) whose queries changed; synchronous, like a catalog write. */
  readonly apply: (snapshot: SearchFeedback.Snapshot, lookup: (id: string) => CatalogTool | undefined) => void
}

/** Evidence for `index`, none at first. */
export const make = (index: SearchIndex): IndexedEvidence => {
  let held: SearchFeedback.Snapshot = SearchFeedback.empty
  const documentOf = (tool: CatalogTool): SearchDocument.SearchDocument => {
    const doc = SearchDocument.fromTool(tool)
    const queries = held.queries.get(tool.id)
    return queries === undefined ? doc : { ...doc, queries }
  }
  return {
    documentOf,
    apply: (snapshot, lookup) => {
      if (snapshot.version === held.version) return
      const before = held.queries
      held = snapshot
      const changed: Array<SearchDocument.SearchDocument> = []
      for (const id of new Set([...before.keys(), ...snapshot.queries.keys()])) {
        const old = before.get(id)
        const now = snapshot.queries.get(id)
        if (old === now || (old !== undefined && now !== undefined && old.join("\n") === now.join("\n"))) continue
        const tool = lookup(id)
        if (tool !== undefined) changed.push(documentOf(tool))
      }
      if (changed.length > 0) index.add(changed)
    }
  }
}
