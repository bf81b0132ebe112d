/**
 * The audit trail: an append-only record, in the database, of what the model revealed and what it
 * called — so an operator can answer "which tools did the model reveal and call in session X, and
 * when".
 *
 * - A **reveal** is one search: the session, the execution unit, the search tool, the query, what
 *   it found and what it activated.
 * - A **call** is one tool call: the tool as the model named it, its catalog id and source, the
 *   outcome (`ok`, or why it failed: `not-active`, `unknown`, `not-permitted`, `not-approved`,
 *   `failed`, `defect`) and its duration. A resource read or a prompt request (through the
 *   gateway) is a call too: its tool is the MCP method (`resources/read`, `prompts/get`) or the
 *   level tool, its `target` the URI or prompt name read. Arguments and results only when `payloads` is on
 *   (`TOOL_SEARCH_AUDIT_PAYLOADS`), since they can hold secrets; each is bounded (16 KiB of JSON,
 *   beyond that a truncated preview).
 *
 * Recording never fails a turn: an entry the database does not take is held in memory (at most
 * `pendingLimit`) and written back when the database answers again. Entries that could not be
 * held are counted, and the count is written as a **gap** (from, until, how many), so a hole in the
 * trail is visible. The tables refuse `UPDATE` (a trigger); entries older than the retention
 * (`TOOL_SEARCH_AUDIT_RETENTION`) are deleted when the audit starts and every hour.
 *
 * `AuditRecorder` records from the executor's `TurnEvent` stream.
 *
 * @since 0.2.0
 */
import { Clock, Context, Duration, Effect, Layer, Queue, Ref, Result, Schedule, Semaphore } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { Database } from "./Database.js"
import * as Bounds from "./internal/auditBounds.js"
import * as AuditTable from "./internal/auditTable.js"
import * as Reachability from "./internal/reachability.js"
import { guard, type StoreUnavailable } from "./StoreError.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * What identifies the turn an entry belongs to.
 *
 * @since 0.2.0
 * @category models
 */
export interface Origin {
  /** Epoch milliseconds. */
  readonly at: number
  /** One turn of the executor (a fork's entries carry its turn's id). */
  readonly turnId: string
  readonly sessionId: string | null
  /** The execution unit: empty for the turn, `["fork-1"]` for a sub-agent. */
  readonly path: ReadonlyArray<string>
}

/**
 * One search: what it found and what it activated.
 *
 * @since 0.2.0
 * @category models
 */
export interface Reveal extends Origin {
  readonly _tag: "Reveal"
  /** The search tool (`ToolSearch`, `discover_tools`, `search_tools`). */
  readonly tool: string
  readonly query: string
  /** Tool names found, in rank order. */
  readonly found: ReadonlyArray<string>
  /** Tool names activated by this search. */
  readonly activated: ReadonlyArray<string>
}

/**
 * One tool call and its outcome.
 *
 * @since 0.2.0
 * @category models
 */
export interface Call extends Origin {
  readonly _tag: "Call"
  readonly callId: string
  /** The tool as the model named it. */
  readonly toolName: string
  /** The catalog id, when the name resolved to a catalog tool. */
  readonly toolId: string | null
  readonly source: string | null
  /** What the call read, when it is a resource read or a prompt request: the URI, the prompt name. */
  readonly target?: string | null
  /** `ok`, or the failure: `not-active`, `unknown`, `not-permitted`, `not-approved`, `failed`, `defect`. */
  readonly outcome: string
  readonly durationMs: number
  /** Recorded only with payloads on. */
  readonly arguments?: unknown
  /** Recorded only with payloads on. */
  readonly result?: unknown
}

/**
 * Entries that were lost: the database was away and more entries came than the memory holds.
 *
 * @since 0.2.0
 * @category models
 */
export interface Gap {
  readonly _tag: "Gap"
  /** When the gap was written. */
  readonly at: number
  readonly lostFrom: number
  readonly lostUntil: number
  readonly entries: number
  readonly reason: string
}

/**
 * An entry of the trail.
 *
 * @since 0.2.0
 * @category models
 */
export type Entry = Reveal | Call | Gap

/**
 * Which entries to read.
 *
 * @since 0.2.0
 * @category models
 */
export interface Filter {
  readonly sessionId?: string
  /** Epoch milliseconds: entries at or after it, oldest first. Without it: the most recent entries. */
  readonly since?: number
  /** At most this many entries (default 1,000). */
  readonly limit?: number
}

/**
 * Options of the audit.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** Record arguments and results (default false). */
  readonly payloads?: boolean
  /** How long entries are kept (default 90 days; `Duration.infinity` keeps them). */
  readonly retention?: Duration.Input
  /** Entries that may wait in memory while the database is away (default 10,000). */
  readonly pendingLimit?: number
}

/**
 * What `Audit` provides.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** Appends an entry; never fails (see the module documentation). */
  readonly record: (entry: Reveal | Call) => Effect.Effect<void>
  /** Reads entries, oldest first. */
  readonly entries: (filter?: Filter) => Effect.Effect<ReadonlyArray<Entry>, StoreUnavailable>
  /** Deletes the entries older than the retention; returns how many. */
  readonly prune: Effect.Effect<number, StoreUnavailable>
  /** Entries held in memory, waiting for the database. */
  readonly pending: Effect.Effect<number>
  /** Writes the held entries now. */
  readonly flush: Effect.Effect<void, StoreUnavailable>
  /** Whether arguments and results are recorded. */
  readonly payloads: boolean
}

/**
 * The audit trail.
 *
 * @since 0.2.0
 * @category services
 */
export class Audit extends Context.Service<Audit, Service>()("@tool-search/store/Audit") {
  /** The audit in the database in context. */
  static readonly layer = (options: Options = {}): Layer.Layer<Audit, never, Database | SqlClient> =>
    Layer.effect(Audit, make(options))
}

// -----------------------------------------------------------------------------
// Bounds
// -----------------------------------------------------------------------------

/**
 * The largest payload kept whole, in characters of JSON; a larger one keeps a preview.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_PAYLOAD: number = Bounds.MAX_PAYLOAD

/**
 * A payload as JSON text for `jsonb`: bounded (`MAX_PAYLOAD`), and with no `\u0000` (which `jsonb`
 * refuses).
 *
 * @since 0.2.0
 * @category constructors
 */
export const payload: (value: unknown) => string | null = Bounds.payload

// -----------------------------------------------------------------------------
// Implementation
// -----------------------------------------------------------------------------

const defaultRetry = Schedule.min([Schedule.exponential("100 millis"), Schedule.spaced("30 seconds")])

interface Lost {
  readonly from: number
  readonly until: number
  readonly entries: number
}

/**
 * Builds the audit; its write-back and retention fibers belong to the scope.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options = {}) =>
  Effect.gen(function*() {
    const database = yield* Database
    const sql = yield* SqlClient
    const payloads = options.payloads ?? false
    const retention = Duration.fromInputUnsafe(options.retention ?? Duration.days(90))
    const limit = Math.max(1, options.pendingLimit ?? 10_000)
    const held = yield* Ref.make<ReadonlyArray<Reveal | Call>>([])
    const lostEntries = yield* Ref.make<Lost | undefined>(undefined)
    const wake = yield* Queue.sliding<void>(1)
    const { back, lost } = yield* Reachability.make(
      "Audit",
      database.label,
      "Entries are held in memory and written when the database answers"
    )

    const insert = (entry: Reveal | Call) => AuditTable.insert(sql, entry, payloads)

    /** Counts entries that could not be kept; the count becomes a gap row. */
    const drop = (entries: ReadonlyArray<Reveal | Call>) =>
      entries.length === 0 ? Effect.void : Ref.update(lostEntries, (l) => ({
        from: Math.min(l?.from ?? Infinity, ...entries.map((e) => e.at)),
        until: Math.max(l?.until ?? -Infinity, ...entries.map((e) => e.at)),
        entries: (l?.entries ?? 0) + entries.length
      }))

    const hold = (entry: Reveal | Call) =>
      Effect.gen(function*() {
        const over = yield* Ref.modify(
          held,
          (list): readonly [ReadonlyArray<Reveal | Call>, ReadonlyArray<Reveal | Call>] => {
            const next = [...list, entry]
            const excess = Math.max(0, next.length - limit)
            return [next.slice(0, excess), next.slice(excess)]
          }
        )
        yield* drop(over)
        yield* Queue.offer(wake, undefined)
      })

    const writeGap = Effect.gen(function*() {
      const gap = yield* Ref.get(lostEntries)
      if (gap === undefined) return
      const now = yield* Clock.currentTimeMillis
      yield* guard(database, "writing an audit gap")(
        sql`INSERT INTO tool_search_audit_gaps (at, lost_from, lost_until, entries, reason)
          VALUES (${new Date(now)}, ${new Date(gap.from)}, ${new Date(gap.until)}, ${gap.entries},
            ${"the database was unreachable and more entries came than the memory holds"})`
      )
      yield* Ref.update(lostEntries, (l) => l === gap ? undefined : l)
    })

    // one write-back at a time: the background fiber and a caller's `flush` never write the same entries twice
    const writing = yield* Semaphore.make(1)
    const flush: Effect.Effect<void, StoreUnavailable> = Effect.gen(function*() {
      for (;;) {
        const batch = (yield* Ref.get(held)).slice(0, 100)
        if (batch.length === 0) break
        const written = yield* guard(database, "writing held audit entries")(
          sql.withTransaction(Effect.forEach(batch, insert, { discard: true }))
        ).pipe(
          Effect.as(true),
          // A batch the database refuses (not an outage) is written one by one; the refused are lost.
          Effect.catchIf((e) => !e.retryable, () =>
            Effect.forEach(batch, (entry) =>
              guard(database, "writing an audit entry")(insert(entry)).pipe(
                Effect.catchIf((e) =>
                  !e.retryable, (e) =>
                  Effect.andThen(
                    Effect.logError(`Audit: ${e.message}; the entry is lost and counted as a gap`),
                    drop([entry])
                  ))
              ), { discard: true }).pipe(Effect.as(true)))
        )
        if (written) {
          yield* Ref.update(held, (list) =>
            list.slice(batch.length))
        }
      }
      yield* writeGap
    }).pipe(writing.withPermits(1))

    yield* Effect.forkScoped(Effect.forever(
      Queue.take(wake).pipe(
        Effect.andThen(flush.pipe(Effect.tapError(lost), Effect.retry(defaultRetry))),
        Effect.andThen(back),
        Effect.catch((e) => Effect.logError(`Audit: giving up on held entries: ${e.message}`))
      )
    ))
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        const before = (yield* Ref.get(held)).length
        if (before === 0 && (yield* Ref.get(lostEntries)) === undefined) return
        const result = yield* Effect.result(flush)
        if (Result.isFailure(result)) {
          yield* Effect.logError(
            `Audit: closing with ${(yield* Ref.get(held)).length} entries not written to ${database.label} ` +
              `(${result.failure.reason})`
          )
        }
      })
    )

    const record = (entry: Reveal | Call): Effect.Effect<void> =>
      Effect.gen(function*() {
        if ((yield* Ref.get(held)).length > 0) return yield* hold(entry) // keep the order: behind the held ones
        const result = yield* Effect.result(guard(database, "writing an audit entry")(insert(entry)))
        if (Result.isSuccess(result)) return yield* back
        if (!result.failure.retryable) {
          yield* Effect.logError(`Audit: ${result.failure.message}; the entry is lost and counted as a gap`)
          yield* drop([entry])
          return yield* Queue.offer(wake, undefined)
        }
        yield* lost(result.failure)
        yield* hold(entry)
      })

    const prune = Effect.gen(function*() {
      if (!Duration.isFinite(retention)) return 0
      const now = yield* Clock.currentTimeMillis
      const cutoff = new Date(now - Duration.toMillis(retention))
      return yield* guard(database, "deleting expired audit entries")(sql.withTransaction(Effect.gen(function*() {
        let deleted = 0
        for (const table of ["tool_search_audit_reveals", "tool_search_audit_calls", "tool_search_audit_gaps"]) {
          const rows = yield* sql<{ readonly n: number }>`
            WITH gone AS (DELETE FROM ${
            sql(table)
          } WHERE at < ${cutoff} RETURNING 1) SELECT count(*)::int AS n FROM gone`
          deleted += rows[0]?.n ?? 0
        }
        return deleted
      })))
    })

    // Retention: at start and every hour.
    if (Duration.isFinite(retention)) {
      yield* Effect.forkScoped(
        prune.pipe(
          Effect.catch((e) => Effect.logWarning(`Audit: retention: ${e.message}`)),
          Effect.repeat(Schedule.spaced("1 hour"))
        )
      )
    }

    const entries = (filter: Filter = {}) => guard(database, "reading the audit trail")(AuditTable.read(sql, filter))

    return Audit.of({
      record,
      entries,
      prune,
      pending: Effect.map(Ref.get(held), (list) => list.length),
      flush,
      payloads
    })
  })
