/**
 * What a `ToolSearch` answer leaves out: hits too weak to load ("no good match") and the names of
 * a `select:` that were not loaded. Pure functions of the matches, used by the view.
 *
 * @internal
 */
import type { Options } from "../Disclosure.js"
import type { NotLoaded } from "../MetaTools.js"
import type { Entry, Match } from "../ToolCatalog.js"

/**
 * The hits too weak to load: strength below `minScore`, or below `minScoreRatio` times the best
 * hit's. Hits without a strength (a strategy that cannot say, a full name match) are never weak.
 */
export const weak = (
  matches: ReadonlyArray<Match>,
  options: Pick<Options, "minScore" | "minScoreRatio">
): ReadonlyArray<Match> => {
  const best = matches.reduce((b, m) => Math.max(b, m.strength ?? 0), 0)
  const floor = Math.max(options.minScore, options.minScoreRatio * best)
  return matches.filter((m) => m.strength !== undefined && m.strength < floor)
}

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
