/**
 * The store's settings, declared as a table of `Setting`s like core's `ToolSearchConfig`: which
 * database, how long an operation may wait for it, and what the audit trail keeps and for how long.
 *
 * @since 0.2.0
 */
import { AgentConfig, type SessionStore } from "@tool-search/agent"
import { Setting, ToolSearchConfig } from "@tool-search/core"
import { type Config, Duration, Effect, Layer, Option, Result, Schema } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import { Audit } from "./Audit.js"
import * as Database from "./Database.js"
import * as Feedback from "./Feedback.js"
import { Sessions } from "./Sessions.js"

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
  Database.Database | SqlClient | Sessions | SessionStore.SessionStore | Audit,
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
      ).pipe(Layer.provideMerge(Database.layer(store.database, { timeout: store.databaseTimeout })))
  ))
