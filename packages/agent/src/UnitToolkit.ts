/**
 * The tools of one execution unit as `effect/ai` sees them, and the one way their calls run. For
 * apps that write their own `generateText` loop, and for the executor, which runs every call
 * through it.
 *
 * `make` gives a toolkit whose operations require the unit (`Unit` in `R`): `generateText` sends
 * one request with the tools the unit shows now and resolves the calls of the response the way the
 * executor does — a deferred tool that is not loaded, an unknown name, a forbidden tool, a denied
 * approval, arguments that do not fit the schema, a timeout, a failing or crashing tool all become
 * tool results whose message tells the model what to do. Nothing fails with an `AiError` but the
 * model call itself: the request options under which `effect/ai` hands calls back are applied for
 * you, so an own loop cannot forget them. Each call runs as a child fiber of the unit.
 *
 * ```ts
 * const loop = Effect.gen(function*() {
 *   const tools = yield* UnitToolkit.make()
 *   let prompt = Prompt.make("announce the release")
 *   for (let i = 0; i < 8; i++) {
 *     const step = yield* tools.generateText({ prompt })
 *     prompt = step.prompt
 *     if (step.response.toolCalls.length === 0) return step.response.text
 *   }
 * }).pipe(Unit.provide)
 * ```
 *
 * @since 0.2.0
 */
import { Disclosure, type Refused, type ToolArguments, Tracing, Unit } from "@tool-search/core"
import { Context, Duration, Effect, Result } from "effect"
import { type AiError, LanguageModel, Prompt } from "effect/ai"
import { Approval } from "./Approval.js"
import * as Calls from "./internal/calls.js"
import * as Prompts from "./internal/prompt.js"
import { TokenCounter } from "./TokenCounter.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * One call as the model made it; `via` names the dispatcher (`call_tool`) it came through.
 *
 * @since 0.2.0
 * @category models
 */
export type Call = Unit.Call

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
  readonly tool?: Unit.ModelTool
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
 * `TurnEvent`s): its start, its outcome, or its interruption (the unit ended while it ran).
 *
 * @since 0.2.0
 * @category models
 */
export interface Observer {
  readonly onCall?: (call: Call) => Effect.Effect<void>
  readonly onOutcome?: (outcome: Outcome) => Effect.Effect<void>
  readonly onInterrupted?: (call: Call) => Effect.Effect<void>
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
  readonly extraTools?: ReadonlyArray<Unit.ModelTool>
  readonly observer?: Observer
}

/**
 * One request of an own loop and what came of it: the response, and the conversation with the
 * response and the results of its calls appended, ready for the next request.
 *
 * @since 0.3.0
 * @category models
 */
export interface Step {
  readonly response: LanguageModel.GenerateTextResponse<Record<string, Calls.AiTool>, "deferred">
  readonly outcomes: ReadonlyArray<Outcome>
  readonly prompt: Prompt.Prompt
}

/**
 * The tools of a unit. Every operation requires the unit: the toolkit holds settings, never a unit.
 *
 * @since 0.2.0
 * @category models
 */
export interface UnitToolkit {
  /** The tools for the next request: the visible ones (re-read on each use), then the extra tools. */
  readonly tools: Effect.Effect<ReadonlyArray<Unit.ModelTool>, never, Unit.Unit>
  /**
   * One request with the unit's tools, and its calls resolved: what an own loop repeats. The request
   * is sent so that a call to a tool the toolkit does not hold comes back as a call (answered with
   * the corrective message), never as an `AiError`.
   */
  readonly generateText: (options: {
    readonly prompt: Prompt.RawInput
    readonly toolChoice?: LanguageModel.ToolChoice<string>
  }) => Effect.Effect<Step, AiError.AiError, Unit.Unit | LanguageModel.LanguageModel>
  /**
   * Runs one call, whatever its name: always an outcome, never an error. A call to the unit's
   * dispatcher (`call_tool`) runs the tool it names (the outcome's call has `via: "call_tool"`).
   * The call runs as a child fiber of the unit.
   */
  readonly handle: (call: Call) => Effect.Effect<Outcome, never, Unit.Unit>
  /**
   * Runs the calls of one response: search tools first, one at a time, in the model's order (so
   * activation order is deterministic), then the rest concurrently, bounded. Outcomes in call order.
   */
  readonly run: (calls: ReadonlyArray<Call>) => Effect.Effect<ReadonlyArray<Outcome>, never, Unit.Unit>
  /** `run`, as the tool message to append to the prompt. */
  readonly resolve: (calls: ReadonlyArray<Call>) => Effect.Effect<Prompt.Prompt, never, Unit.Unit>
}

// -----------------------------------------------------------------------------
// Constructors
// -----------------------------------------------------------------------------

/**
 * A toolkit with these settings. The approval policy and token counter in context when it is made
 * apply to every call; the unit's own policies (permission, visibility) to every resolution.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<UnitToolkit> =>
  Effect.map(Effect.context<never>(), (context) => {
    const counter = Context.get(context, TokenCounter)
    const approval = Context.get(context, Approval)
    const settings = { ...defaults, ...options }
    const extraTools = options.extraTools ?? []
    const observer = options.observer ?? {}
    const limits: ToolArguments.Limits = {
      maxSize: settings.toolArgumentsMaxSize,
      maxDepth: settings.toolArgumentsMaxDepth
    }
    const execute = Calls.executor({
      extraTools,
      approval,
      counter,
      limits,
      timeout: Duration.fromInputUnsafe(settings.toolTimeout),
      maxTokens: settings.toolResultMaxTokens
    })

    /** The call a dispatcher call stands for, or why it cannot be made. */
    const unwrap = (call: Call): Effect.Effect<Call, Refused, Unit.Unit> =>
      isDispatch(call)
        ? Effect.flatMap(Unit.dispatches, (on) => on ? Unit.unwrap(call, limits) : Effect.succeed(call))
        : Effect.succeed(call)
    const handling: Handling = { unwrap, execute, observer }
    const handle = (raw: Call): Effect.Effect<Outcome, never, Unit.Unit> => handleCall(handling, raw)

    // unwrapped first, so a search run through the dispatcher still runs first, in order
    const concurrency = Math.max(1, settings.toolConcurrency)
    const run = (calls: ReadonlyArray<Call>) =>
      calls.some(isDispatch)
        ? Effect.flatMap(
          Effect.forEach(
            calls,
            (c) => Effect.map(Effect.result(unwrap(c)), (u) => u._tag === "Success" ? u.success : c)
          ),
          (unwrapped) => Calls.inOrder(unwrapped, handle, concurrency)
        )
        : Calls.inOrder(calls, handle, concurrency)

    const tools = Effect.map(Unit.tools, (visible) => [...visible, ...extraTools])

    const stepping = { tools, handle, run }
    const generateText = (request: GenerateRequest) => generateStep(stepping, request)

    return { tools, generateText, handle, run, resolve: (calls) => Effect.map(run(calls), toPrompt) }
  })

// The generator functions of the hot path are made once, here, and given what they need as
// arguments: a generator function made inside a call (`Effect.gen(function*() {…})` in a closure)
// is a new function each time, and V8 then makes a new prototype, new hidden classes and misses
// its inline caches for each one (3–6 µs a call in a tight loop, against under 1 µs for one made once).

/** A dispatcher call (`call_tool`). */
const isDispatch = (call: Call) => call.name === Disclosure.toolNames.callTool

/** What `handle` needs from the toolkit that made it. */
interface Handling {
  readonly unwrap: (call: Call) => Effect.Effect<Call, Refused, Unit.Unit>
  readonly execute: (call: Call) => Effect.Effect<Outcome, never, Unit.Unit>
  readonly observer: Observer
}

/** One call, whatever its name: unwrapped, observed, run, in its own span. */
const handleCall = Effect.fnUntraced(
  function*(handling: Handling, raw: Call) {
    const { execute, observer, unwrap } = handling
    // most calls are direct: no effect to unwrap them
    const unwrapped = isDispatch(raw) ? yield* Effect.result(unwrap(raw)) : Result.succeed(raw)
    const call = unwrapped._tag === "Success" ? unwrapped.success : raw
    if (observer.onCall !== undefined) yield* observer.onCall(call)
    // the tool runs as a child fiber of the unit (`Calls.executor`)
    const { onInterrupted } = observer
    const outcome: Outcome = unwrapped._tag === "Success"
      ? yield* (onInterrupted === undefined
        ? execute(call)
        : execute(call).pipe(Effect.onInterrupt(() => onInterrupted(call))))
      : { call, isFailure: true, failure: "invalid-arguments", result: unwrapped.failure.message, truncated: null }
    // the span says how the call ended; a cut result's size is on it, the whole result in the outcome
    yield* Tracing.annotate(() => ({
      failure: outcome.failure ?? "none",
      ...(outcome.truncated === null ? {} : {
        "result.characters": outcome.truncated.totalCharacters,
        "result.shownCharacters": outcome.truncated.shownCharacters
      })
    }))
    if (observer.onOutcome !== undefined) yield* observer.onOutcome(outcome)
    return outcome
  },
  (effect, _handling, raw) =>
    effect.pipe(Tracing.span("tool-search.tool-call", { attributes: () => ({ tool: raw.name }) }))
)

/** A request of `UnitToolkit.generateText`. */
interface GenerateRequest {
  readonly prompt: Prompt.RawInput
  readonly toolChoice?: LanguageModel.ToolChoice<string>
}

/** One step of an own loop: the request with the unit's tools, then its calls answered. */
const generateStep = Effect.fnUntraced(function*(
  toolkit: Pick<UnitToolkit, "tools" | "handle" | "run">,
  request: GenerateRequest
) {
  const prompt = Prompts.make(request.prompt)
  const aiToolkit = Calls.toolkitOf(yield* toolkit.tools, toolkit.handle)
  const response = yield* LanguageModel.generateText({
    prompt,
    toolkit: aiToolkit,
    ...(request.toolChoice === undefined ? {} : { toolChoice: request.toolChoice }),
    ...Calls.requestOptions
  })
  const answered = Prompt.concat(prompt, Prompt.fromResponseParts(response.content))
  if (response.toolCalls.length === 0) return { response, outcomes: [], prompt: answered } satisfies Step
  const outcomes = yield* toolkit.run(response.toolCalls)
  return { response, outcomes, prompt: Prompt.concat(answered, toPrompt(outcomes)) } satisfies Step
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
  // built with the constructors, not decoded from raw messages (`Prompt.make` runs the whole message
  // schema: ~80 µs a response): every field is set here from an outcome
  Prompt.fromMessages([Prompt.makeMessage("tool", {
    content: outcomes.map((o) => {
      const options = optionsOf(o)
      return Prompt.makePart("tool-result", {
        id: o.call.id,
        name: o.call.via ?? o.call.name,
        isFailure: o.isFailure,
        result: o.result,
        providerExecuted: false,
        ...(options === undefined ? {} : { options })
      })
    })
  })])
