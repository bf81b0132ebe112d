/**
 * Core's `SearchFeedback` in the database: the `(catalog, query, tool)` evidence that a search's
 * hit was then called successfully, shared by every instance on the database and kept across
 * restarts, so what one instance learned ranks the searches of all.
 *
 * The bounds are core's: at most `perTool` distinct queries per tool (the most recent; a repeated
 * query moves to the end), each trimmed and cut to `maxQueryLength` characters. Each catalog has a
 * version that every write changes (from a database sequence, so it is never reused).
 *
 * Off the request path: `record` and `forget` hand the evidence to the store's `WriteBehind`, which
 * writes it in batches (the same query recorded again and again is one write of its count) and
 * holds it while the database is away. `read`, which the catalog calls at every search, answers
 * from this instance's snapshot and asks the database for the catalog's version at most every
 * `refresh` (default 1 second) — reloading the evidence only when the version changed — so a burst
 * of searches costs one small query. Feedback is a ranking hint, never an activation: when the
 * database does not answer, `read` keeps the last snapshot (or none).
 *
 * @since 0.2.0
 */
import { SearchFeedback } from "@tool-search/core"
import { Clock, Duration, Effect, Layer, Ref, Result } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import type { Database } from "./Database.js"
import { WriteBehind } from "./WriteBehind.js"

/**
 * Options of the database feedback store: core's bounds, and how often a search may ask the
 * database whether the evidence changed.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options extends SearchFeedback.Options {
  readonly refresh: Duration.Input
}

/**
 * Builds the store over the database in context.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Partial<Options> = {}) =>
  Effect.gen(function*() {
    const writeBehind = yield* WriteBehind
    const sql = yield* SqlClient
    const { maxQueryLength, perTool } = { ...SearchFeedback.defaults, ...options }
    const refreshMillis = Duration.toMillis(Duration.fromInputUnsafe(options.refresh ?? "1 second"))
    // per catalog: the snapshot loaded, and when the database was last asked about it
    const snapshots = yield* Ref.make(
      new Map<string, { readonly snapshot: SearchFeedback.Snapshot; readonly checked: number; readonly seq: number }>()
    )
    // the last feedback entry this instance handed over: a snapshot older than its write is reloaded
    const lastWrite = yield* Ref.make(0)

    const record = ({ catalog, query, toolId }: SearchFeedback.Evidence): Effect.Effect<void> => {
      const text = query.trim().slice(0, maxQueryLength).replaceAll("\0", "")
      if (text === "" || perTool <= 0) return Effect.void
      return Effect.flatMap(Clock.currentTimeMillis, (at) =>
        Effect.flatMap(
          writeBehind.offer({ _tag: "Evidence", catalog, toolId, query: text, keep: perTool, at }),
          (seq) => Ref.set(lastWrite, seq)
        ))
    }

    const forget = (catalog: string, toolIds: ReadonlyArray<string>): Effect.Effect<void> =>
      toolIds.length === 0 ? Effect.void : Effect.flatMap(Clock.currentTimeMillis, (at) =>
        Effect.flatMap(
          writeBehind.offer({ _tag: "Forget", catalog, toolIds: [...toolIds], at }),
          (seq) => Ref.set(lastWrite, seq)
        ))

    const load = (catalog: string, cached: SearchFeedback.Snapshot | undefined) =>
      Effect.gen(function*() {
        const version = yield* sql<{ readonly version: string }>`
          SELECT version::text AS version FROM tool_search_feedback_versions WHERE catalog = ${catalog}`
        const current = version[0] === undefined ? 0 : Number(version[0].version)
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
        return { version: current, queries } satisfies SearchFeedback.Snapshot
      })

    const read = (catalog: string): Effect.Effect<SearchFeedback.Snapshot> =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const cached = (yield* Ref.get(snapshots)).get(catalog)
        const written = yield* Ref.get(lastWrite)
        const ownWrite = written > (cached?.seq ?? 0) && (yield* writeBehind.isWritten(written))
        if (cached !== undefined && !ownWrite && now - cached.checked < refreshMillis) return cached.snapshot
        const result = yield* Effect.result(
          writeBehind.direct("reading search feedback", load(catalog, cached?.snapshot))
        )
        if (Result.isFailure(result)) return cached?.snapshot ?? SearchFeedback.empty
        const seq = ownWrite ? written : cached?.seq ?? 0
        yield* Ref.update(snapshots, (m) => new Map(m).set(catalog, { snapshot: result.success, checked: now, seq }))
        return result.success
      })

    return { record, forget, read } satisfies SearchFeedback.Service
  })

/**
 * Provides `SearchFeedback` from the database in context (core's bounds unless given).
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (
  options: Partial<Options> = {}
): Layer.Layer<never, never, Database | SqlClient | WriteBehind> =>
  Layer.effect(SearchFeedback.SearchFeedback, make(options))
