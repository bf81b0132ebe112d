/**
 * When a session's carried-over activation is dropped. Strategies are data, evaluated lazily on
 * each access to the store — no background fiber, no timer.
 *
 * - `lru(n)` (default, 1,000): keeps the `n` most recently used sessions.
 * - `ttl(d)`: drops sessions idle for longer than `d`.
 * - `never`: keeps everything until `evict(sessionId)`.
 * - `always`: forgets a session before every access (every turn starts clean; useful in tests).
 * - `composite(...)`: drops a session when any of its strategies would.
 *
 * @since 0.1.0
 */
import { Duration, Effect, Option, Schema, SchemaGetter, SchemaIssue } from "effect"

/**
 * An eviction strategy: data, as `TOOL_SEARCH_EVICTION` describes it. `Never` keeps a session until
 * it is evicted explicitly, `Always` drops it before every access, `Lru` keeps the `maxSessions`
 * most recently used, `Ttl` drops sessions idle for longer than `ttl`, `Composite` drops a session
 * when any of `strategies` would.
 *
 * @since 0.1.0
 * @category models
 */
export type Strategy =
  | { readonly _tag: "Never" }
  | { readonly _tag: "Always" }
  | { readonly _tag: "Lru"; readonly maxSessions: number }
  | { readonly _tag: "Ttl"; readonly ttl: Duration.Duration }
  | { readonly _tag: "Composite"; readonly strategies: ReadonlyArray<Strategy> }

/**
 * What a strategy sees of one session.
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry {
  readonly sessionId: string
  /** Epoch milliseconds of the last read or write. */
  readonly lastAccess: number
}

/**
 * Keeps the `maxSessions` most recently used sessions.
 *
 * @since 0.1.0
 * @category strategies
 */
export const lru = (maxSessions = 1_000): Strategy => ({
  _tag: "Lru",
  maxSessions: Math.max(0, Math.floor(maxSessions))
})

/**
 * Drops sessions idle for longer than `ttl`.
 *
 * @since 0.1.0
 * @category strategies
 */
export const ttl = (ttl: Duration.Input): Strategy => ({ _tag: "Ttl", ttl: Duration.fromInputUnsafe(ttl) })

/**
 * Never drops a session by itself.
 *
 * @since 0.1.0
 * @category strategies
 */
export const never: Strategy = { _tag: "Never" }

/**
 * Forgets a session before every access.
 *
 * @since 0.1.0
 * @category strategies
 */
export const always: Strategy = { _tag: "Always" }

/**
 * Drops a session when any strategy would.
 *
 * @since 0.1.0
 * @category strategies
 */
export const composite = (...strategies: ReadonlyArray<Strategy>): Strategy => ({ _tag: "Composite", strategies })

/**
 * The default: LRU with 1,000 sessions.
 *
 * @since 0.1.0
 * @category strategies
 */
export const defaultStrategy: Strategy = lru(1_000)

/**
 * The sessions to drop now. `entries` are in least-recently-used order; `accessing` is the session
 * about to be read (for `always`).
 *
 * @since 0.1.0
 * @category eviction
 */
export const select = (
  strategy: Strategy,
  entries: ReadonlyArray<Entry>,
  now: number,
  accessing: string | undefined
): ReadonlySet<string> => {
  switch (strategy._tag) {
    case "Never":
      return new Set()
    case "Always":
      return new Set(accessing === undefined ? [] : [accessing])
    case "Lru": {
      const excess = entries.length - strategy.maxSessions
      return new Set(excess > 0 ? entries.slice(0, excess).map((e) => e.sessionId) : [])
    }
    case "Ttl": {
      const limit = Duration.toMillis(strategy.ttl)
      return new Set(entries.filter((e) => now - e.lastAccess > limit).map((e) => e.sessionId))
    }
    case "Composite":
      return new Set(strategy.strategies.flatMap((s) => [...select(s, entries, now, accessing)]))
  }
}

/**
 * Whether the least recently used of `size` sessions, `oldest`, is to be dropped now: the
 * incremental form of `select` for a store that keeps sessions in access order. There, `lru` and
 * `ttl` only ever drop a prefix of that order, so a store drops its oldest session while this
 * holds — O(1) per dropped session instead of a pass over all of them. (`always` drops the session
 * being accessed, not the oldest: the store applies it on access.)
 *
 * @since 0.2.0
 * @category eviction
 */
export const dropsOldest = (strategy: Strategy, oldest: Entry, size: number, now: number): boolean => {
  switch (strategy._tag) {
    case "Never":
    case "Always":
      return false
    case "Lru":
      return size > strategy.maxSessions
    case "Ttl":
      return now - oldest.lastAccess > Duration.toMillis(strategy.ttl)
    case "Composite":
      return strategy.strategies.some((s) => dropsOldest(s, oldest, size, now))
  }
}

/**
 * Whether the strategy forgets a session before every access (`always`, alone or in a composite).
 *
 * @since 0.2.0
 * @category eviction
 */
export const forgetsOnAccess = (strategy: Strategy): boolean =>
  strategy._tag === "Always" || (strategy._tag === "Composite" && strategy.strategies.some(forgetsOnAccess))

/**
 * A short description, for logs and the demo.
 *
 * @since 0.1.0
 * @category formatting
 */
export const describe = (strategy: Strategy): string => {
  switch (strategy._tag) {
    case "Lru":
      return `lru(${strategy.maxSessions})`
    case "Ttl":
      return `ttl(${Duration.format(strategy.ttl)})`
    case "Never":
      return "never"
    case "Always":
      return "always"
    case "Composite":
      return `composite(${strategy.strategies.map(describe).join(", ")})`
  }
}

// -----------------------------------------------------------------------------
// The written form
// -----------------------------------------------------------------------------

/**
 * A strategy as written in `TOOL_SEARCH_EVICTION`: `never`, `always`, `lru:<sessions>` (a positive
 * integer), `ttl:<duration>` (e.g. `30 minutes`), or several `lru`/`ttl` joined by `,` (a session is
 * dropped as soon as one of them would drop it).
 *
 * @since 0.1.0
 * @category schemas
 */
export const FromString: Schema.Codec<Strategy, string> = Schema.String.pipe(
  Schema.decodeTo(Schema.Any as Schema.Codec<Strategy>, {
    decode: SchemaGetter.transformEffect((raw: string) => {
      const parsed = parse(raw)
      return typeof parsed === "string"
        ? Effect.fail(new SchemaIssue.InvalidValue({ message: parsed }))
        : Effect.succeed(parsed)
    }),
    encode: SchemaGetter.transform((strategy: Strategy) => format(strategy))
  })
)

/**
 * Parses the written form; a string is the reason it was refused.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (raw: string): Strategy | string => {
  const parts = raw.split(",").map((p) => p.trim()).filter((p) => p !== "")
  if (parts.length === 0) return "expected never, always, lru:<sessions> or ttl:<duration>"
  if (parts.length === 1) return parseOne(parts[0] as string) // length checked above
  const strategies: Array<Strategy> = []
  for (const part of parts) {
    const one = parseOne(part)
    if (typeof one === "string") return `'${part}': ${one}`
    if (one._tag === "Never" || one._tag === "Always") {
      return `'${part}' cannot be combined; combine lru:<sessions> and ttl:<duration>`
    }
    strategies.push(one)
  }
  return { _tag: "Composite", strategies }
}

const parseOne = (part: string): Strategy | string => {
  const lower = part.toLowerCase()
  if (lower === "never") return never
  if (lower === "always") return always
  if (lower.startsWith("lru:")) {
    const size = part.slice(4).trim()
    const n = /^\d+$/.test(size) ? Number(size) : Number.NaN
    return Number.isSafeInteger(n) && n >= 1
      ? { _tag: "Lru", maxSessions: n }
      : "the LRU size must be a positive number of sessions, e.g. lru:200"
  }
  if (lower.startsWith("ttl:")) {
    const ttl = Schema.decodeUnknownOption(Schema.DurationFromString)(part.slice(4).trim())
    return Option.isSome(ttl) && Duration.isFinite(ttl.value) && Duration.toMillis(ttl.value) > 0
      ? { _tag: "Ttl", ttl: ttl.value }
      : "the TTL must be a positive duration, e.g. ttl:30 minutes"
  }
  return "expected never, always, lru:<sessions> or ttl:<duration>, or lru and ttl joined by ','"
}

/**
 * The written form of a strategy (what `parse` reads back).
 *
 * @since 0.1.0
 * @category parsing
 */
export const format = (strategy: Strategy): string => {
  switch (strategy._tag) {
    case "Never":
      return "never"
    case "Always":
      return "always"
    case "Lru":
      return `lru:${strategy.maxSessions}`
    case "Ttl":
      return `ttl:${Duration.toMillis(strategy.ttl)} millis`
    case "Composite":
      return strategy.strategies.map(format).join(",")
  }
}
