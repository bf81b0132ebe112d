/**
 * The SQL of `tool_search_sessions`: one row per session and namespace. Each operation is one
 * transaction, so what another instance reads is a whole turn's write or nothing.
 *
 * Writes merge: `accumulated` becomes the stored ids followed by the new ones not yet stored, in
 * one `INSERT … ON CONFLICT DO UPDATE`, which PostgreSQL applies to the latest committed row under
 * the row's lock. Two instances ending turns of one session at once therefore both keep their
 * activations, with no read-modify-write window; `latest` is the last writer's (the turn that ended
 * last is the previous turn of the next one).
 *
 * Eviction runs in the same transactions, in SQL, so every instance applies the same rule to the
 * same rows: `ttl` by `last_access` (the writers' clocks), `lru` by `access_seq` (a database
 * sequence, so recency is one order across instances even when clocks tie or drift).
 *
 * @internal
 */
import type { Eviction, SessionStore } from "@tool-search/agent"
import { Duration, Effect, Option } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"

/** The rules of a strategy, as SQL applies them. */
export interface Rules {
  /** Forget a session before each read. */
  readonly always: boolean
  /** Drop sessions idle longer than this many milliseconds. */
  readonly ttlMillis: number | undefined
  /** Keep this many most recently used sessions. */
  readonly maxSessions: number | undefined
}

/** Flattens a strategy: the strictest of each rule applies (a session goes when any rule says so). */
export const rules = (strategy: Eviction.Strategy): Rules => {
  switch (strategy._tag) {
    case "Never":
      return { always: false, ttlMillis: undefined, maxSessions: undefined }
    case "Always":
      return { always: true, ttlMillis: undefined, maxSessions: undefined }
    case "Lru":
      return { always: false, ttlMillis: undefined, maxSessions: strategy.maxSessions }
    case "Ttl":
      return { always: false, ttlMillis: Duration.toMillis(strategy.ttl), maxSessions: undefined }
    case "Composite":
      return strategy.strategies.map(rules).reduce((a, b) => ({
        always: a.always || b.always,
        ttlMillis: min(a.ttlMillis, b.ttlMillis),
        maxSessions: min(a.maxSessions, b.maxSessions)
      }), { always: false, ttlMillis: undefined, maxSessions: undefined })
  }
}

const min = (a: number | undefined, b: number | undefined) => a === undefined ? b : b === undefined ? a : Math.min(a, b)

/** The operations on one namespace's sessions. */
export interface SessionTable {
  readonly read: (sessionId: string, now: number) => Effect.Effect<Option.Option<SessionStore.State>, SqlError>
  /** Merges `state` into the stored session; with `replace`, drops the stored one first. */
  readonly write: (
    sessionId: string,
    state: SessionStore.State,
    now: number,
    replace: boolean
  ) => Effect.Effect<void, SqlError>
  readonly remove: (sessionId: string) => Effect.Effect<void, SqlError>
  readonly list: Effect.Effect<ReadonlyArray<string>, SqlError>
}

interface Row {
  readonly accumulated: ReadonlyArray<string>
  readonly latest: ReadonlyArray<string>
}

/**
 * Merges `state` into the stored session (its tools accumulate, `latest` is this write's); with
 * `replace`, the stored one is dropped first. Idempotent: the same write again changes nothing
 * but the access time.
 */
export const upsert = (
  sql: SqlClient,
  namespace: string,
  sessionId: string,
  state: SessionStore.State,
  now: number,
  replace: boolean
): Effect.Effect<void, SqlError> =>
  Effect.gen(function*() {
    if (replace) {
      yield* sql`DELETE FROM tool_search_sessions WHERE namespace = ${namespace} AND session_id = ${sessionId}`
    }
    yield* sql`
      INSERT INTO tool_search_sessions AS s
        (namespace, session_id, accumulated, latest, version, created_at, last_access, access_seq)
      VALUES (${namespace}, ${sessionId}, ${[...state.accumulated]}::text[], ${[...state.latest]}::text[], 1,
        ${new Date(now)}, ${new Date(now)}, nextval('tool_search_sessions_access'))
      ON CONFLICT (namespace, session_id) DO UPDATE SET
        accumulated = s.accumulated || ARRAY(
          SELECT u.id FROM unnest(EXCLUDED.accumulated) WITH ORDINALITY AS u(id, n)
          WHERE NOT (u.id = ANY(s.accumulated)) ORDER BY u.n),
        latest = EXCLUDED.latest,
        version = s.version + 1,
        last_access = greatest(s.last_access, EXCLUDED.last_access),
        access_seq = EXCLUDED.access_seq`
  })

/** The table of `namespace`, evicting by `strategy`. */
export const make = (namespace: string, strategy: Eviction.Strategy) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient
    const { always, maxSessions, ttlMillis } = rules(strategy)

    const expire = (now: number) =>
      ttlMillis === undefined ? Effect.void : sql`
        DELETE FROM tool_search_sessions
        WHERE namespace = ${namespace} AND last_access < ${new Date(now - ttlMillis)}`.pipe(Effect.asVoid)

    const trim = maxSessions === undefined ? Effect.void : sql`
      DELETE FROM tool_search_sessions
      WHERE namespace = ${namespace} AND session_id IN (
        SELECT session_id FROM tool_search_sessions WHERE namespace = ${namespace}
        ORDER BY access_seq DESC OFFSET ${maxSessions})`.pipe(Effect.asVoid)

    const remove = (sessionId: string) =>
      sql`DELETE FROM tool_search_sessions WHERE namespace = ${namespace} AND session_id = ${sessionId}`.pipe(
        Effect.asVoid
      )

    const table: SessionTable = {
      read: (sessionId, now) =>
        sql.withTransaction(Effect.gen(function*() {
          if (always) {
            yield* remove(sessionId)
            return Option.none()
          }
          yield* expire(now)
          const rows = yield* sql<Row>`
            UPDATE tool_search_sessions
            SET last_access = greatest(last_access, ${new Date(now)}),
                access_seq = nextval('tool_search_sessions_access')
            WHERE namespace = ${namespace} AND session_id = ${sessionId}
            RETURNING accumulated, latest`
          yield* trim
          const row = rows[0]
          return row === undefined ? Option.none() : Option.some({ accumulated: row.accumulated, latest: row.latest })
        })),
      write: (sessionId, state, now, replace) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* expire(now)
          yield* upsert(sql, namespace, sessionId, state, now, replace)
          yield* trim
        })),
      remove,
      list: Effect.map(
        sql<{ readonly session_id: string }>`
          SELECT session_id FROM tool_search_sessions WHERE namespace = ${namespace} ORDER BY access_seq`,
        (rows) => rows.map((r) => r.session_id)
      )
    }
    return table
  })
