/**
 * The audit trail of an embedded database, readable while its process runs. The embedded engine
 * belongs to one process (its lock), so `tool-search audit` cannot open the directory while a
 * gateway holds it; instead, the holder serves reads of its audit on loopback, and says where in
 * its lock file: the port and a random token, in a file only this user can read. Only reads: the
 * trail as `AuditTable.read` gives it, for a filter.
 *
 * @internal
 */
import { Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import { randomBytes, timingSafeEqual } from "node:crypto"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import type { Entry, Filter } from "../Audit.js"
import * as AuditTable from "./auditTable.js"

/** Where the holder serves its audit: in its lock file's `extra.audit`. */
export const Endpoint = Schema.Struct({ port: Schema.Int, token: Schema.String })
export type Endpoint = typeof Endpoint.Type

const Texts = Schema.Array(Schema.String)
const origin = {
  at: Schema.Finite,
  turnId: Schema.String,
  sessionId: Schema.NullOr(Schema.String),
  path: Texts,
  principal: Schema.optionalKey(Schema.NullOr(Schema.String)),
  id: Schema.optionalKey(Schema.String),
  recordedAt: Schema.optionalKey(Schema.Finite)
}

/** The trail as the endpoint answers it: decoded by the reader, never trusted. */
export const Entries = Schema.Array(Schema.Union([
  Schema.TaggedStruct("Reveal", {
    ...origin,
    tool: Schema.String,
    query: Schema.String,
    found: Texts,
    activated: Texts
  }),
  Schema.TaggedStruct("Call", {
    ...origin,
    callId: Schema.String,
    toolName: Schema.String,
    toolId: Schema.NullOr(Schema.String),
    source: Schema.NullOr(Schema.String),
    target: Schema.optionalKey(Schema.NullOr(Schema.String)),
    outcome: Schema.String,
    durationMs: Schema.Finite,
    arguments: Schema.optionalKey(Schema.Unknown),
    result: Schema.optionalKey(Schema.Unknown)
  }),
  Schema.TaggedStruct("Gap", {
    at: Schema.Finite,
    lostFrom: Schema.Finite,
    lostUntil: Schema.Finite,
    entries: Schema.NullOr(Schema.Finite),
    reason: Schema.String
  })
]))

/**
 * Serves the audit of the database behind `sql` on loopback until the scope closes, after `before`
 * (writing what the process holds); returns where.
 */
export const serve = (sql: SqlClient, before: Effect.Effect<void>) =>
  Effect.gen(function*() {
    const token = randomBytes(32).toString("hex")
    const expected = Buffer.from(`Bearer ${token}`)
    const run = (filter: Filter) =>
      Effect.runPromise(Effect.andThen(before, Effect.orDie(AuditTable.read(sql, filter))))
    const server = Http.createServer((req, res) => {
      const given = Buffer.from(req.headers.authorization ?? "")
      const url = new URL(req.url ?? "/", "http://localhost")
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        res.writeHead(401).end()
        return
      }
      if (req.method !== "GET" || url.pathname !== "/audit") {
        res.writeHead(404).end()
        return
      }
      const number = (name: string) => {
        const value = Number(url.searchParams.get(name) ?? Number.NaN)
        return Number.isFinite(value) ? value : undefined
      }
      const session = url.searchParams.get("session")
      const since = number("since")
      const limit = number("limit")
      run({
        ...(session === null ? {} : { sessionId: session }),
        ...(since === undefined ? {} : { since }),
        ...(limit === undefined ? {} : { limit })
      }).then(
        (entries) => {
          res.writeHead(200, { "content-type": "application/json" })
          res.end(JSON.stringify(entries))
        },
        (e: unknown) => {
          res.writeHead(500, { "content-type": "text/plain" })
          res.end(e instanceof Error ? e.message : String(e))
        }
      )
    })
    const port = yield* Effect.callback<number>((resume) => {
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))
    })
    yield* Effect.addFinalizer(() =>
      Effect.callback<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
    )
    return { port, token } satisfies Endpoint
  })

/** Reads the audit from the process serving it at `endpoint`. */
export const read = (endpoint: Endpoint, filter: Filter) =>
  Effect.tryPromise({
    try: async () => {
      const url = new URL(`http://127.0.0.1:${endpoint.port}/audit`)
      if (filter.sessionId !== undefined) url.searchParams.set("session", filter.sessionId)
      if (filter.since !== undefined) url.searchParams.set("since", String(filter.since))
      if (filter.limit !== undefined) url.searchParams.set("limit", String(filter.limit))
      const response = await fetch(url, { headers: { authorization: `Bearer ${endpoint.token}` } })
      if (!response.ok) throw new Error(`it answered ${response.status}: ${await response.text()}`)
      return (await response.json()) as unknown
    },
    catch: (e) => e instanceof Error ? e.message : String(e)
  }).pipe(
    Effect.flatMap((body) =>
      Schema.decodeUnknownEffect(Entries)(body).pipe(
        Effect.mapError((e) => `its answer is not an audit trail: ${e.message}`)
      )
    ),
    Effect.map((entries): ReadonlyArray<Entry> => entries)
  )
