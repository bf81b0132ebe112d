/**
 * Where a unit's tools come from, as far as a search answer needs to know: which sources exist and
 * which of them cannot answer now (a server still starting, or failed). The gateway plugs its
 * upstream servers in; an app whose tools are all local has none. A search answer names a source
 * only when the unit's visibility policy exposes it, so a hidden server is never named, nor its
 * error.
 *
 * @internal
 */
import { Effect } from "effect"
import type * as Visibility from "../../Visibility.js"

/** A source that cannot answer now, and why. */
export interface Unavailable {
  readonly name: string
  /** `starting`, or why it is unavailable. */
  readonly reason: string
}

/** The sources of a unit's tools. */
export interface Sources {
  /** Every source name. */
  readonly names: ReadonlyArray<string>
  /** The sources that cannot answer now. */
  readonly unavailable: Effect.Effect<ReadonlyArray<Unavailable>>
}

/** Whether `query` names `source` as a word. */
export const mentions = (query: string, source: string): boolean =>
  new RegExp(`(^|[^a-z0-9])${source.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}($|[^a-z0-9])`).test(
    query.toLowerCase()
  )

/** What a search answer may say of the sources: only those `visibility` exposes. */
export const exposed = (sources: Sources, visibility: Visibility.Visibility) => {
  const shown = sources.names.filter(visibility.exposes)
  return {
    names: shown,
    unavailable: Effect.map(sources.unavailable, (down) => down.filter((s) => visibility.exposes(s.name)))
  }
}
