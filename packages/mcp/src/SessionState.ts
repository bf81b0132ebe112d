/**
 * Where the HTTP gateway keeps each session and what it has loaded, so that a session outlives the
 * process serving it: a gateway restarted on the same store, or another instance on it, finds a
 * client's session and its loaded tools again when the client sends the same `mcp-session-id`.
 *
 * The gateway only states what it needs; an implementation keeps it (`@tool-search/store` keeps
 * it in PostgreSQL, embedded or a server, and `tool-search serve --database` wires it). Without a
 * `SessionState` in context, sessions live in the memory of the process.
 *
 * - A session is stored when it opens (`open`), before its `initialize` is answered, so that its
 *   next request may go to any instance.
 * - What it loads and unloads is stored as changes (`change`), so that what two instances load for
 *   one session at the same moment is kept whole; `changes` tells this process when another
 *   instance changed a session it serves (or closed it), so its live copy follows. Requests are
 *   served from that live copy: a `tools/list` reads and writes nothing.
 * - Uses (`touch`) are for idle expiry and may be written later, in batches.
 *
 * A stored session belongs to the credential that opened it: every operation takes the
 * `principal` (a digest of the bearer token, or the named principal it maps to; empty without
 * authentication), and `load` with another principal answers `None`, exactly as for an unknown id —
 * a session id alone never gives another client's session.
 *
 * The operations never fail: an implementation that cannot reach its storage answers what it can
 * (`None` for a session it cannot read) and holds its writes until it can.
 *
 * @since 0.2.0
 */
import { Context, type Effect, type Option, type Stream } from "effect"

/**
 * What a session loaded and unloaded since the last change stored.
 *
 * @since 0.2.0
 * @category models
 */
export interface Change {
  readonly loaded: ReadonlyArray<string>
  readonly unloaded: ReadonlyArray<string>
}

/**
 * A stored session that another instance changed: its tools (`Changed`), or it is gone (`Closed`);
 * `Resync` when such news may have been missed, and every live session should be read again.
 *
 * @since 0.2.0
 * @category models
 */
export type Changed =
  | { readonly _tag: "Changed"; readonly id: string; readonly principal: string }
  | { readonly _tag: "Closed"; readonly id: string; readonly principal: string }
  | { readonly _tag: "Resync" }

/**
 * Stored gateway sessions.
 *
 * @since 0.2.0
 * @category services
 */
export class SessionState extends Context.Service<SessionState, {
  /** Stores a new session (with no tools): done before its `initialize` is answered. */
  readonly open: (id: string, principal: string) => Effect.Effect<void>
  /**
   * The catalog ids session `id` has loaded, in the order it loaded them, when it is stored and
   * belongs to `principal`; marks it used. `None`: unknown, expired, evicted, or opened with
   * another credential.
   */
  readonly load: (id: string, principal: string) => Effect.Effect<Option.Option<ReadonlyArray<string>>>
  /** Stores what session `id` loaded and unloaded. */
  readonly change: (id: string, principal: string, change: Change) => Effect.Effect<void>
  /** Marks session `id` used now (written later, in batches). */
  readonly touch: (id: string, principal: string) => Effect.Effect<void>
  /** Forgets session `id`: its client closed it, or the gateway evicted it. */
  readonly remove: (id: string, principal: string) => Effect.Effect<void>
  /** Sessions this process has stored or loaded that another instance changed or closed. */
  readonly changes: Stream.Stream<Changed>
}>()("@tool-search/mcp/SessionState") {}
