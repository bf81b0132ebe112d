/**
 * `tool-search serve --database`: the gateway's state in the store. Its settings are the store's
 * (`TOOL_SEARCH_DATABASE`, `TOOL_SEARCH_DATABASE_TIMEOUT`, `TOOL_SEARCH_AUDIT_PAYLOADS`,
 * `TOOL_SEARCH_AUDIT_RETENTION`) in serve's one precedence — a flag, the config file, the
 * environment, the default — except that serve's database is `off` unless one is named: a gateway
 * keeps its sessions in memory unless told otherwise.
 *
 * With a database, each HTTP session and its loaded tools live in the store's gateway tables, keyed
 * by an HMAC of the credential that opened the session and its id with the session secret
 * (`TOOL_SEARCH_SESSION_SECRET_FILE`, or one generated and kept in `session-secret` in the
 * journal's directory), with the gateway's session limits as the store's eviction; the gateway's
 * reveals and calls go to the audit trail; and search feedback (unless `TOOL_SEARCH_FEEDBACK=false`)
 * is the store's, shared by every instance on the database. What the store cannot write while the
 * database is away is held, and kept in the journal (`TOOL_SEARCH_JOURNAL`).
 *
 * @since 0.2.0
 */
import { Setting } from "@tool-search/core"
import { GatewayAudit, type GatewayConfig, SessionState } from "@tool-search/mcp"
import { Audit, Database, Feedback, GatewayStore, StoreConfig, type WriteBehind } from "@tool-search/store"
import { Duration, Effect, Layer, Option, type Redacted, Result, Schema } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import * as Path from "node:path"

// -----------------------------------------------------------------------------
// Settings
// -----------------------------------------------------------------------------

/** `off`, or a location as the store's own `database` setting reads it (one parser for both). */
const DatabaseOrOff: Schema.Codec<Database.Location | "off", string> = Setting.fromString(
  Schema.Union([Schema.Literal("off"), Schema.toType(StoreConfig.LocationFromString)]),
  (raw) => {
    if (raw.trim().toLowerCase() === "off") return Result.succeed("off")
    const location = Database.parse(raw.trim())
    return typeof location === "string" ? Result.fail(`${location}, or off`) : Result.succeed(location)
  },
  (value) => value === "off" ? "off" : Database.format(value)
)

/**
 * The store settings `serve` reads: the store's own, with a database that is `off` by default.
 *
 * @since 0.2.0
 * @category settings
 */
export const settings = {
  database: Setting.make("database", {
    schema: DatabaseOrOff,
    default: "off",
    values: "`off` | a directory (embedded PostgreSQL) | `memory` | `postgres://user:password@host:5432/db`",
    defaultText: "`off` for serve (sessions in memory)",
    description:
      "serve: keep each MCP session's loaded tools, the gateway's audit trail and search feedback in this database"
  }),
  databaseTimeout: StoreConfig.settings.databaseTimeout,
  journal: StoreConfig.settings.journal,
  journalBytes: StoreConfig.settings.journalBytes,
  heldBytes: StoreConfig.settings.heldBytes,
  journalSync: StoreConfig.settings.journalSync,
  auditPayloads: StoreConfig.settings.auditPayloads,
  auditRetention: StoreConfig.settings.auditRetention,
  sessionSecretFile: StoreConfig.settings.sessionSecretFile
}

/**
 * The store settings of `serve`, typed.
 *
 * @since 0.2.0
 * @category models
 */
export type Settings = Setting.Values<typeof settings>

/**
 * The database `settings` name, or `None` when it is `off`.
 *
 * @since 0.2.0
 * @category settings
 */
export const location = (settings: Settings): Option.Option<Database.Location> =>
  settings.database === "off" ? Option.none() : Option.some(settings.database)

/**
 * The file of the session secret: the setting's, or `session-secret` in the journal's directory
 * (else in `tool-search` in the user's data directory).
 *
 * @since 0.2.0
 * @category settings
 */
export const secretPath = (settings: Settings, where: Database.Location): string => {
  if (settings.sessionSecretFile !== "") return Path.resolve(settings.sessionSecretFile)
  const journal = StoreConfig.journalDirectory(settings.journal, where)
  return Path.join(journal ?? Path.dirname(Database.defaultPath()), "session-secret")
}

// -----------------------------------------------------------------------------
// The layer
// -----------------------------------------------------------------------------

/**
 * The gateway's state in the database in context: its `SessionState` (with the gateway's session
 * limits), its `GatewayAudit`, and with `feedback` the store's `SearchFeedback` (provide it under
 * the catalog).
 *
 * @since 0.2.0
 * @category layers
 */
export const layerOn = (
  store: Settings,
  gateway: Pick<GatewayConfig.Settings, "maxSessions" | "sessionIdleTimeout">,
  options: { readonly feedback: boolean; readonly secret: Redacted.Redacted<string> }
): Layer.Layer<SessionState.SessionState, never, Database.Database | SqlClient | WriteBehind.WriteBehind> =>
  Layer.mergeAll(
    Layer.effect(
      SessionState.SessionState,
      GatewayStore.sessions({
        maxSessions: gateway.maxSessions,
        idleTimeout: Duration.seconds(gateway.sessionIdleTimeout),
        secret: options.secret
      })
    ),
    Layer.effect(
      GatewayAudit.GatewayAudit,
      Effect.map(Effect.service(Audit.Audit), (a) => Option.some(GatewayStore.recorder(a)))
    ),
    options.feedback ? Feedback.layer() : Layer.empty
  ).pipe(Layer.provide(Audit.Audit.layer({ payloads: store.auditPayloads, retention: store.auditRetention })))

/**
 * `layerOn` over the database at `where`, opened (and migrated) with the layer, with the session
 * secret of `secretPath`; fails with `DatabaseUnavailable` naming the database (or the secret's file).
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (
  where: Database.Location,
  store: Settings,
  gateway: Pick<GatewayConfig.Settings, "maxSessions" | "sessionIdleTimeout">,
  options: { readonly feedback: boolean }
): Layer.Layer<SessionState.SessionState, Database.DatabaseUnavailable> =>
  Layer.unwrap(
    GatewayStore.secretFile(secretPath(store, where)).pipe(
      Effect.mapError((e) =>
        new Database.DatabaseUnavailable({
          database: Database.describe(where),
          reason: e.message,
          hint: "TOOL_SEARCH_SESSION_SECRET_FILE names the file of the secret session keys are made with"
        })
      ),
      Effect.map((secret) =>
        layerOn(store, gateway, { ...options, secret }).pipe(
          Layer.provide(Database.layer(where, StoreConfig.databaseOptions({ ...store, database: where })))
        )
      )
    )
  )
