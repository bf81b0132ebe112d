/**
 * Reading the audit tables: reveals, calls (with the intents whose outcome never came, as calls
 * whose outcome is `unfinished`) and gaps merged into one list, oldest first. (Writing is
 * `batch`'s.)
 *
 * @internal
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { Entry, Filter, Origin } from "../Audit.js"

interface OriginRow {
  readonly id: string
  readonly entry_id: string | null
  readonly at: Date
  readonly recorded_at: Date | null
  readonly turn_id: string
  readonly session_id: string | null
  readonly unit_path: string
  readonly principal: string | null
}

const origin = (row: OriginRow): Origin => ({
  at: row.at.getTime(),
  turnId: row.turn_id,
  sessionId: row.session_id,
  path: row.unit_path === "" ? [] : row.unit_path.split("/"),
  ...(row.entry_id === null ? {} : { id: row.entry_id }),
  ...(row.principal === null ? {} : { principal: row.principal }),
  ...(row.recorded_at === null ? {} : { recordedAt: row.recorded_at.getTime() })
})

/** The columns every entry has. */
const ORIGIN = "id::text AS id, entry_id, at, recorded_at, turn_id, session_id, unit_path, principal"

/** Reads entries of the trail, oldest first (see `Audit.Filter`). */
export const read = (sql: SqlClient, filter: Filter) =>
  Effect.gen(function*() {
    const limit = Math.min(100_000, Math.max(1, Math.floor(filter.limit ?? 1_000)))
    const ascending = filter.since !== undefined
    const where = (hasSession: boolean) =>
      sql.and([
        ...(filter.since !== undefined ? [sql`at >= ${new Date(filter.since)}`] : []),
        ...(hasSession && filter.sessionId !== undefined ? [sql`session_id = ${filter.sessionId}`] : [])
      ])
    const order = ascending ? sql`ORDER BY at ASC, id ASC` : sql`ORDER BY at DESC, id DESC`
    const reveals = yield* sql<
      OriginRow & { tool: string; query: string; found: ReadonlyArray<string>; activated: ReadonlyArray<string> }
    >`SELECT ${sql.literal(ORIGIN)}, tool, query, found, activated
      FROM tool_search_audit_reveals WHERE ${where(true)} ${order} LIMIT ${limit}`
    type CallRow = OriginRow & {
      call_id: string
      tool_name: string
      tool_id: string | null
      source: string | null
      target: string | null
      outcome: string
      duration_ms: number
      arguments: unknown
      result: unknown
    }
    const calls = yield* sql<CallRow>`SELECT ${sql.literal(ORIGIN)}, call_id, tool_name, tool_id, source, target,
        outcome, duration_ms, arguments, result
      FROM tool_search_audit_calls WHERE ${where(true)} ${order} LIMIT ${limit}`
    // calls that started and whose outcome was never recorded
    const unfinished = yield* sql<CallRow>`SELECT ${sql.literal(ORIGIN)}, call_id, tool_name, tool_id, source, target,
        'unfinished' AS outcome, 0::float8 AS duration_ms, NULL::jsonb AS arguments, NULL::jsonb AS result
      FROM tool_search_audit_intents i WHERE ${where(true)}
        AND NOT EXISTS (SELECT 1 FROM tool_search_audit_calls c WHERE c.entry_id = i.entry_id)
      ${order} LIMIT ${limit}`
    // Gaps belong to no session: shown with every filter, since any session may have lost entries.
    const gaps = yield* sql<
      {
        id: string
        at: Date
        lost_from: Date
        lost_until: Date
        entries: string | number | null
        reason: string
      }
    >`SELECT id::text AS id, at, lost_from, lost_until, entries, reason
      FROM tool_search_audit_gaps WHERE ${where(false)} ${order} LIMIT ${limit}`
    const all: Array<{ readonly id: bigint; readonly entry: Entry }> = [
      ...reveals.map((r) => ({
        id: BigInt(r.id),
        entry: {
          _tag: "Reveal" as const,
          ...origin(r),
          tool: r.tool,
          query: r.query,
          found: r.found,
          activated: r.activated
        }
      })),
      ...[...calls, ...unfinished].map((c) => ({
        id: BigInt(c.id),
        entry: {
          _tag: "Call" as const,
          ...origin(c),
          callId: c.call_id,
          toolName: c.tool_name,
          toolId: c.tool_id,
          source: c.source,
          ...(c.target === null ? {} : { target: c.target }),
          outcome: c.outcome,
          durationMs: c.duration_ms,
          ...(c.arguments === null ? {} : { arguments: c.arguments }),
          ...(c.result === null ? {} : { result: c.result })
        }
      })),
      ...gaps.map((g) => ({
        id: BigInt(g.id),
        entry: {
          _tag: "Gap" as const,
          at: g.at.getTime(),
          lostFrom: g.lost_from.getTime(),
          lostUntil: g.lost_until.getTime(),
          entries: g.entries === null ? null : Number(g.entries),
          reason: g.reason
        }
      }))
    ]
    // by time, then by id: one sequence numbers every audit table, so ties keep the order of writing
    all.sort((a, b) => a.entry.at - b.entry.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    const kept = ascending ? all.slice(0, limit) : all.slice(Math.max(0, all.length - limit))
    return kept.map((x) => x.entry)
  })
