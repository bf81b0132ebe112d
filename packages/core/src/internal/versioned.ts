/**
 * A value derived from a catalog, recomputed only when the catalog's version changed: the views
 * read their searchable tools and available resources on every request, the catalog changes
 * rarely.
 *
 * @internal
 */
import { Effect } from "effect"

/**
 * `compute`, run again only when `version()` differs from the version of the last value. The
 * version is read before computing, so a write racing the computation makes the next read
 * compute again rather than keep a stale value.
 */
export const cachedByVersion = <A>(version: () => number, compute: Effect.Effect<A>): Effect.Effect<A> => {
  let last: { readonly version: number; readonly value: A } | undefined
  return Effect.suspend(() => {
    const current = version()
    if (last?.version === current) return Effect.succeed(last.value)
    return Effect.map(compute, (value) => {
      last = { version: current, value }
      return value
    })
  })
}
