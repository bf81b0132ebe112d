/**
 * `tool-search serve --database`: the gateway's state in the store. Its settings are the store's
 * (`TOOL_SEARCH_DATABASE`, `TOOL_SEARCH_DATABASE_TIMEOUT`, `TOOL_SEARCH_AUDIT_PAYLOADS`,
 * `TOOL_SEARCH_AUDIT_RETENTION`) in serve's one precedence — a flag, the config file, the
 * environment, the default — except that serve's database is `off` unless one is named: a gateway
 * keeps its sessions in memory unless told otherwise.
 *
 * With a database, each HTTP session's loaded tools live in the store's `gateway` namespace, bound
 * to the credential that opened the session, with the gateway's session limits as the store's
 * eviction; the gateway's reveals and calls go to the audit trail; and search feedback (unless
 * `TOOL_SEARCH_FEEDBACK=false`) is the store's, shared by every instance on the database.
 *
 * @since 0.2.0
 */
import { Setting } from "@tool-search/core"
import { GatewayAudit, type GatewayConfig, SessionState } from "@tool-search/mcp"
import { Audit, Database, Feedback, GatewayStore, StoreConfig } from "@tool-search/store"
import { Duration, Effect, Layer, Option, Result, Schema } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"

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
  auditPayloads: StoreConfig.settings.auditPayloads,
  auditRetention: StoreConfig.settings.auditRetention
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
  options: { readonly feedback: boolean }
): Layer.Layer<SessionState.SessionState, never, Database.Database | SqlClient> =>
  Layer.mergeAll(
    Layer.effect(
      SessionState.SessionState,
      GatewayStore.sessions({
        maxSessions: gateway.maxSessions,
        idleTimeout: Duration.seconds(gateway.sessionIdleTimeout)
      })
    ),
    Layer.effect(
      GatewayAudit.GatewayAudit,
      Effect.map(Effect.service(Audit.Audit), (a) => Option.some(GatewayStore.recorder(a)))
    ),
    options.feedback ? Feedback.layer() : Layer.empty
  ).pipe(Layer.provide(Audit.Audit.layer({ payloads: store.auditPayloads, retention: store.auditRetention })))

/**
 * `layerOn` over the database at `where`, opened (and migrated) with the layer; fails with
 * `DatabaseUnavailable` naming the database.
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
  layerOn(store, gateway, options).pipe(Layer.provide(Database.layer(where, { timeout: store.databaseTimeout })))
