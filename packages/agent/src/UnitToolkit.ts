/**
 * The tools of one execution unit as `effect/ai` sees them, and the one way their calls run. For
 * apps that write their own `generateText` loop, and for the executor, which runs every call
 * through it.
 *
 * `make` (inside a unit: a `ToolView` in context) gives, before each request, the `Toolkit` of the
 * tools visible now — with handlers — and resolves the calls of each response the way the executor
 * does: a deferred tool that is not loaded, an unknown name, a forbidden tool, a denied approval,
 * arguments that do not fit the schema, a timeout, a failing or crashing tool all become tool
 * results whose message tells the model what to do. Nothing here fails with an `AiError`: send the
 * request with `requestOptions` (`disableToolCallResolution`, `toolCallValidation: "deferred"`),
 * so `effect/ai` hands back calls to names outside the toolkit instead of failing the request.
 *
 * ```ts
 * const loop = Effect.gen(function*() {
 *   const tools = yield* UnitToolkit.make()
 *   let prompt = Prompt.make("announce the release")
 *   for (let i = 0; i < 8; i++) {
 *     const response = yield* LanguageModel.generateText({
 *       prompt, toolkit: yield* tools.toolkit, ...UnitToolkit.requestOptions
 *     })
 *     prompt = Prompt.concat(prompt, Prompt.fromResponseParts(response.content))
 *     if (response.toolCalls.length === 0) return response.text
 *     prompt = Prompt.concat(prompt, yield* tools.resolve(response.toolCalls))
 *   }
 * }).pipe(ToolView.withUnit)
 * ```
 *
 * @since 0.2.0
 */
import { Permission, type ToolArguments, ToolView } from "@tool-search/core"
import { Duration, Effect } from "effect"
import { Prompt, type Toolkit } from "effect/ai"
import { Approval } from "./Approval.js"
import * as Calls from "./internal/calls.js"
import * as Dispatcher from "./internal/dispatcher.js"
import { type Definition, TokenCounter } from "./TokenCounter.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * One call as the model made it.
 *
 * @since 0.2.0
 * @category models
 */
export interface Call {
  readonly id: string
  readonly name: string
  readonly params: unknown
  /**
   * The dispatcher the model called this tool through (`call_tool`), when it did not call it by
   * name: its tool result answers the dispatcher's call.
   */
  readonly via?: string
}

/**
 * The dispatcher tool of `result` delivery: `call_tool {name, arguments}` runs a tool that was
 * found but is not in the tool list.
 *
 * @since 0.2.0
 * @category constants
 */
export const CALL_TOOL: string = Dispatcher.CALL_TOOL

/**
 * Why a call failed: refused before running (`not-active`, `unknown`, `not-permitted`,
 * `not-approved`, `invalid-arguments`), or while running (`timeout`, `failed`, `defect`).
 *
 * @since 0.2.0
 * @category models
 */
export type Failure =
  | "not-active"
  | "unknown"
  | "not-permitted"
  | "not-approved"
  | "invalid-arguments"
  | "timeout"
  | "failed"
  | "defect"

/**
 * A result cut to the cap: how much the model saw, and the whole result for the app.
 *
 * @since 0.2.0
 * @category models
 */
export interface Truncation {
  /** The cap that applied, in tokens. */
  readonly maxTokens: number
  /** Characters of the result's text the model received. */
  readonly shownCharacters: number
  /** Characters of the whole result's text. */
  readonly totalCharacters: number
  /** The whole result, as the tool returned it. */
  readonly full: unknown
}

/**
 * What one call came to.
 *
 * @since 0.2.0
 * @category models
 */
export interface Outcome {
  readonly call: Call
  /** The tool that ran; absent when the call was refused before resolving. */
  readonly tool?: ToolView.ModelTool
  readonly isFailure: boolean
  readonly failure: Failure | null
  /** The result as the model receives it (cut to the cap when `truncated` is set). */
  readonly result: unknown
  readonly truncated: Truncation | null
  /** Model names a search tool found (search tools only). */
  readonly found?: ReadonlyArray<string>
  /** Model names a search tool activated that were not active before (search tools only). */
  readonly activated?: ReadonlyArray<string>
}

/**
 * The bounds on tool calls; `AgentConfig` reads each from a setting.
 *
 * @since 0.2.0
 * @category models
 */
export interface Settings {
  /** Calls of one response that run at once (search tools always run one by one, first). */
  readonly toolConcurrency: number
  /** A catalog or search tool call running longer is cancelled and answered as `timeout`. */
  readonly toolTimeout: Duration.Input
  /** The most tokens of one result the model receives; the rest is cut, with a note. */
  readonly toolResultMaxTokens: number
  /** Arguments larger than this (characters of JSON) are refused. */
  readonly toolArgumentsMaxSize: number
  /** Arguments nested deeper than this are refused. */
  readonly toolArgumentsMaxDepth: number
}

/**
 * The defaults: 4 concurrent calls, 5 minutes per call, 25,000 tokens per result, arguments up to
 * 1,000,000 characters and 32 levels.
 *
 * @since 0.2.0
 * @category constructors
 */
export const defaults: Settings = {
  toolConcurrency: 4,
  toolTimeout: "5 minutes",
  toolResultMaxTokens: 25_000,
  toolArgumentsMaxSize: 1_000_000,
  toolArgumentsMaxDepth: 32
}

/**
 * Hooks that see each call start and end, in the order they happen (the executor turns them into
 * `TurnEvent`s).
 *
 * @since 0.2.0
 * @category models
 */
export interface Observer {
  readonly onCall?: (call: Call) => Effect.Effect<void>
  readonly onOutcome?: (outcome: Outcome) => Effect.Effect<void>
}

/**
 * What `make` takes: settings (each defaulting as in `defaults`), tools of the loop itself that
 * are not in the catalog (the executor's `delegate_task`), and an observer.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options extends Partial<Settings> {
  /** Sent after the visible tools; permission-checked by name; exempt from the per-call timeout. */
  readonly extraTools?: ReadonlyArray<ToolView.ModelTool>
  readonly observer?: Observer
  /**
   * Offer `call_tool {name, arguments}` (sent last) and run each call to it as a call of the named
   * tool: the same resolution, permission, approval, argument check and corrective messages as a
   * direct call. With it, a loop can keep one tool list for a whole turn — found tools are called
   * through the dispatcher — so the provider's prompt cache holds (the executor's `result` delivery).
   */
  readonly dispatcher?: boolean
}

/**
 * The tools of one unit.
 *
 * @since 0.2.0
 * @category models
 */
export interface UnitToolkit {
  /** The tools for the next request: the visible ones (re-read on each use), then the extra tools. */
  readonly tools: Effect.Effect<ReadonlyArray<ToolView.ModelTool>>
  /** `tools` as an `effect/ai` `Toolkit` whose handlers run through `handle`. */
  readonly toolkit: Effect.Effect<Toolkit.WithHandler<Record<string, Calls.AiTool>>>
  /**
   * Any list of tools as an `effect/ai` `Toolkit` whose handlers run through `handle`; `deferred`
   * tools join it annotated `NativeDeferral.DeferLoading`, for a provider that sends them deferred.
   */
  readonly toolkitOf: (
    tools: ReadonlyArray<ToolView.ModelTool>,
    deferred?: ReadonlyArray<Definition>
  ) => Toolkit.WithHandler<Record<string, Calls.AiTool>>
  /**
   * Runs one call, whatever its name: always an outcome, never an error. With the dispatcher, a
   * call to `call_tool` runs the tool it names (the outcome's call has `via: "call_tool"`).
   */
  readonly handle: (call: Call) => Effect.Effect<Outcome>
  /**
   * Runs the calls of one response: search tools first, one at a time, in the model's order (so
   * activation order is deterministic), then the rest concurrently, bounded. Outcomes in call order.
   */
  readonly run: (calls: ReadonlyArray<Call>) => Effect.Effect<ReadonlyArray<Outcome>>
  /** `run`, as the tool message to append to the prompt. */
  readonly resolve: (calls: ReadonlyArray<Call>) => Effect.Effect<Prompt.Prompt>
}

/**
 * The `generateText` options under which `effect/ai` hands every call back instead of failing the
 * request on a name outside the toolkit: spread them into each request.
 *
 * @since 0.2.0
 * @category constructors
 */
export const requestOptions = { disableToolCallResolution: true, toolCallValidation: "deferred" } as const

// -----------------------------------------------------------------------------
// Constructors
// -----------------------------------------------------------------------------

/**
 * The tools of the unit in context. The permission and approval policies in context apply to every
 * call; results are cut with the `TokenCounter` in context.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<UnitToolkit, never, ToolView.ToolView | TokenCounter> =>
  Effect.gen(function*() {
    const view = yield* ToolView.ToolView
    const counter = yield* TokenCounter
    const permission = yield* Permission.Permission
    const approval = yield* Approval
    const settings = { ...defaults, ...options }
    const extraTools = options.extraTools ?? []
    const observer = options.observer ?? {}
    const limits: ToolArguments.Limits = {
      maxSize: settings.toolArgumentsMaxSize,
      maxDepth: settings.toolArgumentsMaxDepth
    }
    const dispatcher = options.dispatcher === true
    const unwrap = (call: Call): Dispatcher.Unwrapped =>
      dispatcher ? Dispatcher.unwrap(call, limits) : { _tag: "Call", call }
    const execute = Calls.executor({
      view,
      extraTools,
      permission,
      approval,
      counter,
      limits,
      timeout: Duration.fromInputUnsafe(settings.toolTimeout),
      maxTokens: settings.toolResultMaxTokens
    })

    const handle = (raw: Call): Effect.Effect<Outcome> => {
      const unwrapped = unwrap(raw)
      const call = unwrapped._tag === "Call" ? unwrapped.call : raw
      return Effect.gen(function*() {
        if (observer.onCall !== undefined) yield* observer.onCall(call)
        const outcome: Outcome = unwrapped._tag === "Call" ? yield* execute(call) : {
          call,
          isFailure: true,
          failure: "invalid-arguments",
          result: unwrapped.message,
          truncated: null
        }
        // the span says how the call ended; a cut result's size is on it, the whole result in the outcome
        yield* Effect.annotateCurrentSpan({
          failure: outcome.failure ?? "none",
          ...(outcome.truncated === null ? {} : {
            "result.characters": outcome.truncated.totalCharacters,
            "result.shownCharacters": outcome.truncated.shownCharacters
          })
        })
        if (observer.onOutcome !== undefined) yield* observer.onOutcome(outcome)
        return outcome
      }).pipe(Effect.withSpan("tool-search.tool-call", { attributes: { tool: call.name } }, Calls.noStackTrace))
    }

    // unwrapped first, so a search run through the dispatcher still runs first, in order
    const run = (calls: ReadonlyArray<Call>) =>
      Calls.inOrder(
        calls.map((c) => {
          const unwrapped = unwrap(c)
          return unwrapped._tag === "Call" ? unwrapped.call : c
        }),
        handle,
        Math.max(1, settings.toolConcurrency)
      )

    const own = dispatcher ? [...extraTools, Dispatcher.tool] : extraTools
    const tools = Effect.map(view.visible, (visible) => [...visible, ...own])
    const toolkitOf = (list: ReadonlyArray<ToolView.ModelTool>, deferred: ReadonlyArray<Definition> = []) =>
      Calls.toolkitOf(list, handle, deferred)

    return {
      tools,
      toolkit: Effect.map(tools, toolkitOf),
      toolkitOf,
      handle,
      run,
      resolve: (calls) => Effect.map(run(calls), toPrompt)
    }
  })

/**
 * Outcomes as the tool message that answers them: each result answers the call the model made (a
 * call through the dispatcher is answered as `call_tool`). `optionsOf` adds provider options to a
 * result (the `native` delivery's tool references).
 *
 * @since 0.2.0
 * @category constructors
 */
export const toPrompt = (
  outcomes: ReadonlyArray<Outcome>,
  optionsOf: (outcome: Outcome) => Prompt.ToolResultPartOptions | undefined = () => undefined
): Prompt.Prompt =>
  Prompt.make([{
    role: "tool",
    content: outcomes.map((o) => {
      const options = optionsOf(o)
      return {
        type: "tool-result" as const,
        id: o.call.id,
        name: o.call.via ?? o.call.name,
        isFailure: o.isFailure,
        result: o.result,
        ...(options === undefined ? {} : { options })
      }
    })
  }])
