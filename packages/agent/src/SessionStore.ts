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
import { Clock, Context, Effect, Layer, Option, Ref } from "effect"
import * as Eviction from "./Eviction.js"

/** What a session carries over. Tool ids, in activation order. */
export interface State {
  /** Every tool activated in any turn of the session (`session` policy). */
  readonly accumulated: ReadonlyArray<string>
  /** The tools the previous turn's searches returned (`latest` policy). */
  readonly latest: ReadonlyArray<string>
}

/** The empty state. */
export const empty: State = { accumulated: [], latest: [] }

/** A session store. */
export class SessionStore extends Context.Service<SessionStore, {
  /** The session's state, after applying eviction. */
  readonly get: (sessionId: string) => Effect.Effect<Option.Option<State>>
  readonly put: (sessionId: string, state: State) => Effect.Effect<void>
  /** Drops a session now (e.g. on logout). */
  readonly evict: (sessionId: string) => Effect.Effect<void>
  /** Session ids held, least recently used first. */
  readonly sessions: Effect.Effect<ReadonlyArray<string>>
  /** The eviction strategy, for reports. */
  readonly eviction: Eviction.Strategy
}>()("@tool-search/agent/SessionStore") {
  /** An in-memory store with the given eviction strategy (default: LRU of 1,000 sessions). */
  static readonly memory = (strategy: Eviction.Strategy = Eviction.defaultStrategy): Layer.Layer<SessionStore> =>
    Layer.effect(SessionStore, makeMemory(strategy))
}

interface Held {
  readonly state: State
  readonly lastAccess: number
}

/** An in-memory store; the map's insertion order is the LRU order. */
export const makeMemory = (strategy: Eviction.Strategy): Effect.Effect<SessionStore["Service"]> =>
  Effect.gen(function*() {
    const ref = yield* Ref.make(new Map<string, Held>())

    const evictWith = (map: Map<string, Held>, now: number, accessing: string | undefined) => {
      const entries = [...map].map(([sessionId, held]) => ({ sessionId, lastAccess: held.lastAccess }))
      const drop = Eviction.select(strategy, entries, now, accessing)
      if (drop.size === 0) return map
      return new Map([...map].filter(([id]) => !drop.has(id)))
    }

    const touch = (map: Map<string, Held>, sessionId: string, held: Held) => {
      const next = new Map(map)
      next.delete(sessionId)
      next.set(sessionId, held)
      return next
    }

    return SessionStore.of({
      get: (sessionId) =>
        Effect.flatMap(
          Clock.currentTimeMillis,
          (now) =>
            Ref.modify(ref, (map): readonly [Option.Option<State>, Map<string, Held>] => {
              const kept = evictWith(map, now, sessionId)
              const held = kept.get(sessionId)
              if (held === undefined) return [Option.none(), kept]
              return [Option.some(held.state), touch(kept, sessionId, { state: held.state, lastAccess: now })]
            })
        ),
      put: (sessionId, state) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Ref.update(ref, (map) =>
            // expired sessions go first; the one being written is then the most recently used
            evictWith(touch(evictWith(map, now, undefined), sessionId, { state, lastAccess: now }), now, undefined))),
      evict: (sessionId) =>
        Ref.update(ref, (map) => {
          const next = new Map(map)
          next.delete(sessionId)
          return next
        }),
      sessions: Effect.map(Ref.get(ref), (map) => [...map.keys()]),
      eviction: strategy
    })
  })
