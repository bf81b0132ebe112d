/**
 * The database that holds tool-search's shared state, as an `effect/sql` `SqlClient`: PostgreSQL
 * everywhere. A directory is an embedded PostgreSQL (PGlite, PostgreSQL compiled to WebAssembly,
 * shipped on npm: no server, nothing to build or download); `postgres://…` is a PostgreSQL server,
 * for several processes; `memory` is an embedded database that ends with the process. Both engines
 * speak through the same driver (`@effect/sql-pg`), so there is one dialect, one set of migrations
 * and one type mapping.
 *
 * `layer` opens the database, applies the migrations (`Migrations`) and provides `SqlClient` with
 * the `Database` service, which names the database for messages. Opening fails with
 * `DatabaseUnavailable`, which says which database and what to do.
 *
 * The embedded engine belongs to one process at a time: a lock file in the directory refuses a
 * second process (PGlite would let both write and lose one's writes), and a lock left by a killed
 * process is taken over.
 *
 * @since 0.2.0
 */
import { PgClient } from "@effect/sql-pg"
import { Context, Duration, Effect, Layer, Redacted, Schema } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import type { Duplex } from "node:stream"
import * as AuditEndpoint from "./internal/auditEndpoint.js"
import * as Embedded from "./internal/embedded.js"
import type * as ProcessLock from "./internal/processLock.js"
import * as WireBridge from "./internal/wireBridge.js"
import * as Migrations from "./Migrations.js"
import { describeSqlError } from "./StoreError.js"
import * as WriteBehind from "./WriteBehind.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * Where the data lives: an embedded database in a directory, an embedded database in memory, or a
 * PostgreSQL server.
 *
 * @since 0.2.0
 * @category models
 */
export type Location =
  | { readonly _tag: "Embedded"; readonly path: string }
  | { readonly _tag: "Memory" }
  | { readonly _tag: "Postgres"; readonly url: Redacted.Redacted<string> }

/**
 * What `Database` provides.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  readonly location: Location
  /** The database as messages name it (a URL's password hidden). */
  readonly label: string
  /** The longest one operation of a turn may wait for the database. */
  readonly timeout: Duration.Duration
}

/**
 * The open database: where it is and how long one operation may take.
 *
 * @since 0.2.0
 * @category services
 */
export class Database extends Context.Service<Database, Service>()("@tool-search/store/Database") {}

// -----------------------------------------------------------------------------
// Errors
// -----------------------------------------------------------------------------

/**
 * The database could not be opened: which one, why, and what to do about it.
 *
 * @since 0.2.0
 * @category errors
 */
export class DatabaseUnavailable extends Schema.TaggedError<DatabaseUnavailable>()("DatabaseUnavailable", {
  database: Schema.String,
  reason: Schema.String,
  hint: Schema.String
}) {
  override get message(): string {
    return `Cannot open the database ${this.database}: ${this.reason}. ${this.hint}`
  }
}

// -----------------------------------------------------------------------------
// Locations
// -----------------------------------------------------------------------------

/**
 * The default directory: `tool-search/database` under the user's data directory
 * (`$XDG_DATA_HOME`, else `~/.local/share`; `~/Library/Application Support` on macOS,
 * `%LOCALAPPDATA%` on Windows).
 *
 * @since 0.2.0
 * @category locations
 */
export const defaultPath = (
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform
): string => {
  const home = Os.homedir()
  const dataHome = env.XDG_DATA_HOME !== undefined && env.XDG_DATA_HOME !== ""
    ? env.XDG_DATA_HOME
    : platform === "darwin"
    ? Path.join(home, "Library", "Application Support")
    : platform === "win32"
    ? env.LOCALAPPDATA ?? Path.join(home, "AppData", "Local")
    : Path.join(home, ".local", "share")
  return Path.join(dataHome, "tool-search", "database")
}

/**
 * Reads a location as `TOOL_SEARCH_DATABASE` writes it: `memory`, a `postgres://` (or
 * `postgresql://`) URL, or a directory (`~/` is the home directory; relative paths are resolved
 * against the working directory). A string is the reason it was refused.
 *
 * @since 0.2.0
 * @category locations
 */
export const parse = (raw: string): Location | string => {
  const text = raw.trim()
  if (text === "") return "expected a directory, memory or a postgres:// URL"
  if (text === "memory" || text === ":memory:") return { _tag: "Memory" }
  if (/^postgres(ql)?:\/\//i.test(text)) {
    try {
      const url = new URL(text)
      if (url.hostname === "" && !url.searchParams.has("host")) return "the PostgreSQL URL names no host"
      return { _tag: "Postgres", url: Redacted.make(text) }
    } catch {
      return "not a valid PostgreSQL URL (postgres://user:password@host:5432/database)"
    }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return "only postgres:// URLs are supported; a directory needs no scheme"
  const expanded = text === "~" || text.startsWith("~/") ? Path.join(Os.homedir(), text.slice(1)) : text
  return { _tag: "Embedded", path: Path.resolve(expanded) }
}

/**
 * The written form of a location (what `parse` reads back); a URL keeps its password.
 *
 * @since 0.2.0
 * @category locations
 */
export const format = (location: Location): string => {
  switch (location._tag) {
    case "Embedded":
      return location.path
    case "Memory":
      return "memory"
    case "Postgres":
      return Redacted.value(location.url)
  }
}

/**
 * The location for people and logs: a URL's password is hidden.
 *
 * @since 0.2.0
 * @category locations
 */
export const describe = (location: Location): string => {
  switch (location._tag) {
    case "Embedded":
      return `'${location.path}' (embedded)`
    case "Memory":
      return "in memory (embedded)"
    case "Postgres": {
      try {
        const url = new URL(Redacted.value(location.url))
        if (url.password !== "") url.password = "***"
        return `'${url.toString()}'`
      } catch {
        return "'postgres://…'"
      }
    }
  }
}

// -----------------------------------------------------------------------------
// Layers
// -----------------------------------------------------------------------------

/**
 * Options of `layer`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** The longest one operation may wait (also the connect timeout); default 5 seconds. */
  readonly timeout?: Duration.Input
  /** Connections to a PostgreSQL server; default 10. The embedded engine has one. */
  readonly maxConnections?: number
  /**
   * Wraps each connection's byte stream (a tunnel, a proxy, or a test that cuts the connection):
   * `connect` opens the real one.
   */
  readonly wrapConnection?: (connect: () => Duplex) => Duplex
  /** What the store holds while the database does not answer, and where (`WriteBehind`). */
  readonly writeBehind?: WriteBehind.Options
}

/**
 * Opens the database at `location`, applies the migrations, and provides `SqlClient`, `Database`
 * and the store's `WriteBehind`; closes them with the layer (what is held is written first, or
 * left in the journal).
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (
  location: Location,
  options: Options = {}
): Layer.Layer<Database | SqlClient | WriteBehind.WriteBehind, DatabaseUnavailable> => {
  const timeout = Duration.fromInputUnsafe(options.timeout ?? "5 seconds")
  // the embedded engine's lock: where its audit can be read while this process holds it is written there
  let held: ProcessLock.Lock | undefined
  const label = describe(location)
  const unavailable = (reason: string, hint: string) => new DatabaseUnavailable({ database: label, reason, hint })
  const wrap = options.wrapConnection
  const client = location._tag === "Postgres"
    ? PgClient.make({
      url: location.url,
      maxConnections: options.maxConnections ?? 10,
      connectTimeout: timeout,
      applicationName: "tool-search",
      ...(wrap === undefined ? {} : { stream: () => wrap(socketOf(location.url)) })
    })
    : Effect.flatMap(Embedded.open(location, unavailable), ({ backend, lock }) => {
      held = lock
      return PgClient.make({
        stream: () => wrap === undefined ? WireBridge.connect(backend) : wrap(() => WireBridge.connect(backend)),
        ssl: false,
        username: "postgres",
        database: "postgres",
        maxConnections: 1,
        applicationName: "tool-search"
      })
    })
  // The driver connects on first use: one round trip now, so a server that is not there is
  // reported as such rather than as a failed migration.
  const open = client.pipe(
    Effect.tap((pg) => pg`SELECT 1`),
    Effect.mapError((e) =>
      e._tag === "DatabaseUnavailable" ? e : unavailable(
        describeSqlError(e),
        location._tag === "Postgres"
          ? "Is the server running and reachable, and are the user and password right? " +
            "TOOL_SEARCH_DATABASE (or --database) sets the URL"
          : "TOOL_SEARCH_DATABASE (or --database) chooses another directory"
      )
    )
  )
  const sqlLayer = PgClient.layerFrom(open)
  const migrated = Layer.effectDiscard(
    Migrations.run.pipe(
      Effect.mapError((e) =>
        e._tag === "SchemaTooNew"
          ? unavailable(e.message, "Upgrade tool-search on this instance: another one has migrated the database")
          : unavailable(
            `applying its migrations failed: ${e._tag === "SqlError" ? describeSqlError(e) : e.message}`,
            location._tag === "Postgres"
              ? "Check that the user may create tables in this database"
              : "Check that the directory is writable"
          )
      )
    )
  )
  const service = Database.of({ location, label, timeout })
  const writeBehind = Layer.effect(
    WriteBehind.WriteBehind,
    Effect.flatMap(Effect.service(SqlClient), (sql) => WriteBehind.make(service, sql, options.writeBehind)).pipe(
      Effect.mapError((e) =>
        unavailable(
          `its journal ${e.directory} cannot be opened: ${e.reason}`,
          "Check that the journal's directory (TOOL_SEARCH_JOURNAL) is writable, or set TOOL_SEARCH_JOURNAL=off"
        )
      )
    )
  )
  // the embedded engine's audit, readable by `tool-search audit` while this process holds the directory
  const readable = Layer.effectDiscard(Effect.gen(function*() {
    const lock = held
    if (lock === undefined) return
    const writeBehind = yield* WriteBehind.WriteBehind
    const endpoint = yield* AuditEndpoint.serve(yield* SqlClient, Effect.ignore(writeBehind.flush))
    yield* Effect.sync(() => lock.update({ audit: endpoint })).pipe(Effect.ignore)
  }))
  return Layer.mergeAll(writeBehind, readable.pipe(Layer.provide(writeBehind)), Layer.succeed(Database, service)).pipe(
    Layer.provideMerge(migrated),
    Layer.provideMerge(sqlLayer)
  )
}

// -----------------------------------------------------------------------------
// Internals
// -----------------------------------------------------------------------------

/** Opens the socket a PostgreSQL URL names (TCP, or a Unix socket directory in `?host=`). */
const socketOf = (url: Redacted.Redacted<string>) => (): Duplex => {
  const parsed = new URL(Redacted.value(url))
  const port = Number(parsed.port === "" ? 5432 : parsed.port)
  const socketDir = parsed.searchParams.get("host")
  return socketDir !== null && socketDir.startsWith("/")
    ? Net.connect({ path: Path.join(socketDir, `.s.PGSQL.${port}`) })
    : Net.connect({ host: decodeURIComponent(parsed.hostname.replace(/^\[|\]$/g, "")), port })
}
