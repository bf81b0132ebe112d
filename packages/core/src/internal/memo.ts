/**
 * Same arguments, same object: the executor caches token counts and `effect/ai` tool definitions
 * per parameter-schema object, so a schema rebuilt for every turn would defeat those caches. The
 * search tools' and resource tools' schemas depend only on a few numbers (limits and defaults).
 *
 * @internal
 */

/** `f` memoized on its numeric arguments. */
export const memoNumbers = <Args extends ReadonlyArray<number>, A>(f: (...args: Args) => A) => {
  const cache = new Map<string, A>()
  return (...args: Args): A => {
    const key = args.join("/")
    let value = cache.get(key)
    if (value === undefined) {
      value = f(...args)
      cache.set(key, value)
    }
    return value
  }
}
