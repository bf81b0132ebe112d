/**
 * Running one tool call, the one code path of `UnitToolkit` (and so of the executor): resolve the
 * name, check permission, arguments and approval, run with a timeout, contain failures and crashes,
 * cap the result. Every step that refuses answers with a tool result for the model. A call a
 * program makes (code mode, `via: "execute_code"`) runs the same path; only its result is not cut.
 */
import {
  CatalogTool,
  Disclosure,
  NativeDeferral,
  Refused,
  ToolArguments,
  type ToolExecutionError,
  Unit
} from "@tool-search/core"
import { Cause, Duration, Effect, Exit, type JsonSchema, Option, Result, type Schema, Stream } from "effect"
import { Tool, type Toolkit } from "effect/ai"
import * as Approval from "../Approval.js"
import { type Definition, definitionCache, type Service as TokenCounterService } from "../TokenCounter.js"
import type { Call, Failure, Outcome } from "../UnitToolkit.js"
import * as ResultCap from "./resultCap.js"

/**
 * The `generateText` options under which `effect/ai` hands every call back instead of failing the
 * request on a name outside the toolkit: the executor and `UnitToolkit.generateText` apply them.
 */
export const requestOptions = { disableToolCallResolution: true, toolCallValidation: "deferred" } as const

/** What running calls needs from the loop and the agent; the unit comes from context. */
export interface Context {
  readonly extraTools: ReadonlyArray<Unit.ModelTool>
  readonly approval: Approval.Policy
  readonly counter: TokenCounterService
  readonly limits: ToolArguments.Limits
  readonly timeout: Duration.Duration
  readonly maxTokens: number
}

/** How each refusal of `resolve` is labelled. */
const FAILURE_OF = {
  "not-active": "not-active",
  unknown: "unknown",
  "not-permitted": "not-permitted",
  "invalid-request": "invalid-arguments"
} as const satisfies Record<Refused["reason"], Failure>

/** Any parameters object: what meta and extra tools are checked against (size, depth, an object). */
const ANY_OBJECT = { type: "object" }

/** What running a tool came to, before the cap. */
type Ran = Omit<Outcome, "call" | "tool" | "truncated">

/**
 * The function that runs one call in `context`: resolve, check and approve on the caller's fiber;
 * run the tool as a child fiber of the unit (`Unit.superviseExit`), so that the unit's end interrupts it;
 * settle what it came to. Every step is a plain function where it can be: one call is a few
 * effects, not one per step.
 */
export const executor = (context: Context) => {
  const { approval, counter, limits, maxTokens, timeout } = context
  const refused = (call: Call, failure: Failure, message: string, tool?: Unit.ModelTool): Outcome => ({
    call,
    ...(tool === undefined ? {} : { tool }),
    isFailure: true,
    failure,
    result: message,
    truncated: null
  })

  /** The outcome of a run that ended (`None`: it timed out and was interrupted). */
  const settle = (
    call: Call,
    tool: Unit.ModelTool,
    ended: Option.Option<Exit.Exit<Unit.Output, ToolExecutionError>>
  ): Effect.Effect<Outcome> => {
    if (Option.isNone(ended)) {
      return Effect.succeed(refused(
        call,
        "timeout",
        `Tool '${tool.name}' did not finish within ${
          Duration.format(timeout)
        } and was cancelled. Try again with a smaller request, or tell the user it is not answering.`,
        tool
      ))
    }
    const exit = ended.value
    if (Exit.isSuccess(exit)) {
      const out = exit.value
      return Effect.succeed(finish(call, tool, {
        isFailure: out.isFailure,
        failure: out.isFailure ? "failed" : null,
        result: out.result,
        ...(tool.kind === "meta" ? { found: out.found ?? [], activated: out.activated ?? [] } : {})
      }))
    }
    const { cause } = exit
    // interrupted (the unit ended, or the caller was): that is not an outcome, it goes on up
    // (`orDie` only types it: a cause of interrupts alone holds no error)
    if (Cause.hasInterruptsOnly(cause)) return Effect.orDie(Effect.failCause(cause))
    const error = Cause.findErrorOption(cause)
    if (Option.isSome(error)) {
      return Effect.succeed(finish(call, tool, { isFailure: true, failure: "failed", result: error.value.message }))
    }
    // A crashing tool is reported (logged with its cause, marked `defect`), not swallowed, and does
    // not end the turn: the model is told the tool crashed.
    return Effect.as(
      Effect.logError(`Tool '${tool.name}' crashed`, cause),
      finish(call, tool, {
        isFailure: true,
        failure: "defect",
        result: `Tool '${tool.name}' crashed: ${defectMessage(Cause.squash(cause))}`
      })
    )
  }

  /** The outcome of a run, its result cut to the cap. */
  const finish = (call: Call, tool: Unit.ModelTool, ran: Ran): Outcome => {
    // a result a program receives is data, not context: a cut would corrupt its JSON (the program's
    // memory bounds it, and the sandbox's output limit what reaches the model)
    if (call.via === Disclosure.toolNames.executeCode) return { call, tool, ...ran, truncated: null }
    const capped = ResultCap.cap(ran.result, maxTokens, counter)
    return { call, tool, ...ran, result: capped.result, truncated: capped.truncated }
  }

  return (call: Call): Effect.Effect<Outcome, never, Unit.Unit> =>
    Effect.flatMap(Effect.result(resolve(context, call.name)), (resolution) => {
      if (Result.isFailure(resolution)) {
        return Effect.succeed(refused(call, FAILURE_OF[resolution.failure.reason], resolution.failure.message))
      }
      const { own, tool } = resolution.success
      // Catalog tools are checked against their own schema; the others (search tools, the loop's
      // own tools) decode their input themselves, so only the bounds apply to them.
      const schema = own || tool.kind === "meta" ? ANY_OBJECT : tool.parameters
      const checked = ToolArguments.check(tool.name, schema, call.params, limits)
      if (Result.isFailure(checked)) {
        return Effect.succeed(refused(call, "invalid-arguments", checked.failure.message, tool))
      }
      const params = checked.success
      const run = Effect.flatMap(
        Unit.superviseExit(
          `${call.name}#${call.id}`,
          Effect.suspend(() => tool.run(params, { toolCallId: call.id })),
          own ? {} : { timeout }
        ),
        (ended) => settle(call, tool, ended)
      )
      // the default policy approves everything: no effect to ask it
      if (approval === Approval.approveAll) return run
      return Effect.flatMap(
        approval.decide({ tool, params, toolCallId: call.id }),
        (approved) =>
          approved ? run : Effect.succeed(refused(call, "not-approved", Approval.deniedMessage(tool.name), tool))
      )
    })
}

/** The tool a name refers to: one of the loop's own tools, or whatever the unit resolves it to. */
const resolve = (
  context: Context,
  name: string
): Effect.Effect<{ readonly own: boolean; readonly tool: Unit.ModelTool }, Refused, Unit.Unit> => {
  const stripped = CatalogTool.stripFunctionsPrefix(name)
  const own = context.extraTools.find((t) => t.name === stripped)
  if (own === undefined) return Effect.map(Unit.resolve(name), (tool) => ({ own: false, tool }))
  return Effect.flatMap(Unit.policies, ({ permission }) =>
    permission.allows({ id: own.name, name: own.name })
      ? Effect.succeed({ own: true, tool: own })
      : Effect.fail(
        new Refused({
          kind: "tool",
          name: own.name,
          reason: "not-permitted",
          hint: `Tool '${own.name}' is not permitted for this agent.`
        })
      ))
}

const defectMessage = (defect: unknown): string => defect instanceof Error ? defect.message : String(defect)

// -----------------------------------------------------------------------------
// A response's calls
// -----------------------------------------------------------------------------

const isActivationCall = (call: Call) => Disclosure.isMetaTool(CatalogTool.stripFunctionsPrefix(call.name))

/**
 * Runs the calls of one response: search tools first, one at a time, in the model's order, so
 * activation order is deterministic; then the others concurrently, at most `concurrency` at once.
 * Outcomes come back in call order.
 */
export const inOrder = <R>(
  calls: ReadonlyArray<Call>,
  handle: (call: Call) => Effect.Effect<Outcome, never, R>,
  concurrency: number
): Effect.Effect<ReadonlyArray<Outcome>, never, R> => {
  // the common response: one call, which needs no ordering
  const [only] = calls
  if (calls.length === 1 && only !== undefined) return Effect.map(handle(only), (outcome) => [outcome])
  return Effect.gen(function*() {
    const outcomes = new Array<Outcome>(calls.length)
    const indexed = calls.map((call, index) => ({ call, index }))
    for (const { call, index } of indexed.filter(({ call }) => isActivationCall(call))) {
      outcomes[index] = yield* handle(call)
    }
    const others = indexed.filter(({ call }) => !isActivationCall(call))
    // One call needs no fibers of its own; several run concurrently, bounded.
    yield* Effect.forEach(
      others,
      ({ call, index }) =>
        Effect.map(handle(call), (outcome) => {
          outcomes[index] = outcome
        }),
      { concurrency: others.length > 1 ? concurrency : 1, discard: true }
    )
    return outcomes
  })
}

// -----------------------------------------------------------------------------
// As an effect/ai Toolkit
// -----------------------------------------------------------------------------

/** A tool definition for `effect/ai`, with a JSON Schema; cached per definition. */
const toAiTool = definitionCache((tool): AiTool =>
  Tool.dynamic(tool.name, { description: tool.description, parameters: tool.parameters })
)

/** The same, sent deferred (`native` delivery); cached per definition. */
const toDeferredAiTool = definitionCache((tool): AiTool =>
  // `annotate` clones the tool with its prototype: still the same dynamic tool, typed as a plain one
  toAiTool(tool).annotate(NativeDeferral.DeferLoading, true) as AiTool
)

/** A tool as `effect/ai` sees it here: a JSON Schema, results of any JSON shape, no requirements. */
export type AiTool = Tool.Dynamic<string, {
  readonly parameters: JsonSchema.JsonSchema
  readonly success: typeof Schema.Unknown
  readonly failure: typeof Schema.Never
  readonly failureMode: "error"
}>

/** `tools`, then `deferred` (annotated to be sent deferred), as a `Toolkit` whose handler is `handle`. */
export const toolkitOf = <R>(
  tools: ReadonlyArray<Definition>,
  handle: (call: Call) => Effect.Effect<Outcome, never, R>,
  deferred: ReadonlyArray<Definition> = []
): Toolkit.WithHandler<Record<string, AiTool>> => {
  const aiTools: Record<string, AiTool> = {}
  for (const tool of tools) aiTools[tool.name] = toAiTool(tool)
  for (const tool of deferred) aiTools[tool.name] ??= toDeferredAiTool(tool)
  const run = (name: string, params: unknown, toolCallId?: string) =>
    Effect.map(handle({ id: toolCallId ?? "", name, params }), (outcome) =>
      Stream.succeed({
        result: outcome.result,
        encodedResult: outcome.result,
        isFailure: outcome.isFailure,
        preliminary: false
      }))
  // `handle` accepts any name and JSON parameters and never fails: wider than the generic signature. It
  // needs the unit, which effect/ai's resolution does not provide: requests are sent with
  // `requestOptions`, so effect/ai hands the calls back and never runs it.
  return { tools: aiTools, handle: run as unknown as Toolkit.WithHandler<Record<string, AiTool>>["handle"] }
}
