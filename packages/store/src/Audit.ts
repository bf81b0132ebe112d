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
 * - An **intent** is a call about to run (`intent`, before an upstream is called): its outcome,
 *   when it comes, is the call with the same `id`. A call whose outcome never came (the process
 *   stopped during it) reads back with the outcome `unfinished`, so a side effect that happened is
 *   never without a record.
 *
 * Recording never waits for the database and never fails: entries are handed to the store's
 * `WriteBehind`, which writes them in batches, holds them (in memory and in its journal) while the
 * database is away, and writes what could not be kept as a **gap** (from, until, how many), so a
 * hole in the trail is visible. Each entry has an id, and writing it twice adds nothing. The
 * database refuses to change or remove an entry (`UPDATE`, `DELETE`, `TRUNCATE`; see `Migrations`);
 * only retention removes what is older than `TOOL_SEARCH_AUDIT_RETENTION`, through a function of
 * the tables' owner, run when the audit starts and every hour (by a role allowed to run it).
 *
 * `AuditRecorder` records from the executor's `TurnEvent` stream.
 *
 * @since 0.2.0
 */
import { Clock, Context, Duration, Effect, Layer, Ref, Schedule, Schema } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { randomUUID } from "node:crypto"
import * as Path from "node:path"
import * as Database from "./Database.js"
import * as Bounds from "./internal/auditBounds.js"
import * as AuditEndpoint from "./internal/auditEndpoint.js"
import * as AuditTable from "./internal/auditTable.js"
import { LOCK_FILE } from "./internal/embedded.js"
import type * as Held from "./internal/entry.js"
import * as ProcessLock from "./internal/processLock.js"
import { StoreUnavailable } from "./StoreError.js"
import { WriteBehind } from "./WriteBehind.js"

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
  /** The named credential whose session it is, when one is known (the gateway's principals). */
  readonly principal?: string | null
  /** The entry's id: recording it again adds nothing. Given when absent. */
  readonly id?: string
  /** When the database wrote it (read back only): later than `at` by as long as it was held. */
  readonly recordedAt?: number
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
 * A tool call about to run: recorded before the call, so that a call whose outcome never comes
 * still has a record. Its outcome is the `Call` with the same `id`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Intent extends Origin {
  readonly _tag: "Intent"
  /** Shared with the call's outcome. */
  readonly id: string
  readonly callId: string
  /** The tool as the model named it. */
  readonly toolName: string
  /** The catalog id, when the name resolved to a catalog tool. */
  readonly toolId: string | null
  readonly source: string | null
  /** What the call acts on, when it is a resource read or a prompt request. */
  readonly target?: string | null
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
  /**
   * `ok`, or the failure: `not-active`, `unknown`, `not-permitted`, `not-approved`, `failed`,
   * `defect`; read back, `unfinished` for a call whose intent was recorded and whose outcome never was.
   */
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
  /** How many entries were lost; `null` when that is not known (a journal whose end was damaged). */
  readonly entries: number | null
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
}

/**
 * What `Audit` provides.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** Appends an entry; never waits for the database, never fails (see the module documentation). */
  readonly record: (entry: Reveal | Call) => Effect.Effect<void>
  /** Records a call about to run; its outcome is the `Call` recorded later with the same `id`. */
  readonly intent: (entry: Intent) => Effect.Effect<void>
  /** Reads entries, oldest first, after writing what this process holds (when the database takes it). */
  readonly entries: (filter?: Filter) => Effect.Effect<ReadonlyArray<Entry>, StoreUnavailable>
  /**
   * Deletes the entries older than the retention, through the tables' owner's retention function;
   * returns how many. Fails for a role not allowed to run it.
   */
  readonly prune: Effect.Effect<number, StoreUnavailable>
  /** Audit entries held, waiting for the database. */
  readonly pending: Effect.Effect<number>
  /** Writes what is held now. */
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
  static readonly layer = (
    options: Options = {}
  ): Layer.Layer<Audit, never, Database.Database | SqlClient | WriteBehind> => Layer.effect(Audit, make(options))
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

/**
 * An audit entry as the store holds it: bounded, NUL-free, payloads as JSON text (only with
 * `payloads`), with an id.
 *
 * @since 0.2.0
 * @category constructors
 */
export const held = (entry: Reveal | Call | Intent, payloads: boolean): Held.Reveal | Held.Call | Held.Intent => {
  const origin = {
    id: Bounds.text(entry.id ?? randomUUID(), 200),
    at: Number.isFinite(entry.at) ? entry.at : 0,
    turnId: Bounds.text(entry.turnId),
    sessionId: entry.sessionId === null ? null : Bounds.text(entry.sessionId),
    path: entry.path.map((p) => Bounds.text(p)),
    principal: entry.principal === undefined || entry.principal === null ? null : Bounds.text(entry.principal)
  }
  if (entry._tag === "Reveal") {
    return {
      _tag: "Reveal",
      ...origin,
      tool: Bounds.text(entry.tool),
      query: Bounds.text(entry.query),
      found: Bounds.names(entry.found),
      activated: Bounds.names(entry.activated)
    }
  }
  const optional = (text: string | null | undefined) => text === null || text === undefined ? null : Bounds.text(text)
  const call = {
    ...origin,
    callId: Bounds.text(entry.callId),
    toolName: Bounds.text(entry.toolName),
    toolId: optional(entry.toolId),
    source: optional(entry.source),
    target: optional(entry.target)
  }
  if (entry._tag === "Intent") return { _tag: "Intent", ...call }
  return {
    _tag: "Call",
    ...call,
    outcome: Bounds.text(entry.outcome),
    durationMs: Number.isFinite(entry.durationMs) ? Math.max(0, entry.durationMs) : 0,
    arguments: payloads ? Bounds.payload(entry.arguments) : null,
    result: payloads ? Bounds.payload(entry.result) : null
  }
}

/**
 * Deletes the audit entries older than `retention` (none when it is infinite), through the
 * retention function of the tables' owner; returns how many. Fails, not retryable, for a role that
 * may not run it.
 *
 * @since 0.2.0
 * @category retention
 */
export const pruneOlderThan = (
  retention: Duration.Input
): Effect.Effect<number, StoreUnavailable, SqlClient | WriteBehind> =>
  Effect.gen(function*() {
    const keep = Duration.fromInputUnsafe(retention)
    if (!Duration.isFinite(keep)) return 0
    const sql = yield* SqlClient
    const writeBehind = yield* WriteBehind
    const cutoff = new Date((yield* Clock.currentTimeMillis) - Duration.toMillis(keep))
    return yield* writeBehind.direct(
      "deleting expired audit entries",
      Effect.map(
        sql<{ readonly n: string | number }>`SELECT tool_search_audit_prune(${cutoff}) AS n`,
        (rows) => Number(rows[0]?.n ?? 0)
      )
    )
  })

/**
 * Builds the audit over the database and write-behind in context; its retention fiber belongs to
 * the scope.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options = {}) =>
  Effect.gen(function*() {
    const writeBehind = yield* WriteBehind
    const sql = yield* SqlClient
    const payloads = options.payloads ?? false
    const retention = Duration.fromInputUnsafe(options.retention ?? Duration.days(90))

    const record = (entry: Reveal | Call): Effect.Effect<void> =>
      Effect.asVoid(writeBehind.offer(held(entry, payloads)))
    const intent = (entry: Intent): Effect.Effect<void> => Effect.asVoid(writeBehind.offer(held(entry, payloads)))

    const prune = pruneOlderThan(retention).pipe(
      Effect.provideService(WriteBehind, writeBehind),
      Effect.provideService(SqlClient, sql)
    )

    // Retention: at start and every hour, when this role may run it (the owner's function).
    if (Duration.isFinite(retention)) {
      const refused = yield* Ref.make(false)
      yield* Effect.forkScoped(
        prune.pipe(
          Effect.catch((e) =>
            e.retryable
              ? Effect.void
              : Effect.flatMap(Ref.getAndSet(refused, true), (told) =>
                told ? Effect.void : Effect.logInfo(
                  `Audit: retention does not run here (${e.reason}); run \`tool-search audit --prune\` as the ` +
                    "owner of the tables to delete expired entries"
                ))
          ),
          Effect.repeat(Schedule.spaced("1 hour"))
        )
      )
    }

    const entries = (filter: Filter = {}) =>
      Effect.gen(function*() {
        // read what this process recorded: write what it holds first (an outage fails the read anyway)
        yield* Effect.result(writeBehind.flush)
        return yield* writeBehind.direct("reading the audit trail", AuditTable.read(sql, filter))
      })

    return Audit.of({
      record,
      intent,
      entries,
      prune,
      pending: Effect.map(writeBehind.held, (h) => h.audit),
      flush: writeBehind.flush,
      payloads
    })
  })

/**
 * Reads the trail of the database at `location`, for people and tools that only read it: an
 * embedded database held by a running process (a gateway) is read through that process (it serves
 * its audit on loopback, behind a token in its lock file); otherwise the database is opened (and
 * migrated), read and closed.
 *
 * @since 0.2.0
 * @category reading
 */
export const readAt = (
  location: Database.Location,
  filter: Filter,
  options: Pick<Database.Options, "timeout"> = {}
): Effect.Effect<ReadonlyArray<Entry>, Database.DatabaseUnavailable | StoreUnavailable> => {
  if (location._tag === "Embedded") {
    const owner = ProcessLock.holder(Path.join(location.path, LOCK_FILE))
    const endpoint = Schema.decodeUnknownOption(AuditEndpoint.Endpoint)(owner?.extra?.audit)
    if (owner !== undefined && endpoint._tag === "Some") {
      return AuditEndpoint.read(endpoint.value, filter).pipe(
        Effect.mapError((reason) =>
          new StoreUnavailable({
            database: Database.describe(location),
            operation: `reading the audit trail through process ${owner.pid}, which holds it`,
            reason,
            retryable: true
          })
        )
      )
    }
  }
  return Effect.flatMap(make({ retention: Duration.infinity }), (audit) => audit.entries(filter)).pipe(
    Effect.scoped,
    Effect.provide(Database.layer(location, options))
  )
}
