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
 * The tables of the audit trail: append-only.
 *
 * @since 0.2.0
 * @category schema
 */
export const AUDIT_TABLES: ReadonlyArray<string> = [
  "tool_search_audit_reveals",
  "tool_search_audit_calls",
  "tool_search_audit_gaps",
  "tool_search_audit_intents"
]

/**
 * Append-only for every role but the owner's retention: `UPDATE`, `DELETE` and `TRUNCATE` of an
 * audit table are refused by triggers; only `tool_search_audit_prune(before)` deletes, a
 * `SECURITY DEFINER` function of the tables' owner that no other role may run unless granted. Each
 * inserted row gets its id from the shared sequence and `recorded_at` from the server's clock (a
 * row cannot choose where it sorts, and a late one shows it), and a row dated before
 * `max_backdate` or after `max_ahead` of the server's time (`tool_search_audit_policy`) is
 * refused. The functions name their schema, so a role cannot shadow the policy with a table of
 * its own. A role that does not own the tables cannot drop or disable the triggers.
 */
const appendOnly = Effect.gen(function*() {
  const sql = yield* SqlClient
  const rows = yield* sql<{ readonly schema: string }>`SELECT current_schema() AS schema`
  const schema = `"${(rows[0]?.schema ?? "public").replaceAll("\"", "\"\"")}"`
  const path = `SET search_path = ${schema}, pg_catalog`
  yield* statements(
    `CREATE TABLE tool_search_audit_policy (
      singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      max_backdate interval NOT NULL,
      max_ahead interval NOT NULL
    )`,
    `INSERT INTO tool_search_audit_policy (max_backdate, max_ahead) VALUES ('7 days', '5 minutes')`,
    `GRANT SELECT ON tool_search_audit_policy TO PUBLIC`,
    `CREATE OR REPLACE FUNCTION tool_search_audit_append_only() RETURNS trigger LANGUAGE plpgsql ${path} AS $$
    BEGIN
      IF TG_OP = 'DELETE' AND current_setting('tool_search.pruning', true) = 'on'
        AND (SELECT relowner FROM pg_class WHERE oid = TG_RELID) = (SELECT oid FROM pg_roles WHERE rolname = current_user)
      THEN
        RETURN OLD;
      END IF;
      RAISE EXCEPTION 'the audit trail is append-only: % on % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege',
          HINT = 'entries leave only by retention (tool-search audit --prune, as the owner of the tables)';
    END
    $$`,
    `CREATE FUNCTION tool_search_audit_stamp() RETURNS trigger LANGUAGE plpgsql ${path} AS $$
    DECLARE
      policy tool_search_audit_policy%ROWTYPE;
    BEGIN
      SELECT * INTO policy FROM tool_search_audit_policy;
      NEW.id := nextval('tool_search_audit_ids');
      NEW.recorded_at := now();
      IF NEW.at < now() - policy.max_backdate OR NEW.at > now() + policy.max_ahead THEN
        RAISE EXCEPTION 'the audit trail refuses an entry dated %: outside [now - %, now + %] (tool_search_audit_policy)',
          NEW.at, policy.max_backdate, policy.max_ahead
          USING ERRCODE = 'check_violation';
      END IF;
      RETURN NEW;
    END
    $$`,
    ...AUDIT_TABLES.flatMap((table) => [
      `DROP TRIGGER IF EXISTS ${table}_append_only ON ${table}`,
      `CREATE TRIGGER ${table}_append_only BEFORE UPDATE OR DELETE ON ${table}
       FOR EACH ROW EXECUTE FUNCTION tool_search_audit_append_only()`,
      `CREATE TRIGGER ${table}_no_truncate BEFORE TRUNCATE ON ${table}
       FOR EACH STATEMENT EXECUTE FUNCTION tool_search_audit_append_only()`,
      `CREATE TRIGGER ${table}_stamp BEFORE INSERT ON ${table}
       FOR EACH ROW EXECUTE FUNCTION tool_search_audit_stamp()`
    ]),
    `CREATE FUNCTION tool_search_audit_prune(cutoff timestamptz) RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER ${path} AS $$
    DECLARE
      total bigint := 0;
      n bigint;
    BEGIN
      PERFORM set_config('tool_search.pruning', 'on', true);
      ${
      AUDIT_TABLES.map((table) =>
        `DELETE FROM ${table} WHERE at < cutoff; GET DIAGNOSTICS n = ROW_COUNT; total := total + n;`
      )
        .join("\n      ")
    }
      PERFORM set_config('tool_search.pruning', 'off', true);
      RETURN total;
    END
    $$`,
    `REVOKE ALL ON FUNCTION tool_search_audit_prune(timestamptz) FROM PUBLIC`
  )
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
  "4_audit_call_target": statements(`ALTER TABLE tool_search_audit_calls ADD COLUMN target text`),
  "5_write_behind": statements(
    // every entry carries the id it was given when it was recorded: writing it again (a write-back
    // whose commit was not acknowledged, a journal replayed) finds it there and adds nothing
    ...["reveals", "calls", "gaps"].flatMap((t) => [
      `ALTER TABLE tool_search_audit_${t} ADD COLUMN entry_id text, ADD COLUMN recorded_at timestamptz`,
      `CREATE UNIQUE INDEX tool_search_audit_${t}_entry ON tool_search_audit_${t} (entry_id)`
    ]),
    // the principal (a named credential) whose session it was, when the gateway knows one
    `ALTER TABLE tool_search_audit_reveals ADD COLUMN principal text`,
    `ALTER TABLE tool_search_audit_calls ADD COLUMN principal text`,
    // a gap whose size is unknown (a journal whose end was damaged)
    `ALTER TABLE tool_search_audit_gaps ALTER COLUMN entries DROP NOT NULL`,
    // a call about to run: its outcome, when it comes, is the call row with the same entry id
    `CREATE TABLE tool_search_audit_intents (
      id bigint PRIMARY KEY DEFAULT nextval('tool_search_audit_ids'),
      entry_id text NOT NULL UNIQUE,
      at timestamptz NOT NULL,
      recorded_at timestamptz,
      turn_id text NOT NULL,
      session_id text,
      unit_path text NOT NULL,
      call_id text NOT NULL,
      tool_name text NOT NULL,
      tool_id text,
      source text,
      target text,
      principal text
    )`,
    `CREATE INDEX tool_search_audit_intents_at ON tool_search_audit_intents (at)`,
    `CREATE INDEX tool_search_audit_intents_session ON tool_search_audit_intents (session_id, at)`,
    `CREATE TRIGGER tool_search_audit_intents_append_only BEFORE UPDATE ON tool_search_audit_intents
     FOR EACH ROW EXECUTE FUNCTION tool_search_audit_append_only()`,
    // The gateway's sessions: one row per session, one per loaded tool, so that loads of two
    // instances both stay (a set union) and an unload is one row gone. Keyed by an HMAC of the
    // credential and the session id; the earlier rows (keyed by a plain digest) are not carried over.
    `DELETE FROM tool_search_sessions WHERE namespace = 'gateway'`,
    `CREATE SEQUENCE tool_search_gateway_order`,
    `CREATE TABLE tool_search_gateway_sessions (
      key text PRIMARY KEY,
      created_at timestamptz NOT NULL,
      last_access timestamptz NOT NULL,
      access_seq bigint NOT NULL
    )`,
    `CREATE INDEX tool_search_gateway_sessions_last_access ON tool_search_gateway_sessions (last_access)`,
    `CREATE INDEX tool_search_gateway_sessions_recency ON tool_search_gateway_sessions (access_seq)`,
    `CREATE TABLE tool_search_gateway_tools (
      key text NOT NULL,
      tool_id text NOT NULL,
      loaded_seq bigint NOT NULL,
      PRIMARY KEY (key, tool_id)
    )`,
    // fingerprints of the secrets instances key sessions with: one secret, one row
    `CREATE TABLE tool_search_gateway_secrets (
      fingerprint text PRIMARY KEY,
      seen_at timestamptz NOT NULL
    )`
  ),
  "6_append_only": appendOnly
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
  // Up to date: nothing to lock or create, so a role that may not change the schema (the gateway's
  // least-privilege role) opens the database as well as its owner does.
  if ((yield* current) === latest) return []
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
  const exists = yield* sql<{ readonly found: boolean }>`SELECT to_regclass(${TABLE}) IS NOT NULL AS found`
  if (exists[0]?.found !== true) return 0
  const rows = yield* sql<{ readonly version: number | null }>`SELECT max(migration_id) AS version FROM ${sql(TABLE)}`
  return rows[0]?.version ?? 0
})
