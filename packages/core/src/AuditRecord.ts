/**
 * The audit record of a gateway session, defined once: every search through its `ToolSearch` (a
 * reveal: what it found and what it loaded for the session) and every call it ran or forwarded (a
 * call: the tool, where it came from, the outcome, the duration; arguments and results only when
 * the audit asks for them). A call that runs a tool is recorded twice, its intent right before the
 * tool runs and its outcome after, sharing an `id`.
 *
 * `@tool-search/mcp` writes these records (`GatewayAudit`) and `@tool-search/store` keeps them
 * (`GatewayStore.recorder`); both depend on core and neither on the other, so the record lives here
 * and the compiler checks both sides against the same shape. Types only: nothing here runs.
 *
 * @since 0.3.0
 */
import type { Effect } from "effect"

/**
 * One search of a gateway session.
 *
 * @since 0.3.0
 * @category models
 */
export interface Reveal {
  /** Epoch milliseconds, when the search started. */
  readonly at: number
  /** The `mcp-session-id` (`stdio` over stdio). */
  readonly sessionId: string
  /** The JSON-RPC id of the `tools/call` request. */
  readonly requestId: string
  /** The search tool (`ToolSearch`). */
  readonly tool: string
  readonly query: string
  /** Tool names found, in rank order. */
  readonly found: ReadonlyArray<string>
  /** Tool names this search loaded for the session. */
  readonly activated: ReadonlyArray<string>
  /** The principal whose token opened the session (`Principal`), when the gateway has tokens. */
  readonly principal?: string | null
}

/**
 * One `tools/call` of a gateway session, other than a search; or one `resources/read`, `prompts/get`.
 *
 * @since 0.3.0
 * @category models
 */
export interface Call {
  /** The id of its intent, when one was recorded. */
  readonly id?: string
  /** Epoch milliseconds, when the call started. */
  readonly at: number
  readonly sessionId: string
  readonly requestId: string
  /** The principal whose token opened the session (`Principal`), when the gateway has tokens. */
  readonly principal?: string | null
  /** The tool as the client named it; for a resource read or prompt request, the MCP method. */
  readonly toolName: string
  /** The catalog id, when the name resolved to a catalog tool. */
  readonly toolId: string | null
  /** The upstream server, or the tool's catalog source. */
  readonly source: string | null
  /** What a resource read or prompt request acted on: the URI or prompt name as the client gave it. */
  readonly target?: string | null
  /** The tool whose program made the call (`execute_code`, code mode); absent for a client's own call. */
  readonly via?: string
  /** `ok`, or `not-active`, `unknown`, `not-found`, `not-permitted`, `invalid`, `timeout`, `failed`. */
  readonly outcome: string
  readonly durationMs: number
  /** Only when `payloads` is on. */
  readonly arguments?: unknown
  /** Only when `payloads` is on. */
  readonly result?: unknown
}

/**
 * A call about to run a tool, recorded right before it runs: the call without its outcome, and
 * the `id` its outcome (`Call.id`) will have.
 *
 * @since 0.3.0
 * @category models
 */
export type Intent = Omit<Call, "id" | "outcome" | "durationMs" | "arguments" | "result"> & {
  readonly id: string
}

/**
 * An audit trail the gateway writes to.
 *
 * @since 0.3.0
 * @category models
 */
export interface Recorder {
  /** Records a search; never fails. */
  readonly reveal: (entry: Reveal) => Effect.Effect<void>
  /** Records a call about to run; never fails, never waits for storage. */
  readonly intent: (entry: Intent) => Effect.Effect<void>
  /** Records a call's outcome; never fails, never waits for storage. */
  readonly call: (entry: Call) => Effect.Effect<void>
  /** Whether calls carry their arguments and results. */
  readonly payloads: boolean
}
