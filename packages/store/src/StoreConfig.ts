/**
 * The store's settings, declared as a table of `Setting`s like core's `ToolSearchConfig`: which
 * database, how long an operation may wait for it, what the store holds while it is away (in
 * memory, and in a journal on disk), and what the audit trail keeps and for how long.
 *
 * @since 0.2.0
 */
import { AgentConfig, type SessionStore } from "@tool-search/agent"
import { Setting, ToolSearchConfig } from "@tool-search/core"
import { type Config, Duration, Effect, Layer, Option, Result, Schema } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import * as Path from "node:path"
import { Audit } from "./Audit.js"
import * as Database from "./Database.js"
import * as Feedback from "./Feedback.js"
import { JOURNAL_DIRECTORY } from "./internal/embedded.js"
import { Sessions } from "./Sessions.js"
import type * as WriteBehind from "./WriteBehind.js"

// -----------------------------------------------------------------------------
// Schemas
// -----------------------------------------------------------------------------

const LocationSchema = Schema.Union([
  Schema.TaggedStruct("Embedded", { path: Schema.String }),
  Schema.TaggedStruct("Memory", {}),
  Schema.TaggedStruct("Postgres", { url: Schema.Redacted(Schema.String) })
])

/**
 * A database location as `TOOL_SEARCH_DATABASE` writes it (see `Database.parse`).
 *
 * @since 0.2.0
 * @category schemas
 */
export const LocationFromString: Schema.Codec<Database.Location, string> = Setting.fromString(
  LocationSchema,
  (raw) => {
    const location = Database.parse(raw)
    return typeof location === "string" ? Result.fail(location) : Result.succeed(location)
  },
  Database.format
)

const decodeDuration = Schema.decodeUnknownOption(Schema.DurationFromString)

/** A positive, finite duration (`5 seconds`), or with `forever` an infinite one. */
const duration = (options: { readonly forever: boolean }): Schema.Codec<Duration.Duration, string> =>
  Setting.fromString(
    Schema.Duration,
    (raw) => {
      const text = raw.trim()
      if (options.forever && text.toLowerCase() === "forever") return Result.succeed(Duration.infinity)
      const value = decodeDuration(text)
      return Option.isSome(value) && Duration.isFinite(value.value) && Duration.toMillis(value.value) > 0
        ? Result.succeed(value.value)
        : Result.fail(`expected a positive duration, e.g. 30 seconds${options.forever ? ", or forever" : ""}`)
    },
    (value) => Duration.isFinite(value) ? `${Duration.toMillis(value)} millis` : "forever"
  )

/**
 * Where the journal is: a directory, `off`, or `auto` (by the database: see `journalDirectory`).
 *
 * @since 0.2.0
 * @category models
 */
export type Journal = { readonly _tag: "Directory"; readonly path: string } | "off" | "auto"

const JournalSchema = Schema.Union([
  Schema.TaggedStruct("Directory", { path: Schema.String }),
  Schema.Literal("off"),
  Schema.Literal("auto")
])

/**
 * A journal setting as `TOOL_SEARCH_JOURNAL` writes it: `auto`, `off`, or a directory.
 *
 * @since 0.2.0
 * @category schemas
 */
export const JournalFromString: Schema.Codec<Journal, string> = Setting.fromString(
  JournalSchema,
  (raw) => {
    const text = raw.trim()
    if (text === "") return Result.fail("expected a directory, auto or off")
    if (text.toLowerCase() === "off" || text.toLowerCase() === "auto") {
      return Result.succeed(text.toLowerCase() as "off" | "auto")
    }
    const location = Database.parse(text)
    return typeof location !== "string" && location._tag === "Embedded"
      ? Result.succeed({ _tag: "Directory", path: location.path })
      : Result.fail("expected a directory, auto or off")
  },
  (value) => typeof value === "string" ? value : value.path
)

/**
 * The journal's directory for `database`: the setting's, or with `auto` a `journal` directory
 * inside an embedded database's, `tool-search/journal` in the user's data directory for a
 * PostgreSQL server, and none for a database in memory.
 *
 * @since 0.2.0
 * @category settings
 */
export const journalDirectory = (journal: Journal, database: Database.Location): string | undefined => {
  if (journal === "off") return undefined
  if (journal !== "auto") return journal.path
  switch (database._tag) {
    case "Memory":
      return undefined
    case "Embedded":
      return Path.join(database.path, JOURNAL_DIRECTORY)
    case "Postgres":
      return Path.join(Path.dirname(Database.defaultPath()), "journal")
  }
}

const MEBIBYTE = 1024 * 1024

// -----------------------------------------------------------------------------
// The table
// -----------------------------------------------------------------------------

/**
 * Every store setting: its variable, flag, values, default and description.
 *
 * @since 0.2.0
 * @category settings
 */
export const settings = {
  database: Setting.make("database", {
    schema: LocationFromString,
    default: { _tag: "Embedded", path: Database.defaultPath() },
    values: "a directory (embedded PostgreSQL) | `memory` | `postgres://user:password@host:5432/db`",
    defaultText: "`tool-search/database` in the user's data directory (`~/.local/share` or `$XDG_DATA_HOME`)",
    description:
      "where sessions, the audit trail and search feedback are kept (when a command uses the store; `serve` uses one only when it is set, `off` by default)"
  }),
  databaseTimeout: Setting.make("databaseTimeout", {
    schema: duration({ forever: false }),
    default: Duration.seconds(5),
    values: "a duration",
    defaultText: "5 seconds",
    description: "the longest one database operation may take (connecting, reading a session, writing)"
  }),
  journal: Setting.make("journal", {
    schema: JournalFromString,
    default: "auto",
    values: "a directory | `auto` | `off`",
    defaultText:
      "`auto`: `journal` in an embedded database's directory; `tool-search/journal` in the user's data directory for a PostgreSQL server; none in memory",
    description:
      "where what the store could not write yet is kept on disk (written by the next process that opens it): it survives a stop or a kill during a database outage"
  }),
  journalBytes: Setting.make("journalBytes", {
    schema: Setting.Int(MEBIBYTE),
    default: 1024 * MEBIBYTE,
    values: "bytes ≥ 1048576",
    defaultText: "1073741824 (1 GiB)",
    description: "the most the journal holds; beyond it new entries are counted as an audit gap"
  }),
  heldBytes: Setting.make("heldBytes", {
    schema: Setting.Int(64 * 1024),
    default: 64 * MEBIBYTE,
    values: "bytes ≥ 65536",
    defaultText: "67108864 (64 MiB)",
    description:
      "the most held in memory while the database does not answer; beyond it entries wait in the journal (without one, they are counted as an audit gap)"
  }),
  journalSync: Setting.make("journalSync", {
    schema: duration({ forever: false }),
    default: Duration.seconds(1),
    values: "a duration",
    defaultText: "1 second",
    description:
      "how often the journal is synced to disk (every entry is written to it at once: a killed process loses none; a power loss, at most this much)"
  }),
  sessionSecretFile: Setting.make("sessionSecretFile", {
    schema: Setting.fromString(
      Schema.String as Schema.Codec<string>,
      (raw) => raw.trim() === "" ? Result.fail("expected a file") : Result.succeed(raw.trim()),
      (value) => value
    ),
    default: "",
    values: "a file",
    defaultText:
      "`session-secret` in the journal's directory (else in `tool-search` in the user's data directory), created with a random secret when missing",
    description:
      "serve --database: the secret stored session keys are an HMAC with (of the credential and the session id); instances serving the same sessions need the same one"
  }),
  auditPayloads: Setting.make("auditPayloads", {
    schema: Setting.Boolean,
    default: false,
    values: "boolean",
    description: "also record tool-call arguments and results in the audit trail (they may hold secrets)"
  }),
  auditRetention: Setting.make("auditRetention", {
    schema: duration({ forever: true }),
    default: Duration.days(90),
    values: "a duration | `forever`",
    defaultText: "90 days",
    description: "how long audit entries are kept; older ones are deleted at start and every hour"
  })
}

/**
 * The store settings, typed.
 *
 * @since 0.2.0
 * @category models
 */
export type Settings = Setting.Values<typeof settings>

/**
 * The options of `Database.layer` the settings give: the timeout, and what is held where while
 * the database does not answer.
 *
 * @since 0.2.0
 * @category settings
 */
export const databaseOptions = (
  store: Pick<Settings, "database" | "databaseTimeout" | "journal" | "journalBytes" | "heldBytes" | "journalSync">
): Database.Options => ({
  timeout: store.databaseTimeout,
  writeBehind: {
    journal: journalDirectory(store.journal, store.database),
    journalBytes: store.journalBytes,
    heldBytes: store.heldBytes,
    journalSync: store.journalSync
  } satisfies WriteBehind.Options
})

/**
 * Every store setting from the `ConfigProvider` in context, defaults applied.
 *
 * @since 0.2.0
 * @category settings
 */
export const config: Config.Config<Settings> = Setting.values(settings)

/**
 * The whole store from the settings (the `ConfigProvider` in context, the environment by default):
 * the database (`TOOL_SEARCH_DATABASE`, migrated), the session store with the agent's eviction
 * (`TOOL_SEARCH_EVICTION`) — which `Executor.layer` picks up as its `SessionStore` — the audit, and
 * core's `SearchFeedback` in the database unless `TOOL_SEARCH_FEEDBACK=false` (provide this layer
 * under the catalog for its searches to learn from every instance).
 *
 * @since 0.2.0
 * @category layers
 */
export const layerConfig = (
  options: { readonly namespace?: string } = {}
): Layer.Layer<
  Database.Database | SqlClient | WriteBehind.WriteBehind | Sessions | SessionStore.SessionStore | Audit,
  Database.DatabaseUnavailable | Config.ConfigError
> =>
  Layer.unwrap(Effect.map(
    Effect.all([config, AgentConfig.config, ToolSearchConfig.settings.feedback.config]),
    ([store, agent, feedback]) =>
      Layer.mergeAll(
        Sessions.layer({
          eviction: agent.eviction,
          ...(options.namespace === undefined ? {} : { namespace: options.namespace })
        }),
        Audit.layer({ payloads: store.auditPayloads, retention: store.auditRetention }),
        feedback ? Feedback.layer() : Layer.empty
      ).pipe(Layer.provideMerge(Database.layer(store.database, databaseOptions(store))))
  ))
