/**
 * Where the HTTP gateway keeps what each session has loaded, so that a session outlives the
 * process serving it: a gateway restarted on the same store, or another instance on it, finds a
 * client's session and its loaded tools again when the client sends the same `mcp-session-id`.
 *
 * The gateway only states what it needs; an implementation keeps it (`@tool-search/store` keeps
 * it in PostgreSQL, embedded or a server, and `tool-search serve --database` wires it). Without a
 * `SessionState` in context, sessions live in the memory of the process.
 *
 * A stored session belongs to the credential that opened it: every operation takes the
 * `principal` (a digest of the bearer token, empty without authentication), and `load` with
 * another principal answers `None`, exactly as for an unknown id — a session id alone never gives
 * another client's session.
 *
 * The operations never fail: an implementation that cannot reach its storage answers what it can
 * (`None` for a session it cannot read) and holds its writes until it can.
 *
 * @since 0.2.0
 */
import { Context, type Effect, type Option } from "effect"

/**
 * Stored gateway sessions.
 *
 * @since 0.2.0
 * @category services
 */
export class SessionState extends Context.Service<SessionState, {
  /**
   * The catalog ids session `id` has loaded, when it is stored and belongs to `principal`; marks
   * it used now. `None`: unknown, expired, evicted, or opened with another credential.
   */
  readonly load: (id: string, principal: string) => Effect.Effect<Option.Option<ReadonlyArray<string>>>
  /** Stores what session `id` has loaded now (a new session stores none). */
  readonly save: (id: string, principal: string, tools: ReadonlyArray<string>) => Effect.Effect<void>
  /** Forgets session `id`: its client closed it, or the gateway evicted it. */
  readonly remove: (id: string, principal: string) => Effect.Effect<void>
}>()("@tool-search/mcp/SessionState") {}
