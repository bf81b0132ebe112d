// The roles docs/persistence.md gives ("Least privilege"), run as written, then the gateway's role
// attacks the audit trail: it cannot update, delete, truncate, backdate, drop or disable the
// triggers, prune, or loosen the policy — and it can do all its work. Retention is the owner's.
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as Fs from "node:fs"
import { Audit, Database, GatewayStore, StoreError, WriteBehind } from "../src/index.js"
import { postgresUrl, skipReason } from "./engines.js"

const docs = Fs.readFileSync(new URL("../../../docs/persistence.md", import.meta.url), "utf8")

/** The SQL block after the marker `<!-- least-privilege: <name> -->`, as statements. */
const block = (name: string): ReadonlyArray<string> => {
  const marker = docs.indexOf(`<!-- least-privilege: ${name} -->`)
  const start = docs.indexOf("```sql\n", marker) + "```sql\n".length
  const text = docs.slice(start, docs.indexOf("```", start))
  return text.split("\n").filter((l) => !l.startsWith("--")).join("\n").split(";").map((s) => s.trim())
    .filter((s) => s !== "")
}

const run = (url: string, statements: ReadonlyArray<string>) =>
  Effect.scoped(
    Effect.gen(function*() {
      const sql = yield* PgClient.PgClient
      for (const statement of statements) yield* sql.unsafe(statement)
    }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))
  ).pipe(Effect.orDie)

const as = (base: string, database: string, role: string) => {
  const url = new URL(base)
  url.username = role
  url.password = ""
  url.pathname = `/${database}`
  return url.toString()
}

describe.skipIf(postgresUrl === undefined)(
  `least privilege (postgresql${postgresUrl === undefined ? `, skipped: ${skipReason}` : ""})`,
  () => {
    it.live(
      "the gateway's role works, and cannot change or remove the trail; retention is the owner's",
      () =>
        Effect.gen(function*() {
          const base = postgresUrl ?? ""
          const suffix = `${process.pid}_${Date.now().toString(36)}`
          const database = `tool_search_privilege_${suffix}`
          // the roles are the cluster's: names of this run's own (the tables' names only start like them)
          const rename = (statement: string) =>
            statement.replaceAll(/\btool_search_owner\b/g, `tool_search_owner_${suffix}`)
              .replaceAll(/\btool_search_gateway\b/g, `tool_search_gateway_${suffix}`)
              .replaceAll(/\bagents\b/g, database)
              .replaceAll(/ PASSWORD '[^']*'/g, "")
          yield* run(base, [`CREATE DATABASE ${database}`])
          yield* Effect.addFinalizer(() =>
            run(base, [
              `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`,
              `DROP ROLE IF EXISTS tool_search_owner_${suffix}`,
              `DROP ROLE IF EXISTS tool_search_gateway_${suffix}`
            ]).pipe(Effect.ignore)
          )
          const onDatabase = new URL(base)
          onDatabase.pathname = `/${database}`
          yield* run(onDatabase.toString(), block("roles").map(rename))
          const owner = as(base, database, `tool_search_owner_${suffix}`)
          const gateway = as(base, database, `tool_search_gateway_${suffix}`)
          const location = (url: string): Database.Location => ({ _tag: "Postgres", url: Redacted.make(url) })
          // the owner opens it (migrations), then grants
          yield* Effect.scoped(Layer.build(Database.layer(location(owner)))).pipe(Effect.orDie)
          yield* run(owner, block("grants").map(rename))

          yield* Effect.gen(function*() {
            // its work: sessions, audit, feedback
            const sessions = yield* GatewayStore.sessions({
              maxSessions: 10,
              idleTimeout: "1 hour",
              secret: Redacted.make("x".repeat(32))
            })
            yield* sessions.open("s", "p")
            yield* sessions.change("s", "p", { loaded: ["t"], unloaded: [] })
            assert.deepStrictEqual(yield* sessions.load("s", "p"), Option.some(["t"]))
            const audit = yield* Audit.make({ retention: "1 day" })
            yield* audit.record({
              _tag: "Call",
              at: Date.now(),
              turnId: "t",
              sessionId: "s",
              path: [],
              callId: "1",
              toolName: "x",
              toolId: null,
              source: null,
              outcome: "ok",
              durationMs: 1
            })
            assert.strictEqual((yield* audit.entries({ sessionId: "s" })).length, 1)
            // what it cannot do
            const sql = yield* SqlClient
            const refused = (statement: Effect.Effect<unknown, SqlError>) =>
              Effect.map(Effect.flip(statement), StoreError.describeSqlError)
            for (
              const attack of [
                sql`UPDATE tool_search_audit_calls SET outcome = 'forged'`,
                sql`DELETE FROM tool_search_audit_calls`,
                sql`TRUNCATE tool_search_audit_calls`,
                sql`DROP TRIGGER tool_search_audit_calls_append_only ON tool_search_audit_calls`,
                sql`ALTER TABLE tool_search_audit_calls DISABLE TRIGGER ALL`,
                sql`UPDATE tool_search_audit_policy SET max_backdate = interval '100 years'`,
                sql`SELECT tool_search_audit_prune(now())`
              ]
            ) {
              assert.match(yield* refused(attack), /permission denied|must be owner/)
            }
            assert.match(
              yield* refused(sql`INSERT INTO tool_search_audit_calls
              (at, turn_id, session_id, unit_path, call_id, tool_name, outcome, duration_ms)
              VALUES (now() - interval '30 days', 'forged', 's', '', 'x', 'rm_rf', 'ok', 1)`),
              /refuses an entry dated/
            )
            const notPermitted = yield* Effect.flip(Audit.pruneOlderThan("1 second"))
            assert.isFalse(notPermitted.retryable)
            assert.strictEqual((yield* audit.entries({ sessionId: "s" })).length, 1)
            yield* (yield* WriteBehind.WriteBehind).flush
          }).pipe(Effect.scoped, Effect.provide(Database.layer(location(gateway))))

          // retention is the owner's
          const pruned = yield* Audit.pruneOlderThan("1 millis").pipe(
            Effect.provide(Database.layer(location(owner))),
            Effect.orDie
          )
          assert.strictEqual(pruned, 1)
        }),
      120_000
    )
  }
)
