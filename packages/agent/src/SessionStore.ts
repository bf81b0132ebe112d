/**
 * Where activation survives between turns of one session, for the `session` and `latest`
 * activation policies. The in-memory store is the default; a shared database can implement the
 * same service for several processes.
 *
 * Eviction is evaluated lazily on every access (see `Eviction`), with the `Clock` service for
 * time, so `TestClock` drives TTL expiry in tests.
 *
 * @since 0.1.0
 */
import { Clock, type Config, Context, Effect, Layer, Option } from "effect"
import * as AgentConfig from "./AgentConfig.js"
import * as Eviction from "./Eviction.js"

/**
 * What a session carries over. Tool ids, in activation order.
 *
 * @since 0.1.0
 * @category models
 */
export interface State {
  /** Every tool activated in any turn of the session (`session` policy). */
  readonly accumulated: ReadonlyArray<string>
  /** The tools the previous turn's searches returned (`latest` policy). */
  readonly latest: ReadonlyArray<string>
}

/**
 * The empty state.
 *
 * @since 0.1.0
 * @category constants
 */
export const empty: State = { accumulated: [], latest: [] }

/**
 * What `SessionStore` provides.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The session's state, after applying eviction. */
  readonly get: (sessionId: string) => Effect.Effect<Option.Option<State>>
  readonly put: (sessionId: string, state: State) => Effect.Effect<void>
  /** Drops a session now (e.g. on logout). */
  readonly evict: (sessionId: string) => Effect.Effect<void>
  /** Session ids held, least recently used first. */
  readonly sessions: Effect.Effect<ReadonlyArray<string>>
  /** The eviction strategy, for reports. */
  readonly eviction: Eviction.Strategy
}

/**
 * A session store.
 *
 * @since 0.1.0
 * @category services
 */
export class SessionStore extends Context.Service<SessionStore, Service>()("@tool-search/agent/SessionStore") {}

interface Held {
  readonly state: State
  readonly lastAccess: number
}

/**
 * An in-memory store: O(1) per operation at any number of sessions. Sessions sit in a `Map` whose
 * insertion order is the access order (a read or write moves a session to the end), so the least
 * recently used session is always the first; eviction drops from the front while the strategy
 * says so (`Eviction.dropsOldest`). Access times never decrease along that order (a clock that
 * steps back counts as no time passing), which is what lets a TTL stop at the first session still
 * fresh. The `Map` belongs to this store alone and is only touched inside `Effect.sync`, so every
 * operation is atomic.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = (strategy: Eviction.Strategy): Effect.Effect<Service> =>
  Effect.sync(() => {
    const held = new Map<string, Held>()
    const forgetOnAccess = Eviction.forgetsOnAccess(strategy)
    let newest = Number.NEGATIVE_INFINITY

    const dropExpired = (now: number) => {
      for (const [sessionId, h] of held) {
        if (!Eviction.dropsOldest(strategy, { sessionId, lastAccess: h.lastAccess }, held.size, now)) return
        held.delete(sessionId)
      }
    }

    /** Moves a session to the end of the access order. */
    const touch = (sessionId: string, state: State, now: number) => {
      newest = Math.max(newest, now)
      held.delete(sessionId)
      held.set(sessionId, { state, lastAccess: newest })
    }

    return SessionStore.of({
      get: (sessionId) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          if (forgetOnAccess) held.delete(sessionId)
          dropExpired(now)
          const h = held.get(sessionId)
          if (h === undefined) return Option.none()
          touch(sessionId, h.state, now)
          return Option.some(h.state)
        }),
      put: (sessionId, state) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          dropExpired(now) // expired sessions go first; the one written is then the most recent
          touch(sessionId, state, now)
          dropExpired(now)
        }),
      evict: (sessionId) => Effect.sync(() => void held.delete(sessionId)),
      sessions: Effect.sync(() => [...held.keys()]),
      eviction: strategy
    })
  })

/**
 * An in-memory store with the given eviction strategy (default: LRU of 1,000 sessions).
 *
 * @since 0.3.0
 * @category layers
 */
export const layerMemory = (strategy: Eviction.Strategy = Eviction.defaultStrategy): Layer.Layer<SessionStore> =>
  Layer.effect(SessionStore, makeMemory(strategy))

/**
 * An in-memory store with the eviction `AgentConfig` reads (`TOOL_SEARCH_EVICTION` by default).
 *
 * @since 0.3.0
 * @category layers
 */
export const layerConfig: Layer.Layer<SessionStore, Config.ConfigError> = Layer.effect(
  SessionStore,
  Effect.flatMap(AgentConfig.config, (settings) => makeMemory(settings.eviction))
)
