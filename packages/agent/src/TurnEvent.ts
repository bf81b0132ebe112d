/**
 * What happens in a turn, as a stream of events tagged by `_tag`: for progress output, logs and
 * UIs. `path` locates the execution unit: `[]` for the turn itself, `["fork-1"]` for a sub-agent
 * it started, and so on. Every field is plain JSON; `toJson` gives the wire form, where the tag is
 * a kebab-case `type` (`model-request`), as the CLI prints it.
 *
 * @since 0.1.0
 */
import { Data } from "effect"
import type * as UnitToolkit from "./UnitToolkit.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/** Fields every event has. */
interface Base {
  /** The execution unit: empty for the turn, one element per fork level. */
  readonly path: ReadonlyArray<string>
}

/**
 * Any event of a turn.
 *
 * - `TurnStarted`: a turn (or fork) began, with the tool names the activation policy carried over,
 *   and whether tools are deferred at all (below the deferral threshold every tool is sent).
 * - `IterationStarted`: an iteration of the loop began.
 * - `ModelRequest`: the model was called with these tools (names in order), the tokens of their
 *   definitions, what sending every tool would have cost, and `auto` or the forced tool; the
 *   request's input tokens (tools, system, messages, counted with the `TokenCounter`) and, of those,
 *   `prefixTokens`: the start it shares with an earlier request of the executor — what a provider's
 *   prefix cache could serve; `deferredTools` counts the tools sent deferred (`native` delivery).
 * - `ModelResponse`: the model answered: its text, the tools it called, the tokens it reported
 *   (`cachedInputTokens`: the input tokens the provider says its cache served).
 * - `Search`: a search or discovery tool ran: its query and the names it found.
 * - `Activation`: tools became active in this unit.
 * - `ToolCall`: the model called a tool; `via` names the dispatcher (`call_tool`) when it called
 *   the tool through it.
 * - `ToolResult`: a call's result as the model receives it; `failure` says why it failed when it
 *   did, and `truncated` (when the result was cut to the cap) carries the full result.
 * - `ToolInterrupted`: a call was still running when its unit ended; it was interrupted.
 * - `TurnFinished`: the turn ended; `activated` holds the ids of the tools active at its end, the
 *   ids a next turn accepts as its `activation`.
 *
 * @since 0.2.0
 * @category models
 */
export type TurnEvent = Data.TaggedEnum<{
  TurnStarted: Base & {
    readonly sessionId: string | null
    readonly carried: ReadonlyArray<string>
    /** Whether tools are deferred: below the deferral threshold every tool is sent (`Disclosure.Options.defer`). */
    readonly deferring: boolean
  }
  IterationStarted: Base & { readonly iteration: number }
  ModelRequest: Base & {
    readonly iteration: number
    readonly tools: ReadonlyArray<string>
    readonly toolTokens: number
    readonly eagerToolTokens: number
    readonly toolChoice: string
    readonly inputTokens: number
    readonly prefixTokens: number
    readonly deferredTools?: number
  }
  ModelResponse: Base & {
    readonly iteration: number
    readonly text: string
    readonly toolCalls: ReadonlyArray<string>
    readonly inputTokens: number | null
    readonly cachedInputTokens: number | null
    readonly outputTokens: number | null
  }
  Search: Base & {
    readonly tool: string
    readonly query: string
    readonly found: ReadonlyArray<string>
  }
  Activation: Base & { readonly tools: ReadonlyArray<string> }
  ToolCall: Base & {
    readonly id: string
    readonly name: string
    readonly params: unknown
    readonly via?: string
  }
  ToolResult: Base & {
    readonly id: string
    readonly name: string
    readonly isFailure: boolean
    readonly failure: UnitToolkit.Failure | null
    readonly result: unknown
    readonly truncated: UnitToolkit.Truncation | null
    readonly via?: string
  }
  ToolInterrupted: Base & {
    readonly id: string
    readonly name: string
    readonly via?: string
  }
  TurnFinished: Base & {
    readonly stopReason: "answered" | "max-iterations" | "timeout"
    readonly iterations: number
    readonly text: string
    readonly activated: ReadonlyArray<string>
    readonly toolTokens: number
    readonly eagerToolTokens: number
    readonly inputTokens: number
    readonly prefixTokens: number
  }
}>

/**
 * A turn (or fork) began.
 *
 * @since 0.1.0
 * @category models
 */
export type TurnStarted = Data.TaggedEnum.Value<TurnEvent, "TurnStarted">
/**
 * An iteration of the loop began.
 *
 * @since 0.1.0
 * @category models
 */
export type IterationStarted = Data.TaggedEnum.Value<TurnEvent, "IterationStarted">
/**
 * The model was called with these tools.
 *
 * @since 0.1.0
 * @category models
 */
export type ModelRequest = Data.TaggedEnum.Value<TurnEvent, "ModelRequest">
/**
 * The model answered.
 *
 * @since 0.1.0
 * @category models
 */
export type ModelResponse = Data.TaggedEnum.Value<TurnEvent, "ModelResponse">
/**
 * A search or discovery tool ran.
 *
 * @since 0.1.0
 * @category models
 */
export type Search = Data.TaggedEnum.Value<TurnEvent, "Search">
/**
 * Tools became active in this unit.
 *
 * @since 0.1.0
 * @category models
 */
export type Activation = Data.TaggedEnum.Value<TurnEvent, "Activation">
/**
 * The model called a tool.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolCall = Data.TaggedEnum.Value<TurnEvent, "ToolCall">
/**
 * A tool call's result, as the model receives it.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolResult = Data.TaggedEnum.Value<TurnEvent, "ToolResult">
/**
 * The turn ended.
 *
 * @since 0.1.0
 * @category models
 */
export type TurnFinished = Data.TaggedEnum.Value<TurnEvent, "TurnFinished">

/**
 * A tool call still running when its unit ended (a turn that ran out of time, an interrupted turn):
 * it was interrupted and its finalizers ran.
 *
 * @since 0.3.0
 * @category models
 */
export type ToolInterrupted = Data.TaggedEnum.Value<TurnEvent, "ToolInterrupted">

// -----------------------------------------------------------------------------
// Constructors and guards
// -----------------------------------------------------------------------------

const TurnEvent = Data.taggedEnum<TurnEvent>()

/**
 * Builds a `TurnStarted` event.
 *
 * @since 0.2.0
 * @category constructors
 */
export const TurnStarted = TurnEvent.TurnStarted
/**
 * Builds an `IterationStarted` event.
 *
 * @since 0.2.0
 * @category constructors
 */
export const IterationStarted = TurnEvent.IterationStarted
/**
 * Builds a `ModelRequest` event.
 *
 * @since 0.2.0
 * @category constructors
 */
export const ModelRequest = TurnEvent.ModelRequest
/**
 * Builds a `ModelResponse` event.
 *
 * @since 0.2.0
 * @category constructors
 */
export const ModelResponse = TurnEvent.ModelResponse
/**
 * Builds a `Search` event.
 *
 * @since 0.2.0
 * @category constructors
 */
export const Search = TurnEvent.Search
/**
 * Builds an `Activation` event.
 *
 * @since 0.2.0
 * @category constructors
 */
export const Activation = TurnEvent.Activation
/**
 * Builds a `ToolCall` event.
 *
 * @since 0.2.0
 * @category constructors
 */
export const ToolCall = TurnEvent.ToolCall
/**
 * Builds a `ToolResult` event.
 *
 * @since 0.2.0
 * @category constructors
 */
export const ToolResult = TurnEvent.ToolResult
/**
 * Builds a `ToolInterrupted` event.
 *
 * @since 0.3.0
 * @category constructors
 */
export const ToolInterrupted = TurnEvent.ToolInterrupted

/**
 * Builds a `TurnFinished` event.
 *
 * @since 0.2.0
 * @category constructors
 */
export const TurnFinished = TurnEvent.TurnFinished

/**
 * A type guard for one kind of event: `events.filter(TurnEvent.$is("ModelRequest"))`.
 *
 * @since 0.2.0
 * @category guards
 */
export const $is = TurnEvent.$is

/**
 * Exhaustive matching on the kind of event.
 *
 * @since 0.2.0
 * @category pattern matching
 */
export const $match = TurnEvent.$match

// -----------------------------------------------------------------------------
// Wire form
// -----------------------------------------------------------------------------

/**
 * The kebab-case name of an event kind, as the wire form writes it (`ModelRequest` →
 * `model-request`).
 *
 * @since 0.2.0
 * @category wire form
 */
export const typeOf = (tag: TurnEvent["_tag"]): string =>
  tag.replace(/[A-Z]/g, (c, i) => `${i > 0 ? "-" : ""}${c}`).toLowerCase()

/**
 * An event as one JSON object with its kind in `type` (`{"type": "model-request", ...}`): what the
 * CLI prints, one object per line.
 *
 * @since 0.2.0
 * @category wire form
 */
export const toJson = (event: TurnEvent): Record<string, unknown> => {
  const { _tag, ...fields } = event
  return { type: typeOf(_tag), ...fields }
}
