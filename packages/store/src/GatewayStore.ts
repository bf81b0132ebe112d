/**
 * The MCP gateway's state in the store: each HTTP session and its loaded tools (what
 * `@tool-search/mcp` calls its `SessionState`) and the gateway's audit entries (its `GatewayAudit`),
 * in the same database and writers as the agent's — so `tool-search audit --session <mcp-session-id>`
 * reads a gateway session as it reads an agent's. `tool-search serve --database` wires both.
 *
 * - **A session is stored before its `initialize` is answered** (`open`), so a client that sends
 *   its next request to another instance is served there at once.
 * - **A row per loaded tool**: what two instances load for one session at the same moment is
 *   stored whole (a set union), an unload is one row gone, and a third instance resumes the session
 *   with everything. Loads and unloads are written when they happen and announced to the other
 *   instances (`LISTEN/NOTIFY` on PostgreSQL), which update their live copy of the session
 *   (`changes`), so a `tools/list` is answered from memory and writes nothing.
 * - **Keys say nothing of the credential**: a session is stored under an HMAC of the credential and
 *   its id with a secret of the gateway's (`secret`). Without the secret, someone who reads the
 *   database cannot check guesses of a token, nor find a session's row from a stolen session id;
 *   with another credential the same id is another (absent) row, so a session id alone never gives
 *   another client's session. Instances serving one session must share the secret: one that keys
 *   sessions with another secret is reported in the log.
 * - **Off the request path**: uses (`touch`) are gathered and written once a second; idle and
 *   excess sessions (`idleTimeout`, `maxSessions`: the gateway's limits) are evicted in SQL by a
 *   background fiber of every instance, not by requests.
 * - **The database lost mid-run**: a session's writes are held by the store's `WriteBehind` (and
 *   its journal) and written back in order when it answers; a session this process serves keeps
 *   its tools; a session that cannot be read cannot be resumed (its client gets "Session not found"
 *   and initializes a new one), never resumed with tools it did not load. Audit entries are held,
 *   or counted as a gap.
 *
 * Neither needs `@tool-search/mcp`: they have its services' shapes, which `tool-search serve`
 * provides them as.
 *
 * @since 0.2.0
 */
import { PgClient } from "@effect/sql-pg"
import type { AuditRecord } from "@tool-search/core"
import { Clock, Duration, Effect, Option, Queue, Redacted, Result, Schedule, Schema, type Scope, Stream } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { createHmac, randomBytes, randomUUID } from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import type { Service as AuditService } from "./Audit.js"
import { Database } from "./Database.js"
import type * as Entry from "./internal/entry.js"
import * as GatewayTable from "./internal/gatewayTable.js"
import { WriteBehind } from "./WriteBehind.js"

// -----------------------------------------------------------------------------
// Sessions
// -----------------------------------------------------------------------------

/**
 * The gateway's session limits, applied in the database, and the secret its keys are made with.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly maxSessions: number
  readonly idleTimeout: Duration.Input
  /** The secret of the HMAC that keys sessions: the same on every instance serving them. */
  readonly secret: Redacted.Redacted<string>
}

/**
 * A session another instance changed: its tools, or it is gone; `Resync` after notifications may
 * have been missed (the listening connection was lost), when every live session should be read
 * again.
 *
 * @since 0.2.0
 * @category models
 */
export type Change =
  | { readonly _tag: "Changed"; readonly id: string; readonly principal: string }
  | { readonly _tag: "Closed"; readonly id: string; readonly principal: string }
  | { readonly _tag: "Resync" }

/**
 * Stored gateway sessions: the shape of `@tool-search/mcp`'s `SessionState`.
 *
 * @since 0.2.0
 * @category models
 */
export interface SessionState {
  readonly open: (id: string, principal: string) => Effect.Effect<void>
  readonly load: (id: string, principal: string) => Effect.Effect<Option.Option<ReadonlyArray<string>>>
  readonly change: (
    id: string,
    principal: string,
    change: { readonly loaded: ReadonlyArray<string>; readonly unloaded: ReadonlyArray<string> }
  ) => Effect.Effect<void>
  readonly touch: (id: string, principal: string) => Effect.Effect<void>
  readonly remove: (id: string, principal: string) => Effect.Effect<void>
  readonly changes: Stream.Stream<Change>
}

/** The longest `mcp-session-id` looked up; the gateway's own are UUIDs. */
const MAX_ID = 128

/** A session id worth asking the database about: visible ASCII (as MCP requires), bounded. */
const plausible = (id: string): boolean => id.length > 0 && id.length <= MAX_ID && /^[\x21-\x7e]+$/.test(id)

/**
 * The row key of session `id` opened with `principal`: an HMAC with the gateway's secret, so the
 * key reveals neither, and the same id under another credential is another row.
 *
 * @since 0.2.0
 * @category constructors
 */
export const key = (secret: Redacted.Redacted<string>, id: string, principal: string): string =>
  createHmac("sha256", Redacted.value(secret)).update(`${principal === "" ? "-" : principal}/${id}`).digest("hex")

/**
 * What identifies a secret without revealing it (compared across instances).
 *
 * @since 0.2.0
 * @category constructors
 */
export const fingerprint = (secret: Redacted.Redacted<string>): string =>
  createHmac("sha256", Redacted.value(secret)).update("tool-search session key fingerprint").digest("hex").slice(0, 16)

/**
 * The session secret could not be read or created.
 *
 * @since 0.2.0
 * @category errors
 */
export class SecretUnavailable extends Schema.TaggedError<SecretUnavailable>()("SecretUnavailable", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `The session secret ${this.path} cannot be read or created: ${this.reason}`
  }
}

/**
 * The secret kept in the file at `path` (its first line); when the file does not exist, a new
 * random secret (256 bits) is written there first, readable by this user only.
 *
 * @since 0.2.0
 * @category constructors
 */
export const secretFile = (path: string): Effect.Effect<Redacted.Redacted<string>, SecretUnavailable> =>
  Effect.try({
    try: () => {
      try {
        Fs.mkdirSync(Path.dirname(path), { recursive: true, mode: 0o700 })
        Fs.writeFileSync(path, `${randomBytes(32).toString("base64url")}\n`, { flag: "wx", mode: 0o600 })
      } catch (e) {
        if (!(typeof e === "object" && e !== null && "code" in e && e.code === "EEXIST")) throw e
      }
      const secret = Fs.readFileSync(path, "utf8").split("\n")[0]?.trim() ?? ""
      if (secret.length < 16) throw new Error("it holds fewer than 16 characters")
      return Redacted.make(secret)
    },
    catch: (e) => new SecretUnavailable({ path, reason: e instanceof Error ? e.message : String(e) })
  })

/**
 * The gateway's sessions in the database in context, evicted by the gateway's limits; the fibers
 * that write uses, evict, and listen to the other instances belong to the scope.
 *
 * @since 0.2.0
 * @category constructors
 */
export const sessions = (
  options: Options
): Effect.Effect<SessionState, never, Database | SqlClient | WriteBehind | Scope.Scope> =>
  Effect.gen(function*() {
    const database = yield* Database
    const sql = yield* SqlClient
    const writeBehind = yield* WriteBehind
    const idleMillis = Duration.toMillis(Duration.fromInputUnsafe(options.idleTimeout))
    const maxSessions = Math.max(1, options.maxSessions)
    const keyOf = (id: string, principal: string) => key(options.secret, id, principal)

    // the sessions this process has seen, by key: what a notification names
    const known = new Map<string, { readonly id: string; readonly principal: string }>()
    const remember = (k: string, id: string, principal: string) => {
      known.delete(k)
      known.set(k, { id, principal })
      for (const oldest of known.keys()) {
        if (known.size <= 2 * maxSessions) break
        known.delete(oldest)
      }
    }
    // uses since the last write of them, by key
    const used = new Map<string, number>()
    // writes the database did not take at once, by key, in order: later writes queue behind them
    const pending = new Map<string, Array<{ readonly seq: number; readonly entry: Entry.Entry }>>()
    const pendingFor = (k: string) =>
      Effect.gen(function*() {
        const list = pending.get(k)
        if (list === undefined) return []
        const left: typeof list = []
        for (const item of list) if (!(yield* writeBehind.isWritten(item.seq))) left.push(item)
        if (left.length === 0) pending.delete(k)
        else pending.set(k, left)
        return left
      })

    /** Writes now, unless earlier writes of the session are held (then behind them); held when it fails. */
    const write = (k: string, entry: Entry.Entry, now: Effect.Effect<void, SqlError>) =>
      Effect.gen(function*() {
        if ((yield* pendingFor(k)).length === 0) {
          const result = yield* Effect.result(writeBehind.direct("writing a gateway session", sql.withTransaction(now)))
          if (Result.isSuccess(result)) return
          if (!result.failure.retryable) {
            return yield* Effect.logError(`Gateway sessions: ${result.failure.message}; the change is dropped`)
          }
        }
        const seq = yield* writeBehind.offer(entry)
        pending.set(k, [...(pending.get(k) ?? []), { seq, entry }])
      })

    const open = (id: string, principal: string) =>
      Effect.gen(function*() {
        if (!plausible(id)) return
        const k = keyOf(id, principal)
        remember(k, id, principal)
        const at = yield* Clock.currentTimeMillis
        yield* write(k, { _tag: "SessionOpened", key: k, at }, GatewayTable.open(sql, k, at))
      })

    const change = (
      id: string,
      principal: string,
      { loaded, unloaded }: { readonly loaded: ReadonlyArray<string>; readonly unloaded: ReadonlyArray<string> }
    ) =>
      Effect.gen(function*() {
        if (!plausible(id) || (loaded.length === 0 && unloaded.length === 0)) return
        const k = keyOf(id, principal)
        remember(k, id, principal)
        const at = yield* Clock.currentTimeMillis
        yield* write(
          k,
          { _tag: "SessionTools", key: k, loaded: [...loaded], unloaded: [...unloaded], at },
          GatewayTable.change(sql, writeBehind.instance, k, loaded, unloaded)
        )
      })

    const remove = (id: string, principal: string) =>
      Effect.gen(function*() {
        if (!plausible(id)) return
        const k = keyOf(id, principal)
        known.delete(k)
        used.delete(k)
        const at = yield* Clock.currentTimeMillis
        yield* write(k, { _tag: "SessionClosed", key: k, at }, GatewayTable.close(sql, writeBehind.instance, k))
      })

    const load = (id: string, principal: string): Effect.Effect<Option.Option<ReadonlyArray<string>>> =>
      Effect.gen(function*() {
        if (!plausible(id)) return Option.none()
        const k = keyOf(id, principal)
        const held = yield* pendingFor(k)
        const result = yield* Effect.result(writeBehind.direct("reading a gateway session", GatewayTable.read(sql, k)))
        // what the database has (nothing, when it cannot be read), with this process's held writes on top
        let state: Option.Option<ReadonlyArray<string>> = Result.isSuccess(result) ? result.success : Option.none()
        for (const { entry } of held) {
          if (entry._tag === "SessionOpened") state = Option.some(Option.getOrElse(state, () => []))
          if (entry._tag === "SessionClosed") state = Option.none()
          if (entry._tag === "SessionTools" && Option.isSome(state)) {
            const gone = new Set(entry.unloaded)
            const kept = state.value.filter((t) => !gone.has(t))
            state = Option.some([...kept, ...entry.loaded.filter((t) => !kept.includes(t))])
          }
        }
        if (Option.isSome(state)) {
          remember(k, id, principal)
          used.set(k, yield* Clock.currentTimeMillis)
        }
        return state
      })

    // Uses, gathered and written once a second (a request never waits for one).
    const touch = (id: string, principal: string) =>
      plausible(id)
        ? Effect.map(Clock.currentTimeMillis, (now) => void used.set(keyOf(id, principal), now))
        : Effect.void
    yield* Effect.forkScoped(Effect.forever(
      Effect.sleep("1 second").pipe(Effect.andThen(Effect.gen(function*() {
        if (used.size === 0) return
        const batch = new Map(used)
        used.clear()
        const result = yield* Effect.result(
          writeBehind.direct("recording session uses", GatewayTable.touch(sql, batch))
        )
        if (Result.isFailure(result)) { for (const [k, at] of batch) if (!used.has(k)) used.set(k, at) }
      })))
    ))

    // Eviction, and a check that every instance keys sessions with the same secret.
    const print = fingerprint(options.secret)
    let warned = false
    const housekeeping = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      yield* writeBehind.direct(
        "evicting idle gateway sessions",
        GatewayTable.evict(sql, writeBehind.instance, now, idleMillis, maxSessions)
      )
      const others = yield* writeBehind.direct(
        "recording the session secret's fingerprint",
        GatewayTable.secrets(sql, print, now, Math.max(idleMillis, 60_000))
      )
      if (others.length > 0 && !warned) {
        warned = true
        yield* Effect.logWarning(
          `Gateway sessions: another instance on ${database.label} keys sessions with another secret ` +
            `(fingerprints ${[print, ...others].join(", ")}): a session opened there cannot be resumed here. ` +
            "Give every instance the same TOOL_SEARCH_SESSION_SECRET"
        )
      }
    }).pipe(Effect.ignore)
    const every = Duration.min(Duration.millis(Math.max(1_000, idleMillis / 4)), Duration.minutes(1))
    yield* Effect.forkScoped(housekeeping.pipe(Effect.repeat(Schedule.spaced(every))))

    // What other instances change, as they announce it (PostgreSQL; the embedded engine has one process).
    const changed = yield* Queue.sliding<Change>(4096)
    const pg = yield* Effect.serviceOption(PgClient.PgClient)
    if (Option.isSome(pg) && database.location._tag === "Postgres") {
      const client = pg.value
      const listen = Effect.scoped(Effect.gen(function*() {
        const notices = yield* client.listen(GatewayTable.CHANNEL)
        // (re)listening: what was announced meanwhile may be missed
        yield* Queue.offer(changed, { _tag: "Resync" })
        for (;;) {
          const n = GatewayTable.parseNotice((yield* Queue.take(notices)).payload)
          if (n === undefined || n.instance === writeBehind.instance) continue
          const session = known.get(n.key)
          if (session === undefined) continue
          if (n.kind === "closed") known.delete(n.key)
          yield* Queue.offer(changed, { _tag: n.kind === "tools" ? "Changed" : "Closed", ...session })
        }
      }))
      yield* Effect.forkScoped(
        listen.pipe(
          Effect.catchCause(() => Effect.void),
          Effect.andThen(Effect.sleep("1 second")),
          Effect.forever
        )
      )
    }

    return {
      open,
      load,
      change,
      touch,
      remove,
      changes: Stream.fromQueue(changed)
    } satisfies SessionState
  })

// -----------------------------------------------------------------------------
// Audit
// -----------------------------------------------------------------------------

/**
 * Records the gateway's reveals and calls (`AuditRecord` of `@tool-search/core`, which
 * `@tool-search/mcp`'s `GatewayAudit` writes) in `audit`: each `tools/call` request is one turn (a
 * fresh turn id; an intent and its outcome share the call's id), its JSON-RPC id the call's id, the
 * session its `mcp-session-id`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const recorder = (audit: AuditService): AuditRecord.Recorder => {
  // an intent and its outcome belong to one turn
  const turns = new Map<string, string>()
  const turnOf = (id: string | undefined) => {
    if (id === undefined) return randomUUID()
    const turn = turns.get(id)
    if (turn !== undefined) {
      turns.delete(id)
      return turn
    }
    return randomUUID()
  }
  return {
    payloads: audit.payloads,
    reveal: ({ requestId: _, ...entry }) => audit.record({ ...entry, _tag: "Reveal", turnId: randomUUID(), path: [] }),
    intent: ({ requestId, ...entry }) => {
      const turnId = randomUUID()
      turns.set(entry.id, turnId)
      if (turns.size > 100_000) turns.delete(turns.keys().next().value as string)
      return audit.intent({ ...entry, _tag: "Intent", turnId, path: [], callId: requestId })
    },
    call: ({ arguments: args, requestId, result, ...entry }) =>
      audit.record({
        ...entry,
        _tag: "Call",
        turnId: turnOf(entry.id),
        path: [],
        callId: requestId,
        ...(audit.payloads ? { arguments: args, result } : {})
      })
  }
}
