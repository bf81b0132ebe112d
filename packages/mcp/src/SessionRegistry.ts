/**
 * The HTTP gateway's sessions as records: who opened each one, when it was last used, which may
 * be admitted, which must go. The live part of a session (its SDK transport, its activation) stays
 * in the process that serves it; the registry decides admission, binding and expiry, so that a
 * persistent implementation (a database shared by several gateway instances) can replace the
 * in-memory one without touching the HTTP server.
 *
 * Rules of the in-memory registry (`layerMemory`):
 * - each session has an owner (the principal its token belongs to) with a quota: opening one more
 *   session than the owner's quota evicts the owner's own session idle the longest, never another
 *   owner's;
 * - at most `maxSessions` records: opening one more evicts the session idle the longest among those
 *   of the owner holding the most sessions, so one client cannot evict the sessions of another
 *   that holds fewer;
 * - a session not used for `idleTimeout` expires (`expire` returns it, and forgets it);
 * - a session belongs to the credential that opened it: `touch` with another principal answers
 *   `None`, exactly as for an unknown id, so a leaked session id alone is not enough.
 *
 * Time is Effect's `Clock`, so tests drive expiry with `TestClock`.
 *
 * @since 0.2.0
 */
import { Clock, Context, Duration, Effect, Layer, Option } from "effect"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * What the registry keeps of one session.
 *
 * @since 0.2.0
 * @category models
 */
export interface Session {
  readonly id: string
  /** A digest of the credential that opened the session (empty without authentication). */
  readonly principal: string
  /** Whose session it is, for quotas: the principal's name (the credential's digest when none is given). */
  readonly owner: string
  readonly createdAt: number
  readonly lastSeen: number
}

/**
 * The registry's limits.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly maxSessions: number
  readonly idleTimeout: Duration.Input
}

// -----------------------------------------------------------------------------
// Service
// -----------------------------------------------------------------------------

/**
 * What `SessionRegistry` provides.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /**
   * Records a new session of `owner` (default: `principal`), who may hold `quota` sessions (default
   * `maxSessions`); returns the ids evicted to make room, the one idle the longest first.
   */
  readonly open: (
    id: string,
    principal: string,
    owner?: { readonly name: string; readonly quota: number }
  ) => Effect.Effect<ReadonlyArray<string>>
  /** The session, when it exists and belongs to `principal`; marks it used now. */
  readonly touch: (id: string, principal: string) => Effect.Effect<Option.Option<Session>>
  /** Forgets a session (closed by its client, or by the gateway). */
  readonly remove: (id: string) => Effect.Effect<void>
  /** Forgets the sessions idle longer than the timeout, and returns their ids. */
  readonly expire: Effect.Effect<ReadonlyArray<string>>
  /** Sessions recorded now. */
  readonly size: Effect.Effect<number>
  /** How long a session may stay idle: the HTTP server sweeps at a fraction of it. */
  readonly idleTimeout: Duration.Duration
}

/**
 * The sessions of an HTTP gateway.
 *
 * @since 0.2.0
 * @category services
 */
export class SessionRegistry extends Context.Service<SessionRegistry, Service>()("@tool-search/mcp/SessionRegistry") {
  /**
   * Sessions in this process's memory.
   *
   * @since 0.2.0
   * @category layers
   */
  static readonly layerMemory = (options: Options): Layer.Layer<SessionRegistry> =>
    Layer.effect(SessionRegistry, Effect.sync(() => makeMemory(options)))
}

// -----------------------------------------------------------------------------
// In memory
// -----------------------------------------------------------------------------

/**
 * An in-memory registry. A `Map` keeps insertion order, and every use re-inserts its session, so
 * the first entry is always the one idle the longest: eviction and expiry are O(1) per session.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeMemory = (options: Options): Service => {
  const idleTimeout = Duration.fromInputUnsafe(options.idleTimeout)
  const idleMillis = Duration.toMillis(idleTimeout)
  const max = Math.max(1, options.maxSessions)
  const sessions = new Map<string, Session>()
  return SessionRegistry.of({
    open: (id, principal, owner) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const name = owner?.name ?? principal
        const quota = Math.max(1, Math.min(owner?.quota ?? max, max))
        const evicted: Array<string> = []
        const evict = (session: Session) => {
          sessions.delete(session.id)
          evicted.push(session.id)
        }
        // the owner's own sessions first: its quota is its own to spend
        const own = [...sessions.values()].filter((s) => s.owner === name)
        for (const session of own.slice(0, Math.max(0, own.length - quota + 1))) evict(session)
        // then the largest holder gives up its idlest session (ties: the idlest of them)
        while (sessions.size >= max) {
          const held = new Map<string, number>()
          for (const s of sessions.values()) held.set(s.owner, (held.get(s.owner) ?? 0) + 1)
          const most = Math.max(...held.values())
          const idlest = [...sessions.values()].find((s) => held.get(s.owner) === most)
          if (idlest === undefined) break
          evict(idlest)
        }
        sessions.set(id, { id, principal, owner: name, createdAt: now, lastSeen: now })
        return evicted
      }),
    touch: (id, principal) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const session = sessions.get(id)
        if (session === undefined || session.principal !== principal || now - session.lastSeen > idleMillis) {
          return Option.none()
        }
        const used = { ...session, lastSeen: now }
        sessions.delete(id)
        sessions.set(id, used)
        return Option.some(used)
      }),
    remove: (id) => Effect.sync(() => void sessions.delete(id)),
    expire: Effect.map(Clock.currentTimeMillis, (now) => {
      const expired: Array<string> = []
      for (const session of sessions.values()) {
        if (now - session.lastSeen <= idleMillis) break
        expired.push(session.id)
      }
      for (const id of expired) sessions.delete(id)
      return expired
    }),
    size: Effect.sync(() => sessions.size),
    idleTimeout
  })
}
