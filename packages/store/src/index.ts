/**
 * tool-search store: state shared by processes and kept across restarts, in PostgreSQL through
 * `effect/sql` — an embedded engine by default (PGlite, no server), a PostgreSQL server for several
 * instances. Session activations, the audit trail, search feedback.
 *
 * @since 0.2.0
 */

/** The database: where it is, opening it, its errors. */
export * as Database from "./Database.js"
/** The schema, as versioned migrations. */
export * as Migrations from "./Migrations.js"
/** The store's settings. */
export * as StoreConfig from "./StoreConfig.js"
/** Errors of a running store. */
export * as StoreError from "./StoreError.js"
/** The agent's SessionStore in the database. */
export * as Sessions from "./Sessions.js"
/** The audit trail: reveals and calls, append-only. */
export * as Audit from "./Audit.js"
/** Records the audit trail from the executor's event stream. */
export * as AuditRecorder from "./AuditRecorder.js"
/** Core's SearchFeedback in the database. */
export * as Feedback from "./Feedback.js"
/** The MCP gateway's sessions and audit entries in the store. */
export * as GatewayStore from "./GatewayStore.js"
