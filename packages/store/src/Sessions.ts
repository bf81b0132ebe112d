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
 * - **The database lost mid-run**: the turn still completes. A write the database does not take (a
 *   transient failure: `StoreError.isTransient`) is handed to the store's `WriteBehind`, which holds
 *   it (in memory and in its journal, so a stop does not lose it) and writes it as soon as the
 *   database answers again, within about a second. While it is held, this instance reads the
 *   session as the database had it plus its own held writes; when the database cannot be read at
 *   all, a turn starts with this instance's own held writes for the session, or with nothing —
 *   never with tools the session did not find. The store logs one line when the database goes and
 *   one when it is back, and `pending` lists the sessions with held writes. A write the database
 *   refuses for what it holds is logged and dropped.
 *
 * @since 0.2.0
 */
import { Eviction, SessionStore } from "@tool-search/agent"
import { Clock, Context, Effect, Layer, Option, Ref, Result } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { Database } from "./Database.js"
import * as SessionTable from "./internal/sessionTable.js"
import type { StoreUnavailable } from "./StoreError.js"
import { WriteBehind } from "./WriteBehind.js"

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
  /** Keeps these sessions apart from others in the same database (e.g. `agent`); default `agent`. */
  readonly namespace?: string
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
  /** Sessions whose last writes are held, waiting for the database. */
  readonly pending: Effect.Effect<ReadonlyArray<string>>
  /** Writes what the store holds now; fails when the database still does not take it. */
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
  ): Layer.Layer<Sessions | SessionStore.SessionStore, never, Database | SqlClient | WriteBehind> =>
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

/** A write the database did not take at once. */
type Write =
  // `replace`: an eviction came first, so what the database holds is dropped before this is written
  | { readonly _tag: "Put"; readonly state: SessionStore.State; readonly at: number; readonly replace: boolean }
  | { readonly _tag: "Evict"; readonly at: number }

/** A write held for the database: `seq` is its number in the store's write-behind. */
type Held = Write & { readonly seq: number }

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
    const writeBehind = yield* WriteBehind
    const namespace = options.namespace ?? "agent"
    const strategy = options.eviction ?? Eviction.defaultStrategy
    const rules = SessionTable.rules(strategy)
    const table = yield* SessionTable.make(namespace, strategy)
    // this instance's writes the database has not taken yet, by session
    const held = yield* Ref.make(new Map<string, Held>())

    /** The held write of `sessionId`, unless the write-behind has written it meanwhile. */
    const heldFor = (sessionId: string) =>
      Effect.gen(function*() {
        const entry = (yield* Ref.get(held)).get(sessionId)
        if (entry === undefined) return undefined
        if (!(yield* writeBehind.isWritten(entry.seq))) return entry
        yield* written(sessionId, entry)
        return undefined
      })

    /** Forgets a held write once it is written, unless a newer one replaced it meanwhile. */
    const written = (sessionId: string, entry: Held) =>
      Ref.update(held, (map) => {
        if (map.get(sessionId) !== entry) return map
        const next = new Map(map)
        next.delete(sessionId)
        return next
      })

    /** Hands a write the database did not take to the write-behind, and keeps it for this instance's reads. */
    const hold = (sessionId: string, entry: Write) =>
      Effect.gen(function*() {
        const seq = yield* writeBehind.offer(
          entry._tag === "Put"
            ? {
              _tag: "AgentPut",
              namespace,
              sessionId,
              accumulated: [...entry.state.accumulated],
              latest: [...entry.state.latest],
              at: entry.at,
              replace: entry.replace
            }
            : { _tag: "AgentEvict", namespace, sessionId, at: entry.at }
        )
        yield* Ref.update(held, (map) => new Map(map).set(sessionId, { ...entry, seq }))
      })

    const expired = (entry: Held, now: number) => rules.ttlMillis !== undefined && now - entry.at > rules.ttlMillis

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
          writeBehind.direct(`reading session '${sessionId}'`, table.read(sessionId, now))
        )
        const local = yield* heldFor(sessionId)
        if (rules.always) return Option.none()
        const mine = local?._tag === "Put" && !expired(local, now) ? Option.some(local.state) : Option.none()
        if (Result.isFailure(result)) return mine
        if (local?._tag === "Evict") return Option.none()
        return Option.isSome(mine)
          ? Option.some(Option.match(result.success, { onNone: () => mine.value, onSome: (s) => merge(s, mine.value) }))
          : result.success
      })

    const put = (sessionId: string, state: SessionStore.State): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (yield* unstorable(sessionId)) return
        const now = yield* Clock.currentTimeMillis
        const local = yield* heldFor(sessionId)
        const clean = { accumulated: storable(state.accumulated), latest: storable(state.latest) }
        const entry = {
          _tag: "Put" as const,
          state: local?._tag === "Put" ? merge(local.state, clean) : clean,
          at: now,
          // an eviction still held: the stored session goes before this one is written
          replace: local?._tag === "Evict" || (local?._tag === "Put" && local.replace)
        }
        const result = yield* Effect.result(
          writeBehind.direct(`writing session '${sessionId}'`, table.write(sessionId, entry.state, now, entry.replace))
        )
        if (Result.isSuccess(result)) {
          if (local !== undefined) yield* written(sessionId, local)
          return
        }
        if (!result.failure.retryable) return yield* refused(result.failure)
        yield* hold(sessionId, entry)
      })

    const evict = (sessionId: string): Effect.Effect<void> =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const local = yield* heldFor(sessionId)
        const result = yield* Effect.result(
          writeBehind.direct(`evicting session '${sessionId}'`, table.remove(sessionId))
        )
        if (Result.isSuccess(result)) {
          if (local !== undefined) yield* written(sessionId, local)
          return
        }
        if (!result.failure.retryable) return yield* refused(result.failure)
        yield* hold(sessionId, { _tag: "Evict", at: now })
      })

    const pending = Effect.gen(function*() {
      const ids: Array<string> = []
      for (const id of (yield* Ref.get(held)).keys()) if ((yield* heldFor(id)) !== undefined) ids.push(id)
      return ids
    })

    const sessions = Effect.gen(function*() {
      const result = yield* Effect.result(writeBehind.direct("listing sessions", table.list))
      const local = new Map<string, Held>()
      for (const id of yield* pending) {
        const entry = (yield* Ref.get(held)).get(id)
        if (entry !== undefined) local.set(id, entry)
      }
      if (Result.isFailure(result)) return [...local].flatMap(([id, entry]) => entry._tag === "Put" ? [id] : [])
      const stored = result.success.filter((id) => local.get(id)?._tag !== "Evict")
      return [...stored, ...[...local].flatMap(([id, e]) => e._tag === "Put" && !stored.includes(id) ? [id] : [])]
    })

    return {
      get,
      put,
      evict,
      sessions,
      eviction: strategy,
      pending,
      flush: writeBehind.flush
    } satisfies Service
  })
