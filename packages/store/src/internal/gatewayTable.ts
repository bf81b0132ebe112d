/**
 * The SQL of the gateway's sessions: `tool_search_gateway_sessions` (one row per session, keyed by
 * the HMAC of its credential and id) and `tool_search_gateway_tools` (one row per loaded tool).
 *
 * A row per tool makes concurrent loads a set union — two instances loading tools for one session
 * at the same moment both insert, neither overwrites — and an unload one row gone. Every operation
 * is idempotent (an insert of what is there adds nothing, a delete of what is gone removes
 * nothing), so a write-back repeated after an unacknowledged commit changes nothing. A change
 * notifies the other instances (`NOTIFY tool_search_gateway`, delivered at commit).
 *
 * @internal
 */
import { Effect, Option } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"

/** The channel instances announce session changes on. */
export const CHANNEL = "tool_search_gateway"

/** What a notification says: which session, and whether its tools changed or it is gone. */
export interface Notice {
  readonly instance: string
  readonly kind: "tools" | "closed"
  readonly key: string
}

/** A notification's payload. */
export const notice = (n: Notice): string => `${n.instance} ${n.kind === "tools" ? "t" : "c"} ${n.key}`

/** A payload read back; undefined when it is not one of ours. */
export const parseNotice = (payload: string): Notice | undefined => {
  const match = /^(\S{1,64}) ([tc]) ([0-9a-f]{16,128})$/.exec(payload)
  return match === null
    ? undefined
    : { instance: match[1] as string, kind: match[2] === "t" ? "tools" : "closed", key: match[3] as string }
}

const announce = (sql: SqlClient, n: Notice) => sql`SELECT pg_notify(${CHANNEL}, ${notice(n)})`

/** Stores a session (no tools yet); a session stored already is left as it is. */
export const open = (sql: SqlClient, key: string, at: number): Effect.Effect<void, SqlError> =>
  sql`INSERT INTO tool_search_gateway_sessions (key, created_at, last_access, access_seq)
    VALUES (${key}, ${new Date(at)}, ${new Date(at)}, nextval('tool_search_gateway_order'))
    ON CONFLICT (key) DO NOTHING`.pipe(Effect.asVoid)

/** Adds and removes a session's tools (of a stored session only), and tells the other instances. */
export const change = (
  sql: SqlClient,
  instance: string,
  key: string,
  loaded: ReadonlyArray<string>,
  unloaded: ReadonlyArray<string>
): Effect.Effect<void, SqlError> =>
  Effect.gen(function*() {
    if (unloaded.length > 0) {
      yield* sql`DELETE FROM tool_search_gateway_tools WHERE key = ${key} AND tool_id = ANY(${[...unloaded]}::text[])`
    }
    if (loaded.length > 0) {
      yield* sql`INSERT INTO tool_search_gateway_tools (key, tool_id, loaded_seq)
        SELECT ${key}, u.id, nextval('tool_search_gateway_order')
        FROM unnest(${[...loaded]}::text[]) WITH ORDINALITY AS u(id, n)
        WHERE EXISTS (SELECT 1 FROM tool_search_gateway_sessions WHERE key = ${key})
        ORDER BY u.n
        ON CONFLICT (key, tool_id) DO NOTHING`
    }
    yield* announce(sql, { instance, kind: "tools", key })
  })

/** Removes a session and its tools, and tells the other instances. */
export const close = (sql: SqlClient, instance: string, key: string): Effect.Effect<void, SqlError> =>
  Effect.gen(function*() {
    yield* sql`DELETE FROM tool_search_gateway_tools WHERE key = ${key}`
    yield* sql`DELETE FROM tool_search_gateway_sessions WHERE key = ${key}`
    yield* announce(sql, { instance, kind: "closed", key })
  })

/** The stored session's tools in the order they were loaded; `None` when no such session is stored. */
export const read = (sql: SqlClient, key: string): Effect.Effect<Option.Option<ReadonlyArray<string>>, SqlError> =>
  Effect.map(
    sql<{ readonly tool_id: string | null }>`
      SELECT t.tool_id FROM tool_search_gateway_sessions s
      LEFT JOIN tool_search_gateway_tools t ON t.key = s.key
      WHERE s.key = ${key}
      ORDER BY t.loaded_seq`,
    (rows) =>
      rows.length === 0 ? Option.none() : Option.some(rows.flatMap((r) => r.tool_id === null ? [] : [r.tool_id]))
  )

/** Marks sessions used (at their times), in one statement. */
export const touch = (sql: SqlClient, used: ReadonlyMap<string, number>): Effect.Effect<void, SqlError> =>
  used.size === 0 ? Effect.void : sql`
    UPDATE tool_search_gateway_sessions s
    SET last_access = greatest(s.last_access, u.at), access_seq = nextval('tool_search_gateway_order')
    FROM unnest(${[...used.keys()]}::text[], ${
    [...used.values()].map((at) => new Date(at))
  }::timestamptz[]) AS u(key, at)
    WHERE s.key = u.key`.pipe(Effect.asVoid)

/**
 * Drops the sessions idle longer than `idleMillis` and, beyond `maxSessions`, the least recently
 * used, with their tools, telling the other instances; returns their keys.
 */
export const evict = (
  sql: SqlClient,
  instance: string,
  now: number,
  idleMillis: number,
  maxSessions: number
): Effect.Effect<ReadonlyArray<string>, SqlError> =>
  sql.withTransaction(Effect.gen(function*() {
    const gone = yield* sql<{ readonly key: string }>`
      DELETE FROM tool_search_gateway_sessions WHERE key IN (
        SELECT key FROM tool_search_gateway_sessions WHERE last_access < ${new Date(now - idleMillis)}
        UNION
        (SELECT key FROM tool_search_gateway_sessions ORDER BY access_seq DESC OFFSET ${maxSessions})
      ) RETURNING key`
    if (gone.length === 0) return []
    const keys = gone.map((r) => r.key)
    yield* sql`DELETE FROM tool_search_gateway_tools WHERE key = ANY(${keys}::text[])`
    for (const key of keys) yield* announce(sql, { instance, kind: "closed", key })
    return keys
  }))

/**
 * Records the fingerprint of this instance's secret as seen now; returns the other fingerprints
 * seen within `recentMillis` (instances keying sessions with another secret).
 */
export const secrets = (
  sql: SqlClient,
  fingerprint: string,
  now: number,
  recentMillis: number
): Effect.Effect<ReadonlyArray<string>, SqlError> =>
  Effect.gen(function*() {
    yield* sql`INSERT INTO tool_search_gateway_secrets (fingerprint, seen_at) VALUES (${fingerprint}, ${new Date(now)})
      ON CONFLICT (fingerprint) DO UPDATE SET seen_at = EXCLUDED.seen_at`
    const others = yield* sql<{ readonly fingerprint: string }>`
      SELECT fingerprint FROM tool_search_gateway_secrets
      WHERE fingerprint <> ${fingerprint} AND seen_at >= ${new Date(now - recentMillis)}`
    return others.map((r) => r.fingerprint)
  })
