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
import { Audit, AuditRecorder, Database, Sessions, StoreConfig, type WriteBehind } from "@tool-search/store"
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
  Sessions.Sessions | SessionStore.SessionStore | Audit.Audit | Database.Database | SqlClient | WriteBehind.WriteBehind,
  Database.DatabaseUnavailable
> =>
  Layer.mergeAll(
    Sessions.Sessions.layer(),
    Audit.Audit.layer({ payloads: settings.auditPayloads, retention: settings.auditRetention })
  ).pipe(Layer.provideMerge(Database.layer(settings.database, StoreConfig.databaseOptions(settings))))

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
  if (entry._tag === "Gap") {
    return {
      type: "gap",
      at,
      lostFrom: new Date(entry.lostFrom).toISOString(),
      lostUntil: new Date(entry.lostUntil).toISOString(),
      entries: entry.entries,
      reason: entry.reason
    }
  }
  const written = {
    ...(entry.id === undefined ? {} : { id: entry.id }),
    ...(entry.recordedAt === undefined ? {} : { recordedAt: new Date(entry.recordedAt).toISOString() }),
    ...(entry.principal === undefined || entry.principal === null ? {} : { principal: entry.principal })
  }
  return entry._tag === "Reveal"
    ? {
      type: "reveal",
      at,
      session: entry.sessionId,
      turn: entry.turnId,
      path: entry.path,
      tool: entry.tool,
      query: entry.query,
      found: entry.found,
      activated: entry.activated,
      ...written
    }
    : {
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
      ...("result" in entry ? { result: entry.result } : {}),
      ...written
    }
}

/**
 * Text from the trail as it may be shown on a terminal: control characters (a newline, an escape
 * sequence), and characters that move or reorder text (line and paragraph separators, bidi
 * overrides), are written as escapes, so a tool name or a query cannot forge a line or recolour
 * the output. A backslash is doubled, so an escape shown is always one.
 *
 * @since 0.2.0
 * @category formatting
 */
export const visible = (text: string): string =>
  text.replace(
    /[\\\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g,
    (c) => {
      switch (c) {
        case "\\":
          return "\\\\"
        case "\n":
          return "\\n"
        case "\r":
          return "\\r"
        case "\t":
          return "\\t"
        default: {
          const code = c.charCodeAt(0)
          return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`
        }
      }
    }
  )

const short = (text: string, max = 80) => {
  const shown = visible(text)
  return shown.length > max ? `${shown.slice(0, max - 1)}…` : shown
}
const list = (names: ReadonlyArray<string>) => names.length === 0 ? "nothing" : short(names.join(", "), 100)

/** How much later than its time an entry was written, when that is worth saying (over a minute). */
const late = (entry: Audit.Reveal | Audit.Call): string => {
  if (entry.recordedAt === undefined) return ""
  const seconds = Math.round((entry.recordedAt - entry.at) / 1000)
  if (seconds < 60) return ""
  const text = seconds < 3600
    ? `${Math.round(seconds / 60)} min`
    : seconds < 172_800
    ? `${(seconds / 3600).toFixed(1)} h`
    : `${Math.round(seconds / 86_400)} days`
  return `  (written ${text} later)`
}

/**
 * An entry as one line for people: every text from the trail escaped (`visible`).
 *
 * @since 0.2.0
 * @category formatting
 */
export const toLine = (entry: Audit.Entry): string => {
  const at = new Date(entry.at).toISOString().replace("T", " ").replace("Z", "")
  if (entry._tag === "Gap") {
    const count = entry.entries === null ? "an unknown number of" : String(entry.entries)
    return `${at}  GAP: ${count} entries lost between ${new Date(entry.lostFrom).toISOString()} and ${
      new Date(entry.lostUntil).toISOString()
    } (${short(entry.reason, 300)})`
  }
  const unit = entry.path.length === 0 ? "" : ` [${short(entry.path.join("/"))}]`
  const principal = entry.principal === undefined || entry.principal === null ? "" : ` · ${short(entry.principal)}`
  const origin = `${at}  session ${entry.sessionId === null ? "-" : short(entry.sessionId, 128)}${principal} · turn ${
    short(entry.turnId.slice(0, 8))
  }${unit}`
  return entry._tag === "Reveal"
    ? `${origin}  reveal  ${short(entry.tool)} "${short(entry.query)}" → found ${list(entry.found)}; activated ${
      list(entry.activated)
    }${late(entry)}`
    : `${origin}  call    ${short(entry.toolName)}${
      entry.target === undefined || entry.target === null ? "" : ` ${short(entry.target)}`
    }${entry.source === null ? "" : ` (${short(entry.source)})`}  ${short(entry.outcome)}  ${
      Math.round(entry.durationMs)
    } ms${late(entry)}`
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
 * `audit --prune`: the privileged operation of the trail — opening the database applies its
 * migrations, and the entries older than the retention are deleted by the owner's function.
 */
const retention = (store: StoreConfig.Settings) =>
  Effect.gen(function*() {
    yield* existing(store.database)
    const deleted = yield* Audit.pruneOlderThan(store.auditRetention).pipe(
      Effect.provide(Database.layer(store.database, { timeout: store.databaseTimeout })),
      Effect.mapError((e) =>
        new UsageError({
          reason: e._tag === "StoreUnavailable" && !e.retryable
            ? `${e.message}. Retention is the privileged operation of the audit trail: run it as the owner of ` +
              "the tables (see docs/persistence.md, \"Least privilege\")"
            : e.message,
          subject: "database"
        })
      )
    )
    const kept = Duration.isFinite(store.auditRetention) ? Duration.format(store.auditRetention) : "forever"
    yield* Console.log(
      `deleted ${deleted} audit entr${deleted === 1 ? "y" : "ies"} older than ${kept} from ${
        Database.describe(store.database)
      }`
    )
  })

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
  json: Flags.toggle("json", "one JSON object per entry"),
  prune: Flags.toggle(
    "prune",
    "retention: delete the entries older than TOOL_SEARCH_AUDIT_RETENTION, and apply pending migrations (run it as the owner of the tables)"
  )
}, ({ database, json, limit, prune, session, since }) =>
  Effect.gen(function*() {
    const store = yield* settings("audit", database)
    if (prune) return yield* retention(store)
    const now = yield* Clock.currentTimeMillis
    const from = Option.isSome(since) ? parseSince(since.value, now) : undefined
    if (typeof from === "string") return yield* badValue("audit", from)
    if (limit < 1) return yield* badValue("audit", `--limit: expected at least 1, got ${limit}`)
    yield* existing(store.database)
    // an embedded database a gateway holds is read through that gateway; reading changes nothing
    const entries = yield* Audit.readAt(store.database, {
      ...(Option.isSome(session) ? { sessionId: session.value } : {}),
      ...(from === undefined ? {} : { since: from }),
      limit
    }, { timeout: store.databaseTimeout }).pipe(
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
