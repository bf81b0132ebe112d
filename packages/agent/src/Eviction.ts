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
import type { ToolSearchConfig } from "@tool-search/core"
import { Duration } from "effect"

/** An eviction strategy: data, as `TOOL_SEARCH_EVICTION` describes it. */
export type Strategy = ToolSearchConfig.Eviction

/** What a strategy sees of one session. */
export interface Entry {
  readonly sessionId: string
  /** Epoch milliseconds of the last read or write. */
  readonly lastAccess: number
}

/** Keeps the `maxSessions` most recently used sessions. */
export const lru = (maxSessions = 1_000): Strategy => ({
  _tag: "Lru",
  maxSessions: Math.max(0, Math.floor(maxSessions))
})

/** Drops sessions idle for longer than `ttl`. */
export const ttl = (ttl: Duration.Input): Strategy => ({ _tag: "Ttl", ttl: Duration.fromInputUnsafe(ttl) })

/** Never drops a session by itself. */
export const never: Strategy = { _tag: "Never" }

/** Forgets a session before every access. */
export const always: Strategy = { _tag: "Always" }

/** Drops a session when any strategy would. */
export const composite = (...strategies: ReadonlyArray<Strategy>): Strategy => ({ _tag: "Composite", strategies })

/** The default: LRU with 1,000 sessions. */
export const defaultStrategy: Strategy = lru(1_000)

/**
 * The sessions to drop now. `entries` are in least-recently-used order; `accessing` is the session
 * about to be read (for `always`).
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

/** A short description, for logs and the demo. */
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
