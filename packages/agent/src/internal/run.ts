/**
 * One execution unit of the executor — a turn or a fork — as a record, and how it runs. Every unit
 * is made by `Unit.provideWith` (the core's one unit layer: its activation, revealed resources,
 * views and the policies read for it) over the catalog; the executor provides no service by hand.
 * A turn starts with what its activation policy carries over (or the explicit `activation` of its
 * input), a fork with nothing or a snapshot of its parent's. The loop runs inside the unit; every
 * tool call and fork runs as the unit's child fiber, so its end interrupts whatever still runs.
 */
import { CodeMode } from "@tool-search/code"
import { Disclosure, ResourceCatalog, ToolCatalog, Unit, type UnknownTools, Visibility } from "@tool-search/core"
import { Effect, Option, Ref } from "effect"
import { type AiError, Prompt } from "effect/ai"
import * as ActivationPolicy from "../ActivationPolicy.js"
import type { ForkInput, TurnInput, TurnResult } from "../Executor.js"
import * as TurnEvent from "../TurnEvent.js"
import * as UnitToolkit from "../UnitToolkit.js"
import type { Agent } from "./agent.js"
import * as Delivery from "./delivery.js"
import * as Forks from "./forks.js"
import * as Loop from "./loop.js"
import * as Prompts from "./prompt.js"

/** Where a unit's events go: `undefined` when nobody listens (`Executor.run`), and then none is built. */
export type Emit = ((event: TurnEvent.TurnEvent) => Effect.Effect<void>) | undefined

/** What a unit can fail with: its model calls, or an activation it was told to start with. */
export type RunError = AiError.AiError | UnknownTools

/** Everything one unit's loop reads, built once when the unit starts. */
export interface Run {
  readonly agent: Agent
  readonly input: TurnInput
  /** `[]` for a turn, one element per fork level. */
  readonly path: ReadonlyArray<string>
  readonly isTurn: boolean
  readonly emit: Emit
  /** Tool ids the unit started with. */
  readonly carried: ReadonlyArray<string>
  /** The prompt of the first request: the input, the system prompt, the tables of contents. */
  readonly prompt: Prompt.Prompt
  /** Ids the unit's searches returned, in order (what the `latest` policy carries over). */
  readonly searched: Ref.Ref<ReadonlyArray<string>>
  /** The unit's tools and the one code path of their calls. */
  readonly toolkit: UnitToolkit.UnitToolkit
  /** What each request sends, and how the calls of a response are answered. */
  readonly delivery: Delivery.Delivery
}

/** Runs one turn: its activation comes from the input, else from the activation policy. */
export const turn: (agent: Agent, input: TurnInput, emit: Emit) => Effect.Effect<TurnResult, RunError> = Effect
  .fnUntraced(function*(agent: Agent, input: TurnInput, emit: Emit) {
    const { catalog, options, store } = agent
    const prompt = withSystem(Prompts.make(input.prompt), options.systemPrompt)
    // an explicit activation is checked (an unknown id is an error); what a policy carries over is
    // what still exists for this agent (a tool removed or hidden since the last turn is simply gone)
    const visibility = yield* Visibility.Visibility
    const carried = input.activation ?? (yield* ActivationPolicy.initial(options.activationPolicy, {
      sessionId: input.sessionId,
      prompt,
      store,
      catalog
    })).filter((id) => {
      const tool = catalog.getUnsafe(id)
      return tool !== undefined && visibility.includes(tool)
    })
    return yield* unit(agent, input, prompt, [], carried, emit)
  }, (effect, agent) => agent.withPolicies(effect))

/** Runs a fork at `parent`'s path (`[]` for a fork started by the app): a unit of its own. */
export const fork: (
  agent: Agent,
  input: ForkInput,
  parent: ReadonlyArray<string>,
  emit: Emit
) => Effect.Effect<TurnResult, RunError> = Effect.fnUntraced(
  function*(agent: Agent, input: ForkInput, parent: ReadonlyArray<string>, emit: Emit) {
    const { options } = agent
    const n = yield* Ref.updateAndGet(agent.forks, (k) => k + 1)
    const task: TurnInput = {
      prompt: typeof input.task === "string" ? [{ role: "user", content: input.task }] : input.task,
      maxIterations: input.maxIterations ?? options.forks?.maxIterations ?? options.maxIterations
    }
    const prompt = withSystem(Prompts.make(task.prompt), options.systemPrompt)
    const carried = input.inherit === "nothing" ? [] : input.inherit
    return yield* unit(agent, task, prompt, [...parent, `fork-${n}`], carried, emit)
  },
  (effect, agent) => agent.withPolicies(effect)
)

/**
 * Runs one unit inside its own `Unit` (the caller applied the policies: `agent.withPolicies`). Its
 * toolkit is made first: under `code` delivery the unit's programs call through it.
 */
const unit = Effect.fnUntraced(
  function*(
    agent: Agent,
    input: TurnInput,
    initialPrompt: Prompt.Prompt,
    path: ReadonlyArray<string>,
    carried: ReadonlyArray<string>,
    emit: Emit
  ) {
    const { catalog, options } = agent
    const isTurn = path.length === 0
    const searched = yield* Ref.make<ReadonlyArray<string>>([])
    // Forks do not fork again: one level of sub-agents keeps the cost of a turn bounded.
    const extraTools = options.forks === undefined || !isTurn
      ? []
      : [Forks.delegateTool(options, (task) => fork(agent, task, path, emit))]
    const toolkit = yield* UnitToolkit.make({
      toolConcurrency: options.toolConcurrency,
      toolTimeout: options.toolTimeout,
      toolResultMaxTokens: options.toolResultMaxTokens,
      toolArgumentsMaxSize: options.toolArgumentsMaxSize,
      toolArgumentsMaxDepth: options.toolArgumentsMaxDepth,
      extraTools,
      observer: observerOf({ agent, emit, path, searched })
    })
    // code delivery: the unit's programs run in the executor's sandbox, each of their calls
    // through this toolkit — the path of every other call
    const code = Option.getOrUndefined(
      Option.map(agent.sandbox, (sandbox) => CodeMode.make({ sandbox, call: toolkit.handle }))
    )
    const base = { agent, input, path, isTurn, emit, carried, prompt: initialPrompt, searched }
    const inUnit = body(base, toolkit).pipe(
      Unit.provideWith({
        seed: carried,
        resources: Option.isSome(agent.resources),
        dispatcher: options.delivery === "result",
        code
      }),
      Effect.provideService(ToolCatalog.ToolCatalog, catalog)
    )
    return yield* Option.match(agent.resources, {
      onNone: () => inUnit,
      onSome: (resources) => Effect.provideService(inUnit, ResourceCatalog.ResourceCatalog, resources)
    })
  }
)

/** The body of a unit, inside it: its prompt with the unit's tables of contents, then its loop. */
const body = Effect.fnUntraced(function*(base: Omit<Run, "toolkit" | "delivery">, toolkit: UnitToolkit.UnitToolkit) {
  const { agent, input, isTurn, searched } = base
  // the tables of contents (tools in staged mode, resources in every mode) join the system
  // prompt, built once per unit so the prompt (and the provider's cache of it) stays the same
  // for the whole unit
  const contents = yield* Unit.contents
  const prompt = contents === "" ? base.prompt : Prompt.appendSystem(base.prompt, `\n\n${contents}`)
  const delivery = Delivery.make(agent.options.delivery, toolkit)
  const result = yield* Loop.run({ ...base, prompt, toolkit, delivery })
  if (isTurn) {
    yield* ActivationPolicy.record(agent.options.activationPolicy, {
      sessionId: input.sessionId,
      store: agent.store,
      turn: { active: result.activated, searched: yield* Ref.get(searched) }
    })
  }
  return result
})

/** The meta tools that read rather than find. */
const READS: ReadonlySet<string> = new Set([Disclosure.toolNames.readResource, Disclosure.toolNames.getPrompt])

/** Turns each call's start, outcome and interruption into events, and collects what searches returned. */
const observerOf = (
  run: Pick<Run, "agent" | "emit" | "path" | "searched">
): UnitToolkit.Observer => {
  const { agent, emit, path, searched } = run
  // what searches returned is collected whether or not anyone listens (the `latest` policy reads it)
  const collect = (outcome: UnitToolkit.Outcome): Effect.Effect<void> => {
    const { call, found, tool } = outcome
    // browsing (`search_tools`) loads nothing, and resource tools find resources, not tools:
    // neither counts as "returned"
    if (
      !searchRan(outcome) || tool?.name === Disclosure.toolNames.searchTools || Disclosure.isResourceTool(call.name)
    ) return Effect.void
    const ids = (found ?? []).flatMap((name) => agent.catalog.findByNameUnsafe(name)?.id ?? [])
    return Ref.update(searched, (before) => [...before, ...ids])
  }
  if (emit === undefined) return { onOutcome: collect }
  return {
    onCall: (call) =>
      emit(TurnEvent.ToolCall({ path, id: call.id, name: call.name, params: call.params, ...via(call) })),
    onInterrupted: (call) => emit(TurnEvent.ToolInterrupted({ path, id: call.id, name: call.name, ...via(call) })),
    onOutcome: (outcome) => outcomeEvents(emit, path, collect, outcome)
  }
}

/** The events of one call's outcome, and what its search returned collected. */
const outcomeEvents = Effect.fnUntraced(function*(
  emit: (event: TurnEvent.TurnEvent) => Effect.Effect<void>,
  path: ReadonlyArray<string>,
  collect: (outcome: UnitToolkit.Outcome) => Effect.Effect<void>,
  outcome: UnitToolkit.Outcome
) {
  const { call } = outcome
  if (searchRan(outcome)) {
    const found = outcome.found ?? []
    yield* emit(TurnEvent.Search({ path, tool: call.name, query: describeQuery(call.params), found }))
    yield* collect(outcome)
    const activated = outcome.activated ?? []
    if (activated.length > 0) yield* emit(TurnEvent.Activation({ path, tools: activated }))
  }
  yield* emit(TurnEvent.ToolResult({
    path,
    id: call.id,
    name: call.name,
    isFailure: outcome.isFailure,
    failure: outcome.failure,
    result: outcome.result,
    truncated: outcome.truncated,
    ...via(call)
  }))
})

/** A call made through a dispatcher or a program says so in its events. */
const via = (call: UnitToolkit.Call) => call.via === undefined ? {} : { via: call.via }

/**
 * A search tool that ran (not one refused before running): it reports what it found. Reading a
 * resource or rendering a prompt finds nothing.
 */
const searchRan = (outcome: UnitToolkit.Outcome): boolean =>
  outcome.tool !== undefined && outcome.found !== undefined && !READS.has(outcome.call.name)

const withSystem = (prompt: Prompt.Prompt, system: string | undefined): Prompt.Prompt =>
  system === undefined || prompt.content.some((m) => m.role === "system") ? prompt : Prompt.setSystem(prompt, system)

const describeQuery = (params: unknown): string => {
  if (typeof params !== "object" || params === null) return ""
  if ("query" in params && typeof params.query === "string") return params.query
  if ("toolNames" in params && Array.isArray(params.toolNames)) return `toolNames: ${params.toolNames.join(", ")}`
  return ""
}
