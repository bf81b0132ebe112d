/**
 * One execution unit — a turn or a fork — as a record, and how it runs. A unit opens a `Scope`
 * with a fresh `Activation` (seeded by the activation policy for a turn, empty or a snapshot for a
 * fork) and, when the executor offers resources, a fresh `RevealedResources` (never inherited),
 * builds its view and its `UnitToolkit` once, runs the loop in a fiber owned by the scope, and for
 * a turn records what the session carries over.
 */
import {
  Activation,
  Disclosure,
  ResourceCatalog,
  ResourceView,
  RevealedResources,
  TableOfContents,
  ToolCatalog,
  ToolView
} from "@tool-search/core"
import { Effect, Fiber, Option, Ref } from "effect"
import { type AiError, Prompt } from "effect/ai"
import * as ActivationPolicy from "../ActivationPolicy.js"
import type { TurnInput, TurnResult } from "../Executor.js"
import { TokenCounter } from "../TokenCounter.js"
import * as TurnEvent from "../TurnEvent.js"
import * as UnitToolkit from "../UnitToolkit.js"
import type { Agent } from "./agent.js"
import * as Delivery from "./delivery.js"
import * as Forks from "./forks.js"
import * as Loop from "./loop.js"

/** Where a unit's events go. */
export type Emit = (event: TurnEvent.TurnEvent) => Effect.Effect<void>

/** Everything one unit's loop reads, built once when the unit starts. */
export interface Unit {
  readonly agent: Agent
  readonly input: TurnInput
  /** `[]` for a turn, one element per fork level. */
  readonly path: ReadonlyArray<string>
  readonly isTurn: boolean
  readonly emit: Emit
  /** The unit's tools, with its resource tools when the executor offers resources. */
  readonly view: ToolView.Service
  readonly activation: Activation.Service
  /** Tool ids the unit started with. */
  readonly carried: ReadonlyArray<string>
  /** The prompt of the first request: the input, the system prompt, the table of contents. */
  readonly prompt: Prompt.Prompt
  /** Ids the unit's searches returned, in order (what the `latest` policy carries over). */
  readonly searched: Ref.Ref<ReadonlyArray<string>>
  /** The unit's tools and the one code path of their calls. */
  readonly toolkit: UnitToolkit.UnitToolkit
  /** What each request sends, and how the calls of a response are answered. */
  readonly delivery: Delivery.Delivery
}

/** Runs one unit: a turn (`path` empty) or a fork. */
export const run = (
  agent: Agent,
  input: TurnInput,
  path: ReadonlyArray<string>,
  emit: Emit
): Effect.Effect<TurnResult, AiError.AiError> =>
  Effect.scoped(Effect.gen(function*() {
    const { catalog, options, store } = agent
    const initialPrompt = withSystem(Prompt.make(input.prompt), options.systemPrompt)
    const isTurn = path.length === 0
    const carried = input.activation ?? (isTurn
      ? yield* ActivationPolicy.initial(options.activationPolicy, {
        sessionId: input.sessionId,
        prompt: initialPrompt,
        store,
        catalog
      })
      : [])
    const activation = yield* Activation.make(carried)
    const searched = yield* Ref.make<ReadonlyArray<string>>([])
    const unit = yield* Effect.gen(function*() {
      const tools = yield* ToolView.make
      const resources = yield* resourceViewOf(agent)
      const view = resources === undefined ? tools : ResourceView.withResources(tools, resources)
      // the tables of contents (tools in staged mode, resources in every mode) join the system
      // prompt, built once per unit so the prompt (and the provider's cache of it) stays the same
      // for the whole turn
      const contents = [
        yield* TableOfContents.promptOf(tools, agent.tableOfContents),
        resources === undefined ? "" : yield* TableOfContents.resourcePromptOf(resources, agent.tableOfContents)
      ].filter((section) => section !== "").join("\n\n")
      const prompt = contents === "" ? initialPrompt : Prompt.appendSystem(initialPrompt, `\n\n${contents}`)
      const base = { agent, input, path, isTurn, emit, view, activation, carried, prompt, searched }
      // Forks do not fork again: one level of sub-agents keeps the cost of a turn bounded.
      const extraTools = options.forks === undefined || !isTurn
        ? []
        : [Forks.delegateTool(base, (task, forkPath) => run(agent, task, forkPath, emit))]
      const toolkit = yield* UnitToolkit.make({
        toolConcurrency: options.toolConcurrency,
        toolTimeout: options.toolTimeout,
        toolResultMaxTokens: options.toolResultMaxTokens,
        toolArgumentsMaxSize: options.toolArgumentsMaxSize,
        toolArgumentsMaxDepth: options.toolArgumentsMaxDepth,
        extraTools,
        observer: observerOf(base),
        dispatcher: options.delivery === "result"
      }).pipe(Effect.provideService(ToolView.ToolView, view))
      const delivery = yield* Delivery.make(options.delivery, toolkit, view)
      return { ...base, toolkit, delivery } satisfies Unit
    }).pipe(
      agent.withPolicies,
      Effect.provideService(Activation.Activation, activation),
      Effect.provideService(ToolCatalog.ToolCatalog, catalog),
      Effect.provideService(TokenCounter, agent.counter)
    )
    // The loop runs in a fiber owned by this scope: interrupting the turn interrupts it and
    // everything it started, then the scope closes and the activation ends.
    const fiber = yield* Effect.forkScoped(Loop.run(unit))
    const result = yield* Fiber.join(fiber)
    if (isTurn) {
      yield* ActivationPolicy.record(options.activationPolicy, {
        sessionId: input.sessionId,
        store,
        turn: { active: yield* activation.ids, searched: yield* Ref.get(searched) }
      })
    }
    return result
  }))

/**
 * The unit's resource view when the executor offers resources: over a fresh revealed set bound to
 * the unit's scope, so a reveal ends with the turn and a fork starts with nothing revealed.
 */
const resourceViewOf = (agent: Agent) =>
  Option.match(agent.resources, {
    onNone: () => Effect.succeed(undefined),
    onSome: (catalog) =>
      Effect.flatMap(RevealedResources.make([]), (revealed) =>
        ResourceView.make.pipe(
          Effect.provideService(ResourceCatalog.ResourceCatalog, catalog),
          Effect.provideService(RevealedResources.RevealedResources, revealed)
        ))
  })

/** The meta tools that read rather than find. */
const READS: ReadonlySet<string> = new Set([Disclosure.READ_RESOURCE, Disclosure.GET_PROMPT])

/** Turns each call's start and outcome into events, and collects what searches returned. */
const observerOf = (unit: Omit<Unit, "toolkit" | "delivery">): UnitToolkit.Observer => {
  const { agent, emit, path, searched } = unit
  return {
    onCall: (call) =>
      emit(TurnEvent.ToolCall({
        path,
        id: call.id,
        name: call.name,
        params: call.params,
        ...(call.via === undefined ? {} : { via: call.via })
      })),
    onOutcome: (outcome) =>
      Effect.gen(function*() {
        const { call } = outcome
        // a search tool that ran (not one refused before running) reports what it found; reading
        // a resource or rendering a prompt finds nothing
        if (outcome.tool !== undefined && outcome.found !== undefined && !READS.has(call.name)) {
          const found = outcome.found
          yield* emit(TurnEvent.Search({ path, tool: call.name, query: describeQuery(call.params), found }))
          // browsing (`search_tools`) loads nothing, and resource tools find resources, not tools:
          // neither counts as "returned"
          if (outcome.tool.name !== Disclosure.SEARCH_TOOLS && !Disclosure.RESOURCE_TOOL_NAMES.includes(call.name)) {
            const ids = found.flatMap((name) => agent.catalog.findByNameUnsafe(name)?.id ?? [])
            yield* Ref.update(searched, (before) => [...before, ...ids])
          }
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
          ...(call.via === undefined ? {} : { via: call.via })
        }))
      })
  }
}

const withSystem = (prompt: Prompt.Prompt, system: string | undefined): Prompt.Prompt =>
  system === undefined || prompt.content.some((m) => m.role === "system") ? prompt : Prompt.setSystem(prompt, system)

const describeQuery = (params: unknown): string => {
  if (typeof params !== "object" || params === null) return ""
  if ("query" in params && typeof params.query === "string") return params.query
  if ("toolNames" in params && Array.isArray(params.toolNames)) return `toolNames: ${params.toolNames.join(", ")}`
  return ""
}
