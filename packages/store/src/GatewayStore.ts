/**
 * The MCP gateway's state in the store: each HTTP session's loaded tools (what `@tool-search/mcp`
 * calls its `SessionState`) and the gateway's audit entries (its `GatewayAudit`), in the same
 * database, tables and writers as the agent's — so `tool-search audit --session <mcp-session-id>`
 * reads a gateway session as it reads an agent's. `tool-search serve --database` wires both.
 *
 * - **Sessions** live in the `gateway` namespace of `Sessions`, keyed by the credential's digest
 *   and the `mcp-session-id`: a session stored for one credential is simply not there for
 *   another, so a session id alone never gives another client's session. What is stored is the
 *   set of tools the session has loaded (the row's `latest`; `accumulated` keeps what any writer
 *   stored). The gateway's limits are the store's eviction, applied in SQL by every instance: a
 *   session idle longer than the idle timeout expires, and beyond `maxSessions` the least recently
 *   used goes.
 * - **The database lost mid-run**: as for the agent, a session's writes are held in memory and
 *   written back when it answers, and a session this process serves keeps its tools; a session
 *   that cannot be read cannot be resumed (its client gets "Session not found" and initializes a
 *   new one), never resumed with tools it did not load. Audit entries are held, or counted as a gap.
 *
 * Neither needs `@tool-search/mcp`: they have its services' shapes, which `tool-search serve`
 * provides them as.
 *
 * @since 0.2.0
 */
import { Eviction } from "@tool-search/agent"
import { Duration, Effect, Option, type Scope } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import { randomUUID } from "node:crypto"
import type { Call, Reveal, Service as AuditService } from "./Audit.js"
import type { Database } from "./Database.js"
import * as Sessions from "./Sessions.js"

// -----------------------------------------------------------------------------
// Sessions
// -----------------------------------------------------------------------------

/**
 * The gateway's session limits, applied in the database.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  readonly maxSessions: number
  readonly idleTimeout: Duration.Input
  /** Sessions whose writes may wait in memory while the database is away; default 10,000. */
  readonly pendingLimit?: number
}

/**
 * Stored gateway sessions: the shape of `@tool-search/mcp`'s `SessionState`.
 *
 * @since 0.2.0
 * @category models
 */
export interface SessionState {
  readonly load: (id: string, principal: string) => Effect.Effect<Option.Option<ReadonlyArray<string>>>
  readonly save: (id: string, principal: string, tools: ReadonlyArray<string>) => Effect.Effect<void>
  readonly remove: (id: string, principal: string) => Effect.Effect<void>
}

/**
 * The namespace of gateway sessions in `tool_search_sessions`.
 *
 * @since 0.2.0
 * @category constants
 */
export const NAMESPACE = "gateway"

/** The longest `mcp-session-id` looked up; the gateway's own are UUIDs. */
const MAX_ID = 128

/** A session id worth asking the database about: visible ASCII (as MCP requires), bounded. */
const plausible = (id: string): boolean => id.length > 0 && id.length <= MAX_ID && /^[\x21-\x7e]+$/.test(id)

/**
 * The row key of session `id` opened with `principal`: the credential's digest first, so the
 * same id under another credential is another (absent) row.
 *
 * @since 0.2.0
 * @category constructors
 */
export const key = (id: string, principal: string): string => `${principal === "" ? "-" : principal}/${id}`

/**
 * The gateway's sessions in the database in context, evicted by the gateway's limits; the
 * write-back of held writes belongs to the scope.
 *
 * @since 0.2.0
 * @category constructors
 */
export const sessions = (
  options: Options
): Effect.Effect<SessionState, never, Database | SqlClient | Scope.Scope> =>
  Effect.map(
    Sessions.make({
      namespace: NAMESPACE,
      eviction: Eviction.composite(
        Eviction.ttl(Duration.fromInputUnsafe(options.idleTimeout)),
        Eviction.lru(options.maxSessions)
      ),
      ...(options.pendingLimit === undefined ? {} : { pendingLimit: options.pendingLimit })
    }),
    (store): SessionState => ({
      load: (id, principal) =>
        plausible(id)
          ? Effect.map(store.get(key(id, principal)), Option.map((state) => state.latest))
          : Effect.succeedNone,
      save: (id, principal, tools) =>
        plausible(id) ? store.put(key(id, principal), { accumulated: tools, latest: tools }) : Effect.void,
      remove: (id, principal) => plausible(id) ? store.evict(key(id, principal)) : Effect.void
    })
  )

// -----------------------------------------------------------------------------
// Audit
// -----------------------------------------------------------------------------

/**
 * A search of a gateway session: the shape of `@tool-search/mcp`'s `GatewayAudit.Reveal` (an
 * audit reveal of one `tools/call` request, the session being its `mcp-session-id`).
 *
 * @since 0.2.0
 * @category models
 */
export type GatewayReveal = Omit<Reveal, "_tag" | "turnId" | "path" | "sessionId"> & {
  readonly sessionId: string
  readonly requestId: string
}

/**
 * A call of a gateway session: the shape of `@tool-search/mcp`'s `GatewayAudit.Call` (the
 * request's JSON-RPC id is the call's id).
 *
 * @since 0.2.0
 * @category models
 */
export type GatewayCall = Omit<Call, "_tag" | "turnId" | "path" | "sessionId" | "callId"> & {
  readonly sessionId: string
  readonly requestId: string
}

/**
 * The gateway's audit recorder: the shape of `@tool-search/mcp`'s `GatewayAudit.Recorder`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Recorder {
  readonly reveal: (entry: GatewayReveal) => Effect.Effect<void>
  readonly call: (entry: GatewayCall) => Effect.Effect<void>
  readonly payloads: boolean
}

/**
 * Records the gateway's reveals and calls in `audit`: each `tools/call` request is one turn (a
 * fresh turn id), its JSON-RPC id the call's id, the session its `mcp-session-id`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const recorder = (audit: AuditService): Recorder => ({
  payloads: audit.payloads,
  reveal: ({ requestId: _, ...entry }) => audit.record({ ...entry, _tag: "Reveal", turnId: randomUUID(), path: [] }),
  call: ({ arguments: args, requestId, result, ...entry }) =>
    audit.record({
      ...entry,
      _tag: "Call",
      turnId: randomUUID(),
      path: [],
      callId: requestId,
      ...(audit.payloads ? { arguments: args, result } : {})
    })
})
