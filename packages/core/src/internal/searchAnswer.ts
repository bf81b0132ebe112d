/**
 * What a `ToolSearch` answer says of a `select:` it did not fully load: the names that were not
 * loaded, and why. (Hits too weak to load are `Disclosure.weakHits`.) Used by the view.
 *
 * @internal
 */
import type { NotLoaded } from "../MetaTools.js"
import type { Entry, Match } from "../ToolCatalog.js"

/** The selected names a search did not load: unknown (or not visible), eager (visible already), or over the limit. */
export const notLoaded = (
  names: ReadonlyArray<string>,
  matches: ReadonlyArray<Match>,
  find: (name: string) => Entry | undefined
): Array<NotLoaded> => {
  const loaded = new Set(matches.map((m) => m.tool.id))
  return names.flatMap((name): Array<NotLoaded> => {
    const tool = find(name)
    if (tool === undefined) return [{ name, reason: "unknown" }]
    if (loaded.has(tool.id)) return []
    return [{ name, reason: tool.loading === "eager" ? "eager" : "over-limit" }]
  })
}
