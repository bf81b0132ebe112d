// The engines the store's tests run on: the embedded one always, PostgreSQL when a server is given
// (`TOOL_SEARCH_TEST_POSTGRES`, which `.ci/run` sets after starting a throwaway cluster). Without a
// server the PostgreSQL tests are skipped with a message saying so, never passed silently.
import { PgClient } from "@effect/sql-pg"
import { describe, layer } from "@effect/vitest"
import { Effect, Layer, Redacted, type Scope } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { TestClock } from "effect/testing"
import { Duplex } from "node:stream"
import { Database, type WriteBehind } from "../src/index.js"

/** The PostgreSQL server's URL, when there is one. */
export const postgresUrl: string | undefined = process.env.TOOL_SEARCH_TEST_POSTGRES || undefined

/** Why the PostgreSQL tests are skipped. */
export const skipReason =
  "no PostgreSQL server: set TOOL_SEARCH_TEST_POSTGRES=postgres://… (bash .ci/run starts a throwaway one)"

export interface Engine {
  readonly name: "embedded" | "postgresql"
  /** A fresh, empty database for one test file (or test); dropped with the scope. */
  readonly fresh: Effect.Effect<Database.Location, never, Scope.Scope>
}

const embedded: Engine = { name: "embedded", fresh: Effect.succeed({ _tag: "Memory" }) }

let counter = 0

/** A new database on the server, dropped (with its connections) when the scope closes. */
const postgres = (url: string): Engine => ({
  name: "postgresql",
  fresh: Effect.gen(function*() {
    const name = `tool_search_test_${process.pid}_${Date.now().toString(36)}_${counter++}`
    const admin = (statement: string) =>
      Effect.scoped(
        Effect.gen(function*() {
          const sql = yield* PgClient.PgClient
          yield* sql.unsafe(statement)
        }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))
      )
    yield* Effect.acquireRelease(
      Effect.orDie(admin(`CREATE DATABASE ${name}`)),
      () => Effect.ignore(admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
    )
    const target = new URL(url)
    target.pathname = `/${name}`
    return { _tag: "Postgres", url: Redacted.make(target.toString()) } as const
  })
})

const postgresEngine: Engine = postgres(postgresUrl ?? "postgres://unavailable")

/** Every engine available here. */
export const engines: ReadonlyArray<Engine> = postgresUrl === undefined ? [embedded] : [embedded, postgresEngine]

if (postgresUrl === undefined) console.warn(`PostgreSQL tests of the store are skipped: ${skipReason}`)

/**
 * Runs `body` once per engine, as `describe("<name> (<engine>)")`; without a PostgreSQL server,
 * its suite is skipped and its name says why.
 */
export const describeEngines = (name: string, body: (engine: Engine) => void): void => {
  describe(`${name} (embedded)`, () => {
    body(embedded)
  })
  const missing = postgresUrl === undefined
  describe.skipIf(missing)(`${name} (postgresql${missing ? `, skipped: ${skipReason}` : ""})`, () => {
    body(postgresEngine)
  })
}

/**
 * Lets the audit take entries dated by the test clock (which starts in 1970): outside tests the
 * database refuses entries dated more than `max_backdate` before its own time.
 */
export const acceptTestClock = Effect.gen(function*() {
  const sql = yield* SqlClient
  yield* sql`UPDATE tool_search_audit_policy SET max_backdate = interval '100 years', max_ahead = interval '100 years'`
}).pipe(Effect.orDie)

/** A database layer on a fresh database of `engine` (its audit accepting the test clock's dates). */
export const freshDatabase = (engine: Engine, options: Database.Options = {}) =>
  Layer.unwrap(Effect.map(engine.fresh, (location) => Database.layer(location, options))).pipe(
    Layer.tap((context) => Effect.provideContext(acceptTestClock, context))
  )

/**
 * Cuts connections on demand: `unplug` breaks every open connection and refuses new ones until
 * `replug` — the database going away mid-run, as the driver sees it.
 */
export class Plug {
  private unplugged = false
  private readonly open = new Set<Duplex>()

  readonly wrap = (connect: () => Duplex): Duplex => {
    if (this.unplugged) {
      const refused = new Duplex({
        read() {},
        write(_chunk, _encoding, callback) {
          callback(new Error("connection refused (unplugged)"))
        }
      })
      process.nextTick(() => refused.destroy(new Error("connection refused (unplugged)")))
      return refused
    }
    const stream = connect()
    this.open.add(stream)
    stream.once("close", () => this.open.delete(stream))
    return stream
  }

  unplug(): void {
    this.unplugged = true
    for (const stream of this.open) stream.destroy(new Error("connection lost (unplugged)"))
    this.open.clear()
  }

  replug(): void {
    this.unplugged = false
  }
}

/**
 * A test of its own (one minute) on a fresh database of `engine` reached through `plug`, which
 * `body` pulls and puts back to take the database away mid-run.
 */
export const itLosesDatabase = <A, E>(
  engine: Engine,
  name: string,
  body: (plug: Plug) => Effect.Effect<A, E, Database.Database | SqlClient | WriteBehind.WriteBehind | Scope.Scope>,
  options: Database.Options = {}
): void =>
  layer(Layer.empty)((it) =>
    it.effect(
      name,
      () =>
        Effect.gen(function*() {
          const plug = new Plug()
          const location = yield* engine.fresh
          return yield* Effect.andThen(acceptTestClock, body(plug)).pipe(
            Effect.provide(Database.layer(location, { wrapConnection: plug.wrap, timeout: "2 seconds", ...options }))
          )
        }),
      60_000
    )
  )

/** Drives the test clock a second at a time (at most 20) until `idle`: a write-back retrying with backoff. */
export const driveUntil = <E, R>(idle: Effect.Effect<boolean, E, R>): Effect.Effect<void, E, R> =>
  Effect.gen(function*() {
    for (let i = 0; i < 20 && !(yield* idle); i++) {
      yield* TestClock.adjust("1 second")
      yield* Effect.yieldNow
    }
  })
