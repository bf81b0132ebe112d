/**
 * The state of a resource catalog: its resources by URI, the matchers of its URI templates, the
 * passages of each body, and the two live indexes (metadata, passages). `commit` applies one
 * write — removals, then additions — in one synchronous step, which JavaScript never interleaves
 * with a read; `ResourceCatalog` serializes the writes and publishes the changes.
 *
 * @internal
 */
import type { Change, Entry, Passage } from "../ResourceCatalog.js"
import type { SearchIndex } from "../SearchStrategy.js"
import * as Index from "./resourceIndex.js"
import * as UriTemplate from "./uriTemplate.js"

/** The state of one catalog. */
export interface ResourceTable {
  readonly get: (uri: string) => Entry | undefined
  /** The resource registered under `uri`, or the first template matching it. */
  readonly resolve: (uri: string) => Entry | undefined
  /** Every resource, in registration order. */
  readonly all: () => ReadonlyArray<Entry>
  /** The passages of a resource, in order. */
  readonly passages: (uri: string) => ReadonlyArray<Passage>
  /** The passage of an id of the passage index. */
  readonly passage: (id: string) => Passage | undefined
  /** Increases with every commit. */
  readonly version: () => number
  /** Removes then adds (a replaced URI keeps its order, its passages are replaced), updates both indexes. */
  readonly commit: (removals: ReadonlyArray<string>, additions: ReadonlyArray<Index.Prepared>) => Change
}

/** An empty table over the metadata and passage indexes. */
export const make = (metadata: SearchIndex, bodies: SearchIndex): ResourceTable => {
  const byUri = new Map<string, Entry>()
  const templates = new Map<string, UriTemplate.Matcher>()
  const passagesByUri = new Map<string, ReadonlyArray<{ readonly id: string; readonly passage: Passage }>>()
  const passageById = new Map<string, Passage>()
  let nextPassage = 0
  let version = 0

  const dropPassages = (uri: string) => {
    const old = passagesByUri.get(uri)
    if (old === undefined) return
    bodies.remove(old.map((p) => p.id))
    for (const p of old) passageById.delete(p.id)
    passagesByUri.delete(uri)
  }

  const commit = (removals: ReadonlyArray<string>, additions: ReadonlyArray<Index.Prepared>): Change => {
    const removed: Array<string> = []
    for (const uri of removals) {
      if (!byUri.has(uri)) continue
      byUri.delete(uri)
      templates.delete(uri)
      dropPassages(uri)
      removed.push(uri)
    }
    if (removed.length > 0) metadata.remove(removed)
    for (const { entry, passages } of additions) {
      dropPassages(entry.uri)
      byUri.set(entry.uri, entry) // a replaced URI keeps its registration order
      if (entry.template) {
        const compiled = UriTemplate.compile(entry.uri)
        if (typeof compiled !== "string") templates.set(entry.uri, compiled)
      } else {
        templates.delete(entry.uri)
      }
      const ids = passages.map((passage) => ({ id: `p${nextPassage++}`, passage }))
      for (const { id, passage } of ids) passageById.set(id, passage)
      passagesByUri.set(entry.uri, ids)
      bodies.add(ids.map(({ id, passage }) => Index.passageDocument(id, passage, entry)))
    }
    if (additions.length > 0) metadata.add(additions.map(({ entry }) => Index.metadataDocument(entry)))
    version++
    return { added: additions.map(({ entry }) => entry.uri), removed, version }
  }

  return {
    get: (uri) => byUri.get(uri),
    resolve: (uri) => {
      const exact = byUri.get(uri)
      if (exact !== undefined) return exact
      for (const [template, matcher] of templates) {
        if (matcher.matches(uri)) return byUri.get(template)
      }
      return undefined
    },
    all: () => [...byUri.values()],
    passages: (uri) => (passagesByUri.get(uri) ?? []).map((p) => p.passage),
    passage: (id) => passageById.get(id),
    version: () => version,
    commit
  }
}
