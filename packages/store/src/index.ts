/**
 * tool-search store: state shared by processes and kept across restarts, in PostgreSQL through
 * `effect/sql` — an embedded engine by default (PGlite, no server), a PostgreSQL server for several
 * instances. Session activations, the audit trail, search feedback.
 *
 * The modules, by category:
 *
 * - **database** — `Database`, `Migrations`, `WriteBehind`, `StoreError`
 * - **settings** — `StoreConfig`
 * - **stores** — `Sessions`, `Audit`, `AuditRecorder`, `Feedback`, `GatewayStore`
 * - **errors** — every error class, also at the top level
 *
 * Everything else is in `internal/` and is not part of the API.
 *
 * @since 0.2.0
 */

// -----------------------------------------------------------------------------
// Database
// -----------------------------------------------------------------------------

/**
 * The database: where it is, opening it, its errors.
 *
 * @since 0.2.0
 * @category database
 */
export * as Database from "./Database.js"

/**
 * The schema, as versioned migrations.
 *
 * @since 0.2.0
 * @category database
 */
export * as Migrations from "./Migrations.js"

/**
 * What the store writes off the request path: batches, held while the database is away, journaled.
 *
 * @since 0.2.0
 * @category database
 */
export * as WriteBehind from "./WriteBehind.js"

/**
 * Errors of a running store.
 *
 * @since 0.2.0
 * @category database
 */
export * as StoreError from "./StoreError.js"

// -----------------------------------------------------------------------------
// Settings
// -----------------------------------------------------------------------------

/**
 * The store's settings.
 *
 * @since 0.2.0
 * @category settings
 */
export * as StoreConfig from "./StoreConfig.js"

// -----------------------------------------------------------------------------
// Stores
// -----------------------------------------------------------------------------

/**
 * The agent's SessionStore in the database.
 *
 * @since 0.2.0
 * @category stores
 */
export * as Sessions from "./Sessions.js"

/**
 * The audit trail: reveals and calls, append-only.
 *
 * @since 0.2.0
 * @category stores
 */
export * as Audit from "./Audit.js"

/**
 * Records the audit trail from the executor's event stream.
 *
 * @since 0.2.0
 * @category stores
 */
export * as AuditRecorder from "./AuditRecorder.js"

/**
 * Core's SearchFeedback in the database.
 *
 * @since 0.2.0
 * @category stores
 */
export * as Feedback from "./Feedback.js"

/**
 * The MCP gateway's sessions and audit entries in the store.
 *
 * @since 0.2.0
 * @category stores
 */
export * as GatewayStore from "./GatewayStore.js"

// -----------------------------------------------------------------------------
// Errors, also at the top level so that declaration files of dependent code can name them
// -----------------------------------------------------------------------------

export {
  /**
   * The database could not be opened: which one, why, and what to do about it.
   *
   * @since 0.2.0
   * @category errors
   */
  DatabaseUnavailable
} from "./Database.js"

export {
  /**
   * The session secret could not be read or created.
   *
   * @since 0.2.0
   * @category errors
   */
  SecretUnavailable
} from "./GatewayStore.js"

export {
  /**
   * The database's schema is newer than this code knows.
   *
   * @since 0.2.0
   * @category errors
   */
  SchemaTooNew
} from "./Migrations.js"

export {
  /**
   * The journal's directory could not be opened.
   *
   * @since 0.2.0
   * @category errors
   */
  JournalUnavailable
} from "./WriteBehind.js"

export {
  /**
   * An operation on the database failed or timed out.
   *
   * @since 0.2.0
   * @category errors
   */
  StoreUnavailable
} from "./StoreError.js"
