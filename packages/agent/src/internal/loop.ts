/**
 * The loop of one unit: each iteration asks the unit's delivery strategy for the tools of the
 * request, calls the model with exactly those, and dispatches the calls of the response, until the
 * model answers without tool calls or the budget ends. The token accounting of each request — the
 * tool definitions sent, the input tokens, the prefix an earlier request of the executor shared —
 * and of the unit is reported in its events and added to the executor's totals.
 */
import { Disclosure, Tracing, Unit, type Visibility } from "@tool-search/core"
import { Duration, Effect, Option } from "effect"
import { type AiError, Prompt } from "effect/ai"
import type { StopReason, TurnResult } from "../Executor.js"
import * as TurnEvent from "../TurnEvent.js"
import { requestOptions } from "./calls.js"
import type { Run } from "./run.js"

/** What changes from one iteration to the next; owned by the unit's loop fiber alone. */
interface TurnState {
  prompt: Prompt.Prompt
  text: string
  iterations: number
  toolTokens: number
  eagerToolTokens: number
  inputTokens: number
  prefixTokens: number
  /** Discovery-first: the next request is forced to the search tool. Consumed by the first request. */
  forceSearch: boolean
}

/**
 * Runs the loop of `unit` to its end: answered, out of iterations, or — with a turn timeout — out of
 * time, when what still runs is interrupted (each such call reports `ToolInterrupted`).
 */
export const run: (unit: Run) => Effect.Effect<TurnResult, AiError.AiError, Unit.Unit> = Effect.fnUntraced(
  function*(unit: Run) {
    const { agent, emit, input, path } = unit
    const budget = Math.max(1, input.maxIterations ?? agent.options.maxIterations)
    const state: TurnState = {
      prompt: unit.prompt,
      text: "",
      iterations: 0,
      toolTokens: 0,
      eagerToolTokens: 0,
      inputTokens: 0,
      prefixTokens: 0,
      forceSearch: agent.options.discoveryFirst
    }
    if (emit !== undefined) {
      yield* emit(TurnEvent.TurnStarted({
        path,
        sessionId: input.sessionId ?? null,
        carried: unit.carried.flatMap((id) => agent.catalog.getUnsafe(id)?.modelName ?? []),
        deferring: yield* Unit.deferring
      }))
    }

    // the policies are the unit's, read once when it started
    const { visibility } = yield* Unit.policies
    const loop = iterateAll(unit, state, visibility, budget)
    const timeout = agent.options.turnTimeout
    const stopReason: StopReason = timeout === undefined
      ? yield* loop
      : Option.getOrElse(yield* Effect.timeoutOption(loop, Duration.fromInputUnsafe(timeout)), () => "timeout")

    const activated = yield* Unit.snapshot
    const { eagerToolTokens, inputTokens, iterations, prefixTokens, prompt, text, toolTokens } = state
    const tokens = { toolTokens, eagerToolTokens, inputTokens, prefixTokens }
    yield* agent.tokens.add({ isTurn: unit.isTurn, requests: iterations, ...tokens })
    if (emit !== undefined) {
      yield* emit(TurnEvent.TurnFinished({ path, stopReason, iterations, text, activated, ...tokens }))
    }
    return { stopReason, text, iterations, prompt, activated, ...tokens, requests: iterations }
  },
  (effect, unit) => effect.pipe(Tracing.span("tool-search.turn", { attributes: () => ({ path: unit.path.join("/") }) }))
)

/** Iterates until the model answers or the budget ends. */
const iterateAll = Effect.fnUntraced(
  function*(unit: Run, state: TurnState, visibility: Visibility.Visibility, budget: number) {
    while (state.iterations < budget) {
      state.iterations++
      if (yield* iterate(unit, state, visibility)) return "answered" as const
    }
    return "max-iterations" as const
  }
)

/** One iteration: the tools, the model call, the calls. True when the model answered. */
const iterate: (
  unit: Run,
  state: TurnState,
  visibility: Visibility.Visibility
) => Effect.Effect<boolean, AiError.AiError, Unit.Unit> = Effect.fnUntraced(
  function*(unit: Run, state: TurnState, visibility: Visibility.Visibility) {
    const { agent, delivery, emit, path } = unit
    const iteration = state.iterations
    if (emit !== undefined) yield* emit(TurnEvent.IterationStarted({ path, iteration }))
    // Asked every iteration: under `list`, what the previous iteration activated is sent now.
    const { deferred, tools } = yield* delivery.request
    const searchTool = state.forceSearch ? Disclosure.discoveryTool(tools.map((t) => t.name)) : undefined
    state.forceSearch = false
    const sent = agent.tokens.sent(tools)
    const eager = agent.tokens.eager(agent.catalog, visibility)
    const { inputTokens, prefixTokens } = agent.prefix.observe({ tools, deferred, prompt: state.prompt })
    state.toolTokens += sent
    state.eagerToolTokens += eager
    state.inputTokens += inputTokens
    state.prefixTokens += prefixTokens
    if (emit !== undefined) {
      yield* emit(TurnEvent.ModelRequest({
        path,
        iteration,
        tools: tools.map((t) => t.name),
        toolTokens: sent,
        eagerToolTokens: eager,
        toolChoice: searchTool ?? "auto",
        inputTokens,
        prefixTokens,
        ...(deferred.length === 0 ? {} : { deferredTools: deferred.length })
      }))
    }
    const response = yield* agent.model.generateText({
      prompt: state.prompt,
      toolkit: unit.delivery.toolkitOf(tools, deferred),
      toolChoice: searchTool === undefined ? "auto" : { tool: searchTool },
      ...requestOptions
    }) // in effect/ai's own span, `LanguageModel.generateText`, a child of the iteration's
    state.prompt = Prompt.concat(state.prompt, Prompt.fromResponseParts(response.content))
    state.text = response.text
    if (emit !== undefined) {
      yield* emit(TurnEvent.ModelResponse({
        path,
        iteration,
        text: response.text,
        toolCalls: response.toolCalls.map((c) => c.name),
        inputTokens: response.usage.inputTokens.total ?? null,
        cachedInputTokens: response.usage.inputTokens.cacheRead ?? null,
        outputTokens: response.usage.outputTokens.total ?? null
      }))
    }
    if (response.toolCalls.length === 0) return true
    state.prompt = Prompt.concat(state.prompt, yield* delivery.dispatch(response.toolCalls))
    return false
  },
  (effect, _unit, state) =>
    effect.pipe(Tracing.span("tool-search.iteration", { attributes: () => ({ iteration: state.iterations }) }))
)
