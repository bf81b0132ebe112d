/**
 * Core's `SearchFeedback` in the database: the `(catalog, query, tool)` evidence that a search's
 * hit was then called successfully, shared by every instance on the database and kept across
 * restarts, so what one instance learned ranks the searches of all.
 *
 * The bounds are core's: at most `perTool` distinct queries per tool (the most recent; a repeated
 * query moves to the end), each trimmed and cut to `maxQueryLength` characters. Each catalog has a
 * version that every write changes (from a database sequence, so it is never reused); `read`, which
 * the catalog calls at every search, asks for that version only and reloads the catalog's evidence
 * when it changed — one small query per search when nothing did.
 *
 * Feedback is a ranking hint, never an activation: when the database does not answer, `read`
 * returns the last snapshot this instance loaded (or none), and `record` and `forget` are dropped,
 * with a warning when the database goes and a line when it is back. An outage costs some learning,
 * nothing else.
 *
 * @since 0.2.0
 */
import { SearchFeedback } from "@tool-search/core"
import { Clock, Effect, Layer, Ref, Result } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { Database } from "./Database.js"
import * as Reachability from "./internal/reachability.js"
import { guard, type StoreUnavailable } from "./StoreError.js"

/**
 * Builds the store over the database in context.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Partial<SearchFeedback.Options> = {}) =>
  Effect.gen(function*() {
    const database = yield* Database
    const sql = yield* SqlClient
    const { maxQueryLength, perTool } = { ...SearchFeedback.defaults, ...options }
    const snapshots = yield* Ref.make(new Map<string, SearchFeedback.Snapshot>())
    const { back, lost } = yield* Reachability.make(
      "Search feedback",
      database.label,
      "Searches rank with the evidence loaded before; new evidence is not recorded meanwhile"
    )

    const bump = (catalog: string) =>
      sql`INSERT INTO tool_search_feedback_versions (catalog, version)
        VALUES (${catalog}, nextval('tool_search_feedback_writes'))
        ON CONFLICT (catalog) DO UPDATE SET version = EXCLUDED.version`

    /** Runs a write; an outage or a refusal drops it (logged), since feedback is only a hint. */
    const write = (operation: string, effect: Effect.Effect<unknown, SqlError>) =>
      Effect.flatMap(
        Effect.result(guard(database, operation)(effect)),
        (result) => Result.isSuccess(result) ? back : dropped(result.failure)
      )
    const dropped = (e: StoreUnavailable) =>
      e.retryable ? lost(e) : Effect.logWarning(`Search feedback: ${e.message}; the evidence is dropped`)

    const record = ({ catalog, query, toolId }: SearchFeedback.Evidence): Effect.Effect<void> => {
      const text = query.trim().slice(0, maxQueryLength).replaceAll("\0", "")
      if (text === "" || perTool <= 0) return Effect.void
      return Effect.flatMap(Clock.currentTimeMillis, (now) =>
        write(
          "recording search feedback",
          sql.withTransaction(Effect.gen(function*() {
            const last = yield* sql<{ readonly query: string }>`
              SELECT query FROM tool_search_feedback WHERE catalog = ${catalog} AND tool_id = ${toolId}
              ORDER BY seq DESC LIMIT 1`
            if (last[0]?.query === text) {
              // the same query again: counted, and the ranking's input is unchanged (no new version)
              return yield* sql`UPDATE tool_search_feedback SET count = count + 1, last_seen = ${new Date(now)}
                WHERE catalog = ${catalog} AND tool_id = ${toolId} AND query = ${text}`
            }
            yield* sql`INSERT INTO tool_search_feedback AS f (catalog, tool_id, query, count, last_seen, seq)
              VALUES (${catalog}, ${toolId}, ${text}, 1, ${new Date(now)}, nextval('tool_search_feedback_writes'))
              ON CONFLICT (catalog, tool_id, query) DO UPDATE
              SET count = f.count + 1, last_seen = EXCLUDED.last_seen, seq = EXCLUDED.seq`
            yield* sql`DELETE FROM tool_search_feedback WHERE catalog = ${catalog} AND tool_id = ${toolId}
              AND seq NOT IN (SELECT seq FROM tool_search_feedback WHERE catalog = ${catalog} AND tool_id = ${toolId}
                ORDER BY seq DESC LIMIT ${perTool})`
            yield* bump(catalog)
          }))
        ))
    }

    const forget = (catalog: string, toolIds: ReadonlyArray<string>): Effect.Effect<void> =>
      toolIds.length === 0 ? Effect.void : write(
        "forgetting search feedback",
        sql.withTransaction(Effect.gen(function*() {
          const gone = yield* sql`DELETE FROM tool_search_feedback
            WHERE catalog = ${catalog} AND tool_id = ANY(${[...toolIds]}::text[]) RETURNING 1 AS gone`
          if (gone.length > 0) yield* bump(catalog)
        }))
      )

    const load = (catalog: string) =>
      Effect.gen(function*() {
        const version = yield* sql<{ readonly version: string }>`
          SELECT version::text AS version FROM tool_search_feedback_versions WHERE catalog = ${catalog}`
        const current = version[0] === undefined ? 0 : Number(version[0].version)
        const cached = (yield* Ref.get(snapshots)).get(catalog)
        if (cached !== undefined && cached.version === current) return cached
        if (current === 0) return SearchFeedback.empty
        const rows = yield* sql<{ readonly tool_id: string; readonly query: string }>`
          SELECT tool_id, query FROM tool_search_feedback WHERE catalog = ${catalog} ORDER BY tool_id, seq`
        const queries = new Map<string, Array<string>>()
        for (const row of rows) {
          const list = queries.get(row.tool_id)
          if (list === undefined) queries.set(row.tool_id, [row.query])
          else list.push(row.query)
        }
        const snapshot: SearchFeedback.Snapshot = { version: current, queries }
        yield* Ref.update(snapshots, (m) => new Map(m).set(catalog, snapshot))
        return snapshot
      })

    const read = (catalog: string): Effect.Effect<SearchFeedback.Snapshot> =>
      Effect.flatMap(Effect.result(guard(database, "reading search feedback")(load(catalog))), (result) =>
        Result.isSuccess(result)
          ? Effect.as(back, result.success)
          : Effect.andThen(
            dropped(result.failure),
            Effect.map(Ref.get(snapshots), (m) =>
              m.get(catalog) ?? SearchFeedback.empty)
          ))

    return { record, forget, read } satisfies SearchFeedback.Service
  })

/**
 * Provides `SearchFeedback` from the database in context (core's bounds unless given).
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Partial<SearchFeedback.Options> = {}): Layer.Layer<never, never, Database | SqlClient> =>
  Layer.effect(SearchFeedback.SearchFeedback, make(options))
