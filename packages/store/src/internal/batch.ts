/**
 * Writes a batch of entries held by `WriteBehind`, inside the caller's transaction, in few
 * statements: the audit's entries one `INSERT … SELECT FROM jsonb_to_recordset` per table
 * (a call's intent is skipped when its outcome is in the same batch), feedback merged per
 * (catalog, tool, query), session changes in their order. Every write is idempotent, so a batch
 * written again after a commit that was not acknowledged adds nothing.
 *
 * @internal
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import type * as Entry from "./entry.js"
import * as GatewayTable from "./gatewayTable.js"
import * as SessionTable from "./sessionTable.js"

/** What a batch is written with. */
export interface Context {
  readonly sql: SqlClient
  /** This process's instance id: other instances ignore their own notifications. */
  readonly instance: string
}

/** Writes `entries`, in their order where order matters. */
export const write = (context: Context, entries: ReadonlyArray<Entry.Entry>): Effect.Effect<void, SqlError> =>
  Effect.gen(function*() {
    const { sql } = context
    const reveals: Array<Entry.Reveal> = []
    const intents: Array<Entry.Intent> = []
    const calls: Array<Entry.Call> = []
    const gaps: Array<Entry.Gap> = []
    const outcomes = new Set<string>()
    for (const entry of entries) if (entry._tag === "Call") outcomes.add(entry.id)
    // feedback and sessions keep their order; audit rows sort by time when read
    let feedback: Array<Entry.Evidence | Entry.Forget> = []
    const flushFeedback = Effect.suspend(() => {
      const run = feedback
      feedback = []
      return writeFeedback(sql, run)
    })
    for (const entry of entries) {
      switch (entry._tag) {
        case "Reveal":
          reveals.push(entry)
          break
        case "Intent":
          if (!outcomes.has(entry.id)) intents.push(entry)
          break
        case "Call":
          calls.push(entry)
          break
        case "Gap":
          gaps.push(entry)
          break
        case "Evidence":
        case "Forget":
          feedback.push(entry)
          break
        case "AgentPut":
          yield* SessionTable.upsert(
            sql,
            entry.namespace,
            entry.sessionId,
            {
              accumulated: entry.accumulated,
              latest: entry.latest
            },
            entry.at,
            entry.replace
          )
          break
        case "AgentEvict":
          yield* sql`DELETE FROM tool_search_sessions WHERE namespace = ${entry.namespace}
            AND session_id = ${entry.sessionId}`
          break
        case "SessionOpened":
          yield* GatewayTable.open(sql, entry.key, entry.at)
          break
        case "SessionTools":
          yield* GatewayTable.change(sql, context.instance, entry.key, entry.loaded, entry.unloaded)
          break
        case "SessionClosed":
          yield* GatewayTable.close(sql, context.instance, entry.key)
          break
      }
    }
    yield* flushFeedback
    yield* insertReveals(sql, reveals)
    yield* insertIntents(sql, intents)
    yield* insertCalls(sql, calls)
    yield* insertGaps(sql, gaps)
  })

const json = (rows: ReadonlyArray<unknown>) => JSON.stringify(rows)

const insertReveals = (sql: SqlClient, rows: ReadonlyArray<Entry.Reveal>) =>
  rows.length === 0 ? Effect.void : sql`
    INSERT INTO tool_search_audit_reveals
      (entry_id, at, turn_id, session_id, unit_path, principal, tool, query, found, activated)
    SELECT x.id, to_timestamp(x.at / 1000.0), x.turn_id, x.session_id, x.unit_path, x.principal, x.tool, x.query,
      x.found, x.activated
    FROM jsonb_to_recordset(${
    json(rows.map((r) => ({
      id: r.id,
      at: r.at,
      turn_id: r.turnId,
      session_id: r.sessionId,
      unit_path: r.path.join("/"),
      principal: r.principal,
      tool: r.tool,
      query: r.query,
      found: r.found,
      activated: r.activated
    })))
  }::jsonb) AS x(id text, at float8, turn_id text, session_id text, unit_path text, principal text, tool text,
      query text, found text[], activated text[])
    ON CONFLICT (entry_id) DO NOTHING`.pipe(Effect.asVoid)

const callColumns = (c: Entry.Intent | Entry.Call) => ({
  id: c.id,
  at: c.at,
  turn_id: c.turnId,
  session_id: c.sessionId,
  unit_path: c.path.join("/"),
  principal: c.principal,
  call_id: c.callId,
  tool_name: c.toolName,
  tool_id: c.toolId,
  source: c.source,
  target: c.target
})

const insertIntents = (sql: SqlClient, rows: ReadonlyArray<Entry.Intent>) =>
  rows.length === 0 ? Effect.void : sql`
    INSERT INTO tool_search_audit_intents
      (entry_id, at, turn_id, session_id, unit_path, principal, call_id, tool_name, tool_id, source, target)
    SELECT x.id, to_timestamp(x.at / 1000.0), x.turn_id, x.session_id, x.unit_path, x.principal, x.call_id,
      x.tool_name, x.tool_id, x.source, x.target
    FROM jsonb_to_recordset(${json(rows.map(callColumns))}::jsonb) AS x(id text, at float8, turn_id text,
      session_id text, unit_path text, principal text, call_id text, tool_name text, tool_id text, source text,
      target text)
    ON CONFLICT (entry_id) DO NOTHING`.pipe(Effect.asVoid)

const insertCalls = (sql: SqlClient, rows: ReadonlyArray<Entry.Call>) =>
  rows.length === 0 ? Effect.void : sql`
    INSERT INTO tool_search_audit_calls
      (entry_id, at, turn_id, session_id, unit_path, principal, call_id, tool_name, tool_id, source, target, outcome,
        duration_ms, arguments, result)
    SELECT x.id, to_timestamp(x.at / 1000.0), x.turn_id, x.session_id, x.unit_path, x.principal, x.call_id,
      x.tool_name, x.tool_id, x.source, x.target, x.outcome, x.duration_ms, x.arguments::jsonb, x.result::jsonb
    FROM jsonb_to_recordset(${
    json(rows.map((c) => ({
      ...callColumns(c),
      outcome: c.outcome,
      duration_ms: c.durationMs,
      arguments: c.arguments,
      result: c.result
    })))
  }::jsonb) AS x(id text, at float8, turn_id text, session_id text, unit_path text, principal text, call_id text,
      tool_name text, tool_id text, source text, target text, outcome text, duration_ms float8, arguments text,
      result text)
    ON CONFLICT (entry_id) DO NOTHING`.pipe(Effect.asVoid)

const insertGaps = (sql: SqlClient, rows: ReadonlyArray<Entry.Gap>) =>
  rows.length === 0 ? Effect.void : sql`
    INSERT INTO tool_search_audit_gaps (entry_id, at, lost_from, lost_until, entries, reason)
    SELECT x.id, to_timestamp(x.at / 1000.0), to_timestamp(x.lost_from / 1000.0), to_timestamp(x.lost_until / 1000.0),
      x.entries, x.reason
    FROM jsonb_to_recordset(${
    json(rows.map((g) => ({
      id: g.id,
      at: g.at,
      lost_from: g.lostFrom,
      lost_until: g.lostUntil,
      entries: g.entries,
      reason: g.reason
    })))
  }::jsonb) AS x(id text, at float8, lost_from float8, lost_until float8, entries bigint, reason text)
    ON CONFLICT (entry_id) DO NOTHING`.pipe(Effect.asVoid)

/**
 * Feedback, in order: the same (catalog, tool, query) recorded several times in a row is one write
 * of its count; each catalog whose evidence changed gets a new version once.
 */
const writeFeedback = (sql: SqlClient, run: ReadonlyArray<Entry.Evidence | Entry.Forget>) =>
  Effect.gen(function*() {
    if (run.length === 0) return
    const changed = new Set<string>()
    let i = 0
    while (i < run.length) {
      const entry = run[i] as Entry.Evidence | Entry.Forget
      if (entry._tag === "Forget") {
        const gone = yield* sql`DELETE FROM tool_search_feedback
          WHERE catalog = ${entry.catalog} AND tool_id = ANY(${[...entry.toolIds]}::text[]) RETURNING 1 AS gone`
        if (gone.length > 0) changed.add(entry.catalog)
        i++
        continue
      }
      // the evidence up to the next forget, merged per (catalog, tool, query); the last occurrence orders it
      const merged = new Map<string, { readonly evidence: Entry.Evidence; count: number }>()
      for (; i < run.length && (run[i] as Entry.Evidence | Entry.Forget)._tag === "Evidence"; i++) {
        const evidence = run[i] as Entry.Evidence
        const key = JSON.stringify([evidence.catalog, evidence.toolId, evidence.query])
        const previous = merged.get(key)
        merged.delete(key)
        merged.set(key, { evidence, count: (previous?.count ?? 0) + 1 })
      }
      for (const { count, evidence } of merged.values()) {
        const { at, catalog, keep, query, toolId } = evidence
        const last = yield* sql<{ readonly query: string }>`
          SELECT query FROM tool_search_feedback WHERE catalog = ${catalog} AND tool_id = ${toolId}
          ORDER BY seq DESC LIMIT 1`
        if (last[0]?.query === query) {
          // the same query again: counted, and the ranking's input is unchanged (no new version)
          yield* sql`UPDATE tool_search_feedback SET count = count + ${count}, last_seen = ${new Date(at)}
            WHERE catalog = ${catalog} AND tool_id = ${toolId} AND query = ${query}`
          continue
        }
        yield* sql`INSERT INTO tool_search_feedback AS f (catalog, tool_id, query, count, last_seen, seq)
          VALUES (${catalog}, ${toolId}, ${query}, ${count}, ${new Date(at)}, nextval('tool_search_feedback_writes'))
          ON CONFLICT (catalog, tool_id, query) DO UPDATE
          SET count = f.count + EXCLUDED.count, last_seen = EXCLUDED.last_seen, seq = EXCLUDED.seq`
        yield* sql`DELETE FROM tool_search_feedback WHERE catalog = ${catalog} AND tool_id = ${toolId}
          AND seq NOT IN (SELECT seq FROM tool_search_feedback WHERE catalog = ${catalog} AND tool_id = ${toolId}
            ORDER BY seq DESC LIMIT ${keep})`
        changed.add(catalog)
      }
    }
    for (const catalog of changed) {
      yield* sql`INSERT INTO tool_search_feedback_versions (catalog, version)
        VALUES (${catalog}, nextval('tool_search_feedback_writes'))
        ON CONFLICT (catalog) DO UPDATE SET version = EXCLUDED.version`
    }
  })
