/**
 * The schema of the store, as numbered migrations run by `effect/sql`'s `Migrator` when the
 * database opens (`Database.layer`). Each migration runs once per database, in order, inside one
 * transaction with the record of it in `tool_search_migrations`; several instances starting at once
 * wait for each other (the migrator locks its table). A database migrated by a newer tool-search
 * than this one is refused (`SchemaTooNew`) rather than used with a schema this code does not know.
 *
 * Every table is prefixed `tool_search_`, so the store can share a database with other data.
 *
 * - `tool_search_sessions`: what a session carries over (`session` / `latest` policies), per
 *   namespace (the agent, the gateway), with its last access (for TTL eviction) and a sequence
 *   number of accesses across every instance (for LRU eviction; clocks may tie or drift).
 * - `tool_search_audit_reveals`, `tool_search_audit_calls`: the audit trail, append-only (an
 *   `UPDATE` is refused by a trigger; only retention deletes).
 *   A call's `target` (migration 4) names what it acted on when that is not a tool: the URI of a
 *   `resources/read`, the name of a `prompts/get`.
 * - `tool_search_audit_gaps`: audit entries that could not be written (the database was down for
 *   longer than the buffer holds), so a gap in the trail is visible.
 * - `tool_search_feedback`: search feedback, `(catalog, tool id, query)` with a count, the last
 *   time it was seen and a write sequence (most recent last); `tool_search_feedback_versions`: one
 *   version per catalog, changed by every write, so a reader knows at once whether to reload.
 *
 * @since 0.2.0
 */
import { Effect, Schema } from "effect"
import * as Migrator from "effect/sql/Migrator"
import { SqlClient } from "effect/sql/SqlClient"

/**
 * The table that records applied migrations.
 *
 * @since 0.2.0
 * @category schema
 */
export const TABLE = "tool_search_migrations"

/** Runs each statement on its own (the extended protocol takes one statement at a time). */
const statements = (...texts: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient
    for (const text of texts) yield* sql.unsafe(text)
  })

/**
 * Every migration, by `<id>_<name>`. Never edit one that has shipped: add the next.
 *
 * @since 0.2.0
 * @category schema
 */
export const migrations = {
  "1_sessions": statements(
    `CREATE TABLE tool_search_sessions (
      namespace text NOT NULL,
      session_id text NOT NULL,
      accumulated text[] NOT NULL DEFAULT '{}',
      latest text[] NOT NULL DEFAULT '{}',
      version bigint NOT NULL DEFAULT 1,
      created_at timestamptz NOT NULL,
      last_access timestamptz NOT NULL,
      access_seq bigint NOT NULL,
      PRIMARY KEY (namespace, session_id)
    )`,
    `CREATE SEQUENCE tool_search_sessions_access`,
    `CREATE INDEX tool_search_sessions_last_access ON tool_search_sessions (namespace, last_access)`,
    `CREATE INDEX tool_search_sessions_recency ON tool_search_sessions (namespace, access_seq)`
  ),
  "2_audit": statements(
    // one sequence for every audit table: ids order entries across tables as they were written
    `CREATE SEQUENCE tool_search_audit_ids`,
    `CREATE TABLE tool_search_audit_reveals (
      id bigint PRIMARY KEY DEFAULT nextval('tool_search_audit_ids'),
      at timestamptz NOT NULL,
      turn_id text NOT NULL,
      session_id text,
      unit_path text NOT NULL,
      tool text NOT NULL,
      query text NOT NULL,
      found text[] NOT NULL,
      activated text[] NOT NULL
    )`,
    `CREATE INDEX tool_search_audit_reveals_at ON tool_search_audit_reveals (at)`,
    `CREATE INDEX tool_search_audit_reveals_session ON tool_search_audit_reveals (session_id, at)`,
    `CREATE TABLE tool_search_audit_calls (
      id bigint PRIMARY KEY DEFAULT nextval('tool_search_audit_ids'),
      at timestamptz NOT NULL,
      turn_id text NOT NULL,
      session_id text,
      unit_path text NOT NULL,
      call_id text NOT NULL,
      tool_name text NOT NULL,
      tool_id text,
      source text,
      outcome text NOT NULL,
      duration_ms double precision NOT NULL,
      arguments jsonb,
      result jsonb
    )`,
    `CREATE INDEX tool_search_audit_calls_at ON tool_search_audit_calls (at)`,
    `CREATE INDEX tool_search_audit_calls_session ON tool_search_audit_calls (session_id, at)`,
    `CREATE TABLE tool_search_audit_gaps (
      id bigint PRIMARY KEY DEFAULT nextval('tool_search_audit_ids'),
      at timestamptz NOT NULL,
      lost_from timestamptz NOT NULL,
      lost_until timestamptz NOT NULL,
      entries bigint NOT NULL,
      reason text NOT NULL
    )`,
    `CREATE FUNCTION tool_search_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'the audit trail is append-only: % on % refused', TG_OP, TG_TABLE_NAME;
    END
    $$`,
    ...["reveals", "calls", "gaps"].map((t) =>
      `CREATE TRIGGER tool_search_audit_${t}_append_only BEFORE UPDATE ON tool_search_audit_${t}
       FOR EACH ROW EXECUTE FUNCTION tool_search_audit_append_only()`
    )
  ),
  "3_search_feedback": statements(
    `CREATE SEQUENCE tool_search_feedback_writes`,
    `CREATE TABLE tool_search_feedback (
      catalog text NOT NULL,
      tool_id text NOT NULL,
      query text NOT NULL,
      count bigint NOT NULL DEFAULT 1,
      last_seen timestamptz NOT NULL,
      seq bigint NOT NULL,
      PRIMARY KEY (catalog, tool_id, query)
    )`,
    `CREATE INDEX tool_search_feedback_recent ON tool_search_feedback (catalog, tool_id, seq)`,
    `CREATE TABLE tool_search_feedback_versions (
      catalog text PRIMARY KEY,
      version bigint NOT NULL
    )`
  ),
  // what a resource read or a prompt request acted on (its URI, its name); null for tool calls
  "4_audit_call_target": statements(`ALTER TABLE tool_search_audit_calls ADD COLUMN target text`)
} satisfies Record<string, Effect.Effect<void, unknown, SqlClient>>

/**
 * The schema version this code knows: the highest migration id.
 *
 * @since 0.2.0
 * @category schema
 */
export const latest: number = Math.max(...Object.keys(migrations).map((key) => Number.parseInt(key, 10)))

/**
 * The database's schema is newer than this code knows.
 *
 * @since 0.2.0
 * @category errors
 */
export class SchemaTooNew extends Schema.TaggedError<SchemaTooNew>()("SchemaTooNew", {
  version: Schema.Number,
  known: Schema.Number
}) {
  override get message(): string {
    return `its schema is at version ${this.version}, newer than this tool-search knows (${this.known})`
  }
}

const migrate = Migrator.make({})

/**
 * Applies the pending migrations; returns those applied, as `[id, name]`.
 *
 * @since 0.2.0
 * @category schema
 */
export const run = Effect.gen(function*() {
  const applied = yield* migrate({ loader: Migrator.fromRecord(migrations), table: TABLE })
  const version = yield* current
  if (version > latest) return yield* new SchemaTooNew({ version, known: latest })
  return applied
})

/**
 * The database's schema version (0 before any migration).
 *
 * @since 0.2.0
 * @category schema
 */
export const current = Effect.gen(function*() {
  const sql = yield* SqlClient
  const rows = yield* sql<{ readonly version: number | null }>`SELECT max(migration_id) AS version FROM ${sql(TABLE)}`
  return rows[0]?.version ?? 0
})
