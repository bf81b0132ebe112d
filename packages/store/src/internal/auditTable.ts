/**
 * The audit tables: writing a reveal or a call (bounded), and reading reveals, calls and gaps
 * merged into one list, oldest first.
 *
 * @internal
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import type { Call, Entry, Filter, Origin, Reveal } from "../Audit.js"
import * as Bounds from "./auditBounds.js"

/** Appends one entry; arguments and results only with `payloads`. */
export const insert = (sql: SqlClient, entry: Reveal | Call, payloads: boolean): Effect.Effect<void, SqlError> => {
  const origin = {
    at: new Date(entry.at),
    turn_id: Bounds.text(entry.turnId),
    session_id: entry.sessionId === null ? null : Bounds.text(entry.sessionId),
    unit_path: Bounds.text(entry.path.join("/"))
  }
  if (entry._tag === "Reveal") {
    return sql`INSERT INTO tool_search_audit_reveals
      (at, turn_id, session_id, unit_path, tool, query, found, activated)
      VALUES (${origin.at}, ${origin.turn_id}, ${origin.session_id}, ${origin.unit_path}, ${Bounds.text(entry.tool)},
        ${Bounds.text(entry.query)}, ${[...Bounds.names(entry.found)]}::text[], ${[
      ...Bounds.names(entry.activated)
    ]}::text[])`
      .pipe(Effect.asVoid)
  }
  const optional = (text: string | null | undefined) => text === null || text === undefined ? null : Bounds.text(text)
  return sql`INSERT INTO tool_search_audit_calls
    (at, turn_id, session_id, unit_path, call_id, tool_name, tool_id, source, target, outcome, duration_ms,
      arguments, result)
    VALUES (${origin.at}, ${origin.turn_id}, ${origin.session_id}, ${origin.unit_path}, ${Bounds.text(entry.callId)},
      ${Bounds.text(entry.toolName)}, ${optional(entry.toolId)}, ${optional(entry.source)}, ${optional(entry.target)},
      ${Bounds.text(entry.outcome)}, ${Number.isFinite(entry.durationMs) ? Math.max(0, entry.durationMs) : 0},
      ${payloads ? Bounds.payload(entry.arguments) : null}::jsonb, ${
    payloads ? Bounds.payload(entry.result) : null
  }::jsonb)`
    .pipe(Effect.asVoid)
}

interface OriginRow {
  readonly id: string
  readonly at: Date
  readonly turn_id: string
  readonly session_id: string | null
  readonly unit_path: string
}

const origin = (row: OriginRow): Origin => ({
  at: row.at.getTime(),
  turnId: row.turn_id,
  sessionId: row.session_id,
  path: row.unit_path === "" ? [] : row.unit_path.split("/")
})

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
    >`SELECT id::text AS id, at, turn_id, session_id, unit_path, tool, query, found, activated
      FROM tool_search_audit_reveals WHERE ${where(true)} ${order} LIMIT ${limit}`
    const calls = yield* sql<
      OriginRow & {
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
    >`SELECT id::text AS id, at, turn_id, session_id, unit_path, call_id, tool_name, tool_id, source, target, outcome,
        duration_ms, arguments, result
      FROM tool_search_audit_calls WHERE ${where(true)} ${order} LIMIT ${limit}`
    // Gaps belong to no session: shown with every filter, since any session may have lost entries.
    const gaps = yield* sql<
      { id: string; at: Date; lost_from: Date; lost_until: Date; entries: string | number; reason: string }
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
      ...calls.map((c) => ({
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
          entries: Number(g.entries),
          reason: g.reason
        }
      }))
    ]
    // by time, then by id: one sequence numbers every audit table, so ties keep the order of writing
    all.sort((a, b) => a.entry.at - b.entry.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    const kept = ascending ? all.slice(0, limit) : all.slice(Math.max(0, all.length - limit))
    return kept.map((x) => x.entry)
  })
