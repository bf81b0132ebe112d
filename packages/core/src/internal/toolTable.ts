/**
 * The state of a tool catalog: its tools by id, the names the model sees, and the live search
 * index. `commit` applies one write — removals, then additions — in one synchronous step, which
 * JavaScript never interleaves with a read, so readers need no lock; `ToolCatalog` serializes the
 * writes and publishes the changes.
 *
 * Names: a name alone among the tools is used as is. In a collision, a rewritten name
 * (`originalName` set) takes a suffix and leaves the plain name to the one tool that declared it
 * as is; several tools declaring the same name as is are each qualified by source.
 *
 * @internal
 */
import * as CatalogTool from "../CatalogTool.js"
import type { SearchDocument } from "../SearchDocument.js"
import type { SearchIndex } from "../SearchStrategy.js"
import type { Change, Entry } from "../ToolCatalog.js"

/** The state of one catalog. */
export interface ToolTable {
  readonly get: (id: string) => Entry | undefined
  /** The tool of a model name, or of a declared name that only one tool has. */
  readonly findByName: (name: string) => Entry | undefined
  /** Every tool, in registration order. */
  readonly all: () => ReadonlyArray<Entry>
  /** Eager tools, in registration order. */
  readonly eager: () => ReadonlyArray<Entry>
  /** Increases with every commit. */
  readonly version: () => number
  /** Removes then adds (an existing id is replaced in place), renames what collides, updates the index. */
  readonly commit: (removals: ReadonlyArray<string>, additions: ReadonlyArray<CatalogTool.CatalogTool>) => Change
}

/** An empty table over `index`; `documentOf` gives a tool's search document, `normalize` a called name. */
export const make = (
  index: SearchIndex,
  documentOf: (tool: CatalogTool.CatalogTool) => SearchDocument,
  normalize: (name: string) => string
): ToolTable => {
  const byId = new Map<string, Entry>()
  const idByModelName = new Map<string, string>()
  const idsByName = new Map<string, Set<string>>()
  const eagerIds = new Set<string>()
  let version = 0

  const findByName = (raw: string): Entry | undefined => {
    const name = normalize(raw)
    const id = idByModelName.get(name)
    if (id !== undefined) return byId.get(id)
    const declared = idsByName.get(name)
    if (declared?.size === 1) return byId.get(declared.values().next().value as string)
    return undefined
  }

  /** Forgets the names `entry` holds, and notes its declared name as touched. */
  const releaseNames = (id: string, entry: Entry, touched: Set<string>) => {
    if (idByModelName.get(entry.modelName) === id) idByModelName.delete(entry.modelName)
    idsByName.get(entry.name)?.delete(id)
    if (idsByName.get(entry.name)?.size === 0) idsByName.delete(entry.name)
    touched.add(entry.name)
  }

  const commit = (removals: ReadonlyArray<string>, additions: ReadonlyArray<CatalogTool.CatalogTool>): Change => {
    const touched = new Set<string>()
    const removed: Array<string> = []
    for (const id of removals) {
      const old = byId.get(id)
      if (old === undefined) continue
      byId.delete(id)
      eagerIds.delete(id)
      releaseNames(id, old, touched)
      removed.push(id)
    }
    for (const tool of additions) {
      const old = byId.get(tool.id)
      // replaced in place: keep the registration order of the id
      if (old !== undefined) releaseNames(tool.id, old, touched)
      byId.set(tool.id, { ...tool, modelName: tool.name })
      if (tool.loading === "eager") eagerIds.add(tool.id)
      else eagerIds.delete(tool.id)
      const ids = idsByName.get(tool.name) ?? new Set<string>()
      ids.add(tool.id)
      idsByName.set(tool.name, ids)
      touched.add(tool.name)
    }
    const renamed = assignModelNames(touched, new Set(additions.map((t) => t.id)))
    if (removed.length > 0) index.remove(removed)
    if (additions.length > 0) index.add(additions.map(documentOf))
    version++
    return { added: additions.map((t) => t.id), removed, renamed, version }
  }

  /** Gives every tool of the touched name groups an unambiguous model name; returns the renamed ids. */
  const assignModelNames = (names: ReadonlySet<string>, fresh: ReadonlySet<string>): Array<string> => {
    const renamed: Array<string> = []
    for (const name of names) {
      const ids = [...(idsByName.get(name) ?? [])].sort()
      let declaredAsIs = 0
      for (const id of ids) {
        const entry = byId.get(id)
        if (entry === undefined) continue
        if (entry.originalName === undefined) declaredAsIs++
        if (idByModelName.get(entry.modelName) === id) idByModelName.delete(entry.modelName)
      }
      for (const id of ids) {
        const entry = byId.get(id)
        if (entry === undefined) continue
        const wanted = ids.length === 1
          ? entry.name
          : entry.originalName !== undefined
          ? suffixed(entry.name, id)
          : declaredAsIs === 1
          ? entry.name
          : qualifiedName(entry)
        const modelName = idByModelName.has(wanted) ? suffixed(wanted, id) : wanted
        idByModelName.set(modelName, id)
        if (modelName !== entry.modelName) {
          byId.set(id, { ...entry, modelName })
          if (!fresh.has(id)) renamed.push(id)
        }
      }
    }
    return renamed
  }

  return {
    get: (id) => byId.get(id),
    findByName,
    all: () => [...byId.values()],
    eager: () => [...eagerIds].flatMap((id) => byId.get(id) ?? []),
    version: () => version,
    commit
  }
}

/** `name_<hash of the id>`, valid for providers. */
const suffixed = (name: string, id: string): string =>
  CatalogTool.sanitizeName(`${name.slice(0, 56)}_${CatalogTool.hash(id).slice(0, 6)}`)

/** `source__name`, valid for providers; tools without a source are qualified by their id. */
const qualifiedName = (tool: CatalogTool.CatalogTool): string =>
  CatalogTool.sanitizeName(tool.source === undefined ? tool.id : `${tool.source}__${tool.name}`)
