/**
 * `tool-search audit [--database D] [--session ID] [--since T] [--limit N] [--json]`: reads the
 * audit trail — which tools the model revealed and called, in which session, and when — from the
 * database (`TOOL_SEARCH_DATABASE` or `--database`). `--since` takes a time (`2026-11-30`,
 * `2026-11-30T10:00:00Z`) or a duration back from now (`2 hours`). `--json` prints one JSON object
 * per entry.
 *
 * Reading changes nothing: no retention runs here, and a database that does not exist yet is not
 * created.
 *
 * This module also gives the demo its `--database`: the store for the demo's sessions and the audit
 * of its turns.
 *
 * @since 0.2.0
 */
import type { SessionStore, TurnEvent } from "@tool-search/agent"
import { Setting, type ToolCatalog } from "@tool-search/core"
import { Audit, AuditRecorder, Database, Sessions, StoreConfig } from "@tool-search/store"
import { Clock, type Config, Console, Duration, Effect, Layer, Option, Schema, Stream } from "effect"
import { Command, Flag } from "effect/cli"
import type { SqlClient } from "effect/sql/SqlClient"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { badValue, report, UsageError } from "../CliError.js"
import * as Flags from "../Flags.js"

// -----------------------------------------------------------------------------
// The database
// -----------------------------------------------------------------------------

/**
 * The `--database` flag (the demo has one too); absent: `TOOL_SEARCH_DATABASE`, then the default.
 *
 * @since 0.2.0
 * @category flags
 */
export const databaseFlag = Flag.String("database").pipe(
  Flag.withDescription(
    "a directory (embedded PostgreSQL), memory, or postgres://user:password@host:5432/db (default: TOOL_SEARCH_DATABASE, else the user's data directory)"
  ),
  Flag.optional
)

/** Reads `config` from the store settings: `--database`, then the environment, then the defaults. */
const readStore = <A>(
  command: string,
  database: Option.Option<string>,
  config: Config.Config<A>
): Effect.Effect<A, UsageError> =>
  Effect.gen(function*() {
    const flags = Option.match(database, { onNone: () => ({}), onSome: (value) => ({ database: value }) })
    yield* Setting.check([StoreConfig.settings], flags, (s) => `--${s.flag}`)
    return yield* Setting.read(config, [StoreConfig.settings], { flags })
  }).pipe(Effect.mapError((e) => badValue(command, Setting.explain(e), "settings")))

/**
 * The database and its timeout, by the one precedence: `--database`, the environment, the default.
 *
 * @since 0.2.0
 * @category settings
 */
export const settings = (
  command: string,
  database: Option.Option<string>
): Effect.Effect<StoreConfig.Settings, UsageError> => readStore(command, database, StoreConfig.config)

/**
 * The store settings when `--database` or `TOOL_SEARCH_DATABASE` names a database, and `None` when
 * neither does: the commands that keep state only when asked to (`demo`, `chat`, `run`) read their
 * database here, so they all honour the flag and the variable alike.
 *
 * @since 0.2.0
 * @category settings
 */
export const named = (
  command: string,
  database: Option.Option<string>
): Effect.Effect<Option.Option<StoreConfig.Settings>, UsageError> =>
  Effect.flatMap(
    readStore(command, database, Setting.options(StoreConfig.settings)),
    (given) =>
      Option.isNone(given.database)
        ? Effect.succeedNone
        : Effect.asSome(readStore(command, database, StoreConfig.config))
  )

/**
 * The store for the demo: its sessions and the audit of its turns, in the database the settings
 * name. (The demo's agent picks the session store up as its `SessionStore`.)
 *
 * @since 0.2.0
 * @category layers
 */
export const demoStore = (settings: StoreConfig.Settings): Layer.Layer<
  Sessions.Sessions | SessionStore.SessionStore | Audit.Audit | Database.Database | SqlClient,
  Database.DatabaseUnavailable
> =>
  Layer.mergeAll(
    Sessions.Sessions.layer(),
    Audit.Audit.layer({ payloads: settings.auditPayloads, retention: settings.auditRetention })
  ).pipe(Layer.provideMerge(Database.layer(settings.database, { timeout: settings.databaseTimeout })))

/**
 * Records the audit of `stream` when an `Audit` is provided; passes it through otherwise.
 *
 * @since 0.2.0
 * @category combinators
 */
export const recorded = <E, R>(
  stream: Stream.Stream<TurnEvent.TurnEvent, E, R>
): Stream.Stream<TurnEvent.TurnEvent, E, R | ToolCatalog.ToolCatalog> =>
  Stream.unwrap(Effect.map(
    Effect.serviceOption(Audit.Audit),
    Option.match({
      onNone: (): Stream.Stream<TurnEvent.TurnEvent, E, R | ToolCatalog.ToolCatalog> => stream,
      onSome: (audit) => AuditRecorder.tap(stream).pipe(Stream.provideService(Audit.Audit, audit))
    })
  ))

// -----------------------------------------------------------------------------
// Reading
// -----------------------------------------------------------------------------

const decodeDuration = Schema.decodeUnknownOption(Schema.DurationFromString)

/**
 * `--since`: a date or time, or a duration back from `now`.
 *
 * @since 0.2.0
 * @category parsing
 */
export const parseSince = (raw: string, now: number): number | string => {
  const duration = decodeDuration(raw.trim())
  if (Option.isSome(duration) && Duration.isFinite(duration.value)) return now - Duration.toMillis(duration.value)
  const time = /^\d{4}-\d{2}-\d{2}/.test(raw.trim()) ? Date.parse(raw.trim()) : Number.NaN
  return Number.isFinite(time)
    ? time
    : `--since: expected a time (2026-11-30, 2026-11-30T10:00:00Z) or a duration back from now (2 hours), got "${raw}"`
}

/**
 * An entry as one JSON object.
 *
 * @since 0.2.0
 * @category formatting
 */
export const toJson = (entry: Audit.Entry): Record<string, unknown> => {
  const at = new Date(entry.at).toISOString()
  switch (entry._tag) {
    case "Reveal":
      return {
        type: "reveal",
        at,
        session: entry.sessionId,
        turn: entry.turnId,
        path: entry.path,
        tool: entry.tool,
        query: entry.query,
        found: entry.found,
        activated: entry.activated
      }
    case "Call":
      return {
        type: "call",
        at,
        session: entry.sessionId,
        turn: entry.turnId,
        path: entry.path,
        callId: entry.callId,
        tool: entry.toolName,
        toolId: entry.toolId,
        source: entry.source,
        ...(entry.target === undefined || entry.target === null ? {} : { target: entry.target }),
        outcome: entry.outcome,
        durationMs: entry.durationMs,
        ...("arguments" in entry ? { arguments: entry.arguments } : {}),
        ...("result" in entry ? { result: entry.result } : {})
      }
    case "Gap":
      return {
        type: "gap",
        at,
        lostFrom: new Date(entry.lostFrom).toISOString(),
        lostUntil: new Date(entry.lostUntil).toISOString(),
        entries: entry.entries,
        reason: entry.reason
      }
  }
}

const short = (text: string, max = 80) => text.length > max ? `${text.slice(0, max - 1)}…` : text
const list = (names: ReadonlyArray<string>) => names.length === 0 ? "nothing" : short(names.join(", "), 100)

/**
 * An entry as one line for people.
 *
 * @since 0.2.0
 * @category formatting
 */
export const toLine = (entry: Audit.Entry): string => {
  const at = new Date(entry.at).toISOString().replace("T", " ").replace("Z", "")
  if (entry._tag === "Gap") {
    return `${at}  GAP: ${entry.entries} entries lost between ${new Date(entry.lostFrom).toISOString()} and ${
      new Date(entry.lostUntil).toISOString()
    } (${entry.reason})`
  }
  const unit = entry.path.length === 0 ? "" : ` [${entry.path.join("/")}]`
  const origin = `${at}  session ${entry.sessionId ?? "-"} · turn ${entry.turnId.slice(0, 8)}${unit}`
  return entry._tag === "Reveal"
    ? `${origin}  reveal  ${entry.tool} "${short(entry.query)}" → found ${list(entry.found)}; activated ${
      list(entry.activated)
    }`
    : `${origin}  call    ${entry.toolName}${
      entry.target === undefined || entry.target === null ? "" : ` ${short(entry.target)}`
    }${entry.source === null ? "" : ` (${entry.source})`}  ${entry.outcome}  ${Math.round(entry.durationMs)} ms`
}

/** Refuses a database that cannot hold a trail yet, instead of creating an empty one. */
const existing = (location: Database.Location): Effect.Effect<void, UsageError> => {
  if (location._tag === "Memory") {
    return Effect.fail(
      new UsageError({
        reason: "an in-memory database ends with its process: audit needs a directory or a URL",
        subject: "database"
      })
    )
  }
  if (location._tag === "Embedded" && !Fs.existsSync(Path.join(location.path, "PG_VERSION"))) {
    return Effect.fail(
      new UsageError({
        reason:
          `no database at ${location.path} yet: nothing was recorded there (run with --database ${location.path}, ` +
          "or set TOOL_SEARCH_DATABASE)",
        subject: "database"
      })
    )
  }
  return Effect.void
}

/**
 * The `audit` command.
 *
 * @since 0.2.0
 * @category commands
 */
export const command = Command.make("audit", {
  database: databaseFlag,
  session: Flag.String("session").pipe(Flag.withDescription("only this session"), Flag.optional),
  since: Flag.String("since").pipe(
    Flag.withDescription("from this time (2026-11-30T10:00:00Z) or this long ago (2 hours)"),
    Flag.optional
  ),
  limit: Flag.Int("limit").pipe(Flags.withDefault(1_000, "at most this many entries")),
  json: Flags.toggle("json", "one JSON object per entry")
}, ({ database, json, limit, session, since }) =>
  Effect.gen(function*() {
    const store = yield* settings("audit", database)
    const now = yield* Clock.currentTimeMillis
    const from = Option.isSome(since) ? parseSince(since.value, now) : undefined
    if (typeof from === "string") return yield* badValue("audit", from)
    if (limit < 1) return yield* badValue("audit", `--limit: expected at least 1, got ${limit}`)
    yield* existing(store.database)
    const entries = yield* Effect.gen(function*() {
      const audit = yield* Audit.Audit
      return yield* audit.entries({
        ...(Option.isSome(session) ? { sessionId: session.value } : {}),
        ...(from === undefined ? {} : { since: from }),
        limit
      })
    }).pipe(
      Effect.provide(
        // reading: no retention here (`forever`), whatever the writers keep
        Audit.Audit.layer({ retention: Duration.infinity }).pipe(
          Layer.provide(Database.layer(store.database, { timeout: store.databaseTimeout }))
        )
      ),
      Effect.mapError((e) => new UsageError({ reason: e.message, subject: "database" }))
    )
    if (json) {
      for (const entry of entries) yield* Console.log(JSON.stringify(toJson(entry)))
      return
    }
    if (entries.length === 0) {
      return yield* Console.log(`no audit entries in ${Database.describe(store.database)}`)
    }
    for (const entry of entries) yield* Console.log(toLine(entry))
  }).pipe(report("tool-search audit", { json }))).pipe(
    Command.withDescription("the audit trail: which tools the model revealed and called, per session, and when")
  )
