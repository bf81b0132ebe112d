/**
 * The agent's `SessionStore` in the database: what the `session` and `latest` activation policies
 * carry from one turn to the next, written when a turn ends and read when the next one starts, by
 * any instance on the same database.
 *
 * - **Eviction** (`lru`, `ttl`, `never`, `always`, composites, as `TOOL_SEARCH_EVICTION` names
 *   them) runs in SQL inside each operation's transaction, so every instance applies the same rule
 *   to the same rows.
 * - **Concurrent turns** of one session on two instances both keep their activations: a write
 *   merges the session's tools with what is stored (one atomic upsert; see `SessionTable`), it
 *   never replaces them. `latest` is the last writer's.
 * - **The database lost mid-run**: the turn still completes. A write the database does not take is
 *   held in memory and written back, in order, as soon as the database answers again (retried with
 *   exponential backoff up to every 30 seconds, and once more when the store closes). While it is
 *   held, this instance reads the session as the database had it plus its own held writes; when the
 *   database cannot be read at all, a turn starts with this instance's own held writes for the
 *   session, or with nothing — never with tools the session did not find. Both cases are logged
 *   (a warning when the database goes, a line when it is back), and `pending` lists the held
 *   sessions. At most `pendingLimit` sessions are held; beyond that the oldest held write is
 *   dropped with an error in the log.
 *
 * @since 0.2.0
 */
import { Eviction, SessionStore } from "@tool-search/agent"
import { Clock, Context, Effect, Layer, Option, Queue, Ref, Result, Schedule, Semaphore } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import { Database } from "./Database.js"
import * as Reachability from "./internal/reachability.js"
import * as SessionTable from "./internal/sessionTable.js"
import { guard, type StoreUnavailable } from "./StoreError.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * Options of the database-backed session store.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** When a session is dropped; default `lru(1000)`, as the in-memory store. */
  readonly eviction?: Eviction.Strategy
  /** Keeps these sessions apart from others in the same database (e.g. `agent`, `gateway`); default `agent`. */
  readonly namespace?: string
  /** Sessions whose writes may wait in memory while the database is away; default 10,000. */
  readonly pendingLimit?: number
  /** How held writes are retried; default exponential from 100 ms, at most every 30 seconds. */
  readonly retry?: Schedule.Schedule<unknown, StoreUnavailable>
}

type StoreShape = SessionStore.Service

/**
 * The database-backed session store: the agent's `SessionStore`, plus what is waiting to be
 * written.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service extends StoreShape {
  /** Sessions whose last writes are held in memory, waiting for the database. */
  readonly pending: Effect.Effect<ReadonlyArray<string>>
  /** Writes the held writes now; fails when the database still does not take them. */
  readonly flush: Effect.Effect<void, StoreUnavailable>
}

/**
 * The database-backed session store.
 *
 * @since 0.2.0
 * @category services
 */
export class Sessions extends Context.Service<Sessions, Service>()("@tool-search/store/Sessions") {
  /**
   * The store, as both `Sessions` and the agent's `SessionStore` (which `Executor.layer` picks up).
   */
  static readonly layer = (
    options: Options = {}
  ): Layer.Layer<Sessions | SessionStore.SessionStore, never, Database | SqlClient> =>
    Layer.effectContext(Effect.map(make(options), (service) =>
      Context.make(Sessions, service).pipe(
        Context.add(SessionStore.SessionStore, service)
      )))
}

/**
 * The longest session id kept; longer ones (and ids holding NUL) are not stored, with a warning:
 * their turns start with nothing carried over.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_SESSION_ID = 512

// -----------------------------------------------------------------------------
// Implementation
// -----------------------------------------------------------------------------

type Held =
  // `replace`: an eviction came first, so what the database holds is dropped before this is written
  | { readonly _tag: "Put"; readonly state: SessionStore.State; readonly at: number; readonly replace: boolean }
  | { readonly _tag: "Evict"; readonly at: number }

const defaultRetry: Schedule.Schedule<unknown, StoreUnavailable> = Schedule.min([
  Schedule.exponential("100 millis"),
  Schedule.spaced("30 seconds")
])

const unique = (ids: ReadonlyArray<string>): ReadonlyArray<string> => [...new Set(ids)]

/** Ids PostgreSQL can hold (text never holds NUL), once each. */
const storable = (ids: ReadonlyArray<string>): ReadonlyArray<string> => unique(ids.filter((id) => !id.includes("\0")))

/** `later` written after `earlier`: tools accumulate, `latest` is the later one's. */
const merge = (earlier: SessionStore.State, later: SessionStore.State): SessionStore.State => ({
  accumulated: unique([...earlier.accumulated, ...later.accumulated]),
  latest: unique(later.latest)
})

/**
 * Builds the store; its write-back fiber belongs to the scope.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options = {}) =>
  Effect.gen(function*() {
    const database = yield* Database
    const strategy = options.eviction ?? Eviction.defaultStrategy
    const rules = SessionTable.rules(strategy)
    const table = yield* SessionTable.make(options.namespace ?? "agent", strategy)
    const limit = Math.max(1, options.pendingLimit ?? 10_000)
    const held = yield* Ref.make(new Map<string, Held>()) // insertion order: oldest first
    const wake = yield* Queue.sliding<void>(1)
    const { back, lost } = yield* Reachability.make(
      "Session store",
      database.label,
      "Turns go on; their session writes are held in memory and written back when the database answers"
    )

    /** Holds a write; the oldest held write goes when the limit is reached. */
    const hold = (sessionId: string, entry: Held) =>
      Effect.gen(function*() {
        const dropped = yield* Ref.modify(held, (map): readonly [ReadonlyArray<string>, Map<string, Held>] => {
          const next = new Map(map)
          const previous = next.get(sessionId)
          next.delete(sessionId)
          next.set(
            sessionId,
            entry._tag === "Put" && previous?._tag === "Put"
              ? {
                _tag: "Put",
                state: merge(previous.state, entry.state),
                at: entry.at,
                replace: previous.replace || entry.replace
              }
              : entry._tag === "Put" && previous?._tag === "Evict"
              ? { ...entry, replace: true }
              : entry
          )
          const over = [...next.keys()].slice(0, Math.max(0, next.size - limit))
          for (const id of over) next.delete(id)
          return [over, next]
        })
        if (dropped.length > 0) {
          yield* Effect.logError(
            `Session store: ${dropped.length} held session write(s) dropped (more than ${limit} waiting for ` +
              `the database ${database.label}): ${dropped.slice(0, 5).join(", ")}`
          )
        }
        yield* Queue.offer(wake, undefined)
      })

    /** Forgets a held write once it is written, unless a newer one replaced it meanwhile. */
    const written = (sessionId: string, entry: Held) =>
      Ref.update(held, (map) => {
        if (map.get(sessionId) !== entry) return map
        const next = new Map(map)
        next.delete(sessionId)
        return next
      })

    const expired = (entry: Held, now: number) => rules.ttlMillis !== undefined && now - entry.at > rules.ttlMillis

    // one write-back at a time: the background fiber and a caller's `flush` never write the same entries twice
    const writing = yield* Semaphore.make(1)
    const flush: Effect.Effect<void, StoreUnavailable> = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      for (const [sessionId, entry] of yield* Ref.get(held)) {
        if (!expired(entry, now)) {
          yield* guard(database, `the held write of session '${sessionId}'`)(
            entry._tag === "Put"
              ? table.write(sessionId, entry.state, entry.at, entry.replace)
              : table.remove(sessionId)
          ).pipe(Effect.catchIf((e) => !e.retryable, refused))
        }
        yield* written(sessionId, entry)
      }
    }).pipe(writing.withPermits(1))

    // Writes back what is held whenever something is held, retrying until the database takes it.
    yield* Effect.forkScoped(Effect.forever(
      Queue.take(wake).pipe(
        Effect.andThen(flush.pipe(Effect.tapError(lost), Effect.retry(options.retry ?? defaultRetry))),
        Effect.andThen(back),
        Effect.catch((e) => Effect.logError(`Session store: giving up on held writes: ${e.message}`))
      )
    ))
    // Closing: one last attempt, then say what is lost.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        if ((yield* Ref.get(held)).size === 0) return
        const result = yield* Effect.result(flush)
        if (Result.isFailure(result)) {
          const ids = [...(yield* Ref.get(held)).keys()]
          yield* Effect.logError(
            `Session store: closing with ${ids.length} session write(s) not written to ${database.label}: ` +
              `${ids.slice(0, 5).join(", ")} (${result.failure.reason})`
          )
        }
      })
    )

    /** A write the database refuses (not an outage): holding it would only retry it forever. */
    const refused = (e: StoreUnavailable) => Effect.logError(`Session store: ${e.message}; the write is dropped`)

    /** Session ids the store does not keep: too long, or holding NUL (which PostgreSQL text cannot). */
    const unstorable = (sessionId: string) =>
      sessionId.length > MAX_SESSION_ID || sessionId.includes("\0")
        ? Effect.as(
          Effect.logWarning(
            `Session store: a session id of ${sessionId.length} characters is not stored (at most ` +
              `${MAX_SESSION_ID}, no NUL)`
          ),
          true
        )
        : Effect.succeed(false)

    const get = (sessionId: string): Effect.Effect<Option.Option<SessionStore.State>> =>
      Effect.gen(function*() {
        if (yield* unstorable(sessionId)) return Option.none()
        const now = yield* Clock.currentTimeMillis
        const result = yield* Effect.result(
          guard(database, `reading session '${sessionId}'`)(table.read(sessionId, now))
        )
        const local = (yield* Ref.get(held)).get(sessionId)
        if (rules.always) {
          if (local !== undefined) yield* written(sessionId, local)
          return Option.none()
        }
        const mine = local?._tag === "Put" && !expired(local, now) ? Option.some(local.state) : Option.none()
        if (Result.isFailure(result)) {
          yield* lost(result.failure)
          return mine
        }
        yield* back
        if (local?._tag === "Evict") return Option.none()
        if (local !== undefined) yield* Queue.offer(wake, undefined) // the database answers: write back now
        return Option.isSome(mine)
          ? Option.some(Option.match(result.success, { onNone: () => mine.value, onSome: (s) => merge(s, mine.value) }))
          : result.success
      })

    const put = (sessionId: string, state: SessionStore.State): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (yield* unstorable(sessionId)) return
        const now = yield* Clock.currentTimeMillis
        const local = (yield* Ref.get(held)).get(sessionId)
        const clean = { accumulated: storable(state.accumulated), latest: storable(state.latest) }
        const entry: Held = {
          _tag: "Put",
          state: local?._tag === "Put" ? merge(local.state, clean) : clean,
          at: now,
          // an eviction still held: the stored session goes before this one is written
          replace: local?._tag === "Evict" || (local?._tag === "Put" && local.replace)
        }
        const result = yield* Effect.result(
          guard(database, `writing session '${sessionId}'`)(table.write(sessionId, entry.state, now, entry.replace))
        )
        if (Result.isSuccess(result)) {
          if (local !== undefined) yield* written(sessionId, local)
          return yield* back
        }
        if (!result.failure.retryable) return yield* refused(result.failure)
        yield* lost(result.failure)
        yield* hold(sessionId, entry)
      })

    const evict = (sessionId: string): Effect.Effect<void> =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const local = (yield* Ref.get(held)).get(sessionId)
        const result = yield* Effect.result(
          guard(database, `evicting session '${sessionId}'`)(table.remove(sessionId))
        )
        if (Result.isSuccess(result)) {
          if (local !== undefined) yield* written(sessionId, local)
          return yield* back
        }
        yield* lost(result.failure)
        yield* hold(sessionId, { _tag: "Evict", at: now })
      })

    const sessions = Effect.gen(function*() {
      const result = yield* Effect.result(guard(database, "listing sessions")(table.list))
      const local = yield* Ref.get(held)
      if (Result.isFailure(result)) {
        yield* lost(result.failure)
        return [...local].flatMap(([id, entry]) => entry._tag === "Put" ? [id] : [])
      }
      const stored = result.success.filter((id) => local.get(id)?._tag !== "Evict")
      return [...stored, ...[...local].flatMap(([id, e]) => e._tag === "Put" && !stored.includes(id) ? [id] : [])]
    })

    return {
      get,
      put,
      evict,
      sessions,
      eviction: strategy,
      pending: Effect.map(Ref.get(held), (map) => [...map.keys()]),
      flush
    } satisfies Service
  })
