/**
 * Values derived from a catalog, recomputed only when the catalog's version changed: units read the
 * tools and resources a policy lets exist on every request, the catalog changes rarely.
 *
 * @internal
 */

/**
 * A value derived from a catalog's current state under a policy object (a visibility policy), one
 * per policy object and catalog version: every unit with the same policy shares it, and the next
 * read after a write computes it again.
 */
export const perPolicy = <P extends object, A>(version: () => number, compute: (policy: P) => A) => {
  const cache = new WeakMap<P, { readonly version: number; readonly value: A }>()
  return (policy: P): A => {
    const current = version()
    const hit = cache.get(policy)
    if (hit?.version === current) return hit.value
    const value = compute(policy)
    cache.set(policy, { version: current, value })
    return value
  }
}
