/**
 * What happens in a turn, as a stream of plain JSON-serializable events: for progress output,
 * logs and UIs. `path` locates the execution unit: `[]` for the turn itself, `["fork-1"]` for a
 * sub-agent it started, and so on.
 *
 * @since 0.1.0
 */

/** Fields every event has. */
interface Base {
  /** The execution unit: empty for the turn, one element per fork level. */
  readonly path: ReadonlyArray<string>
}

/** A turn (or fork) began. */
export interface TurnStarted extends Base {
  readonly type: "turn-started"
  readonly sessionId: string | null
  /** Tool names carried over by the activation policy. */
  readonly carried: ReadonlyArray<string>
}

/** An iteration of the loop began. */
export interface IterationStarted extends Base {
  readonly type: "iteration-started"
  readonly iteration: number
}

/** The model was called with these tools. */
export interface ModelRequest extends Base {
  readonly type: "model-request"
  readonly iteration: number
  /** The tool names sent, in order. */
  readonly tools: ReadonlyArray<string>
  /** Tokens of the tool definitions sent. */
  readonly toolTokens: number
  /** Tokens that sending every tool of the catalog would have cost. */
  readonly eagerToolTokens: number
  /** `auto`, or the tool the call was forced to (discovery-first). */
  readonly toolChoice: string
}

/** The model answered. */
export interface ModelResponse extends Base {
  readonly type: "model-response"
  readonly iteration: number
  readonly text: string
  readonly toolCalls: ReadonlyArray<string>
  readonly inputTokens: number | null
  readonly outputTokens: number | null
}

/** A search or discovery tool ran. */
export interface Search extends Base {
  readonly type: "search"
  readonly tool: string
  readonly query: string
  readonly found: ReadonlyArray<string>
}

/** Tools became active in this unit. */
export interface Activation extends Base {
  readonly type: "activation"
  readonly tools: ReadonlyArray<string>
}

/** The model called a tool. */
export interface ToolCall extends Base {
  readonly type: "tool-call"
  readonly id: string
  readonly name: string
  readonly params: unknown
}

/** A tool call's result, as the model receives it. */
export interface ToolResult extends Base {
  readonly type: "tool-result"
  readonly id: string
  readonly name: string
  readonly isFailure: boolean
  /** Why it failed when it did: `not-active`, `unknown`, `not-permitted`, `not-approved`, `failed`, `defect`. */
  readonly failure: string | null
  readonly result: unknown
}

/** The turn ended. */
export interface TurnFinished extends Base {
  readonly type: "turn-finished"
  readonly stopReason: "answered" | "max-iterations"
  readonly iterations: number
  readonly text: string
  readonly activated: ReadonlyArray<string>
  readonly toolTokens: number
  readonly eagerToolTokens: number
}

/** Any event. */
export type TurnEvent =
  | TurnStarted
  | IterationStarted
  | ModelRequest
  | ModelResponse
  | Search
  | Activation
  | ToolCall
  | ToolResult
  | TurnFinished
