/**
 * The executor: a ReAct loop on `effect/ai`'s `LanguageModel` in which the tools sent to the model
 * are re-read from the view at every iteration.
 *
 * A turn opens a `Scope` with a fresh `Activation` (seeded by the activation policy), then loops:
 * read `ToolView.visible`, call the model with exactly those tools, run the tool calls, append the
 * results, until the model answers without tool calls or the iteration budget ends. Tools activated
 * in iteration n are therefore in the request of iteration n + 1.
 *
 * Tool calls are resolved here, not by `effect/ai` (which fails a whole request on a name outside
 * the toolkit): a deferred tool that is not active, an unknown name, a denied permission or
 * approval, a failing tool and a crashing tool all become a tool result the model can act on. The
 * search tools of one iteration run first and in order, so activation order is deterministic; the
 * other calls then run concurrently, bounded. The turn runs in a fiber owned by its scope:
 * interrupting it interrupts every tool call and fork, and closes the scope, ending the activation.
 *
 * @since 0.1.0
 */
import {
  Activation,
  CatalogTool,
  Disclosure,
  Permission,
  TableOfContents,
  ToolCatalog,
  ToolSearchConfig,
  ToolView,
  Visibility
} from "@tool-search/core"
import { type Config, Context, Effect, Fiber, Layer, Option, Queue, Ref, Result, Stream } from "effect"
import type { JsonSchema } from "effect"
import { type AiError, LanguageModel, Prompt, type Response, Tool, Toolkit } from "effect/ai"
import * as ActivationPolicy from "./ActivationPolicy.js"
import * as AgentConfig from "./AgentConfig.js"
import * as Approval from "./Approval.js"
import * as Eviction from "./Eviction.js"
import { makeMemory, SessionStore } from "./SessionStore.js"
import { definitionCache, TokenCounter } from "./TokenCounter.js"
import type { TurnEvent } from "./TurnEvent.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/** How sub-agents (forks) are offered to the model. */
export interface ForkOptions {
  /** The iteration budget of a fork. */
  readonly maxIterations: number
  /** Whether a fork starts with a snapshot copy of its parent's activation (default: fresh). */
  readonly inheritActivation: boolean
}

/** The executor's settings. */
export interface Options {
  /** Model calls per turn before the turn stops with `max-iterations`. */
  readonly maxIterations: number
  /** Tool calls of one iteration that run at once (search tools always run one by one). */
  readonly toolConcurrency: number
  /** What a new turn starts with. */
  readonly activationPolicy: ActivationPolicy.Policy
  /** Force the first model call of each turn to the search tool (weak models). */
  readonly discoveryFirst: boolean
  /** A system message put first when the prompt has none. */
  readonly systemPrompt?: string
  /** Offer the `delegate_task` tool that runs a sub-agent (to turns, not to forks); absent: no forks. */
  readonly forks?: ForkOptions
}

/** The defaults: 10 iterations, 4 concurrent calls, `turn` policy, no forcing, no forks. */
export const defaults: Options = {
  maxIterations: 10,
  toolConcurrency: 4,
  activationPolicy: "turn",
  discoveryFirst: false
}

/** One turn to run. */
export interface TurnInput {
  /** The session, for the `session` and `latest` policies. */
  readonly sessionId?: string
  /** The conversation so far, ending with the new user message. */
  readonly prompt: Prompt.RawInput
  /** Overrides the iteration budget of this turn. */
  readonly maxIterations?: number
  /**
   * Tool ids the turn starts with, instead of what the activation policy gives: an explicit
   * snapshot (a fork that copies its parent's activation).
   */
  readonly activation?: ReadonlyArray<string>
}

/** Why a turn ended. */
export type StopReason = "answered" | "max-iterations"

/** What a turn produced. */
export interface TurnResult {
  readonly stopReason: StopReason
  /** The model's last text. */
  readonly text: string
  readonly iterations: number
  /** The conversation after the turn: pass it (plus the next user message) to the next turn. */
  readonly prompt: Prompt.Prompt
  /** Model names active at the end of the turn, in activation order. */
  readonly activated: ReadonlyArray<string>
  /** Tokens of the tool definitions sent, summed over the turn's requests. */
  readonly toolTokens: number
  /** What sending every tool on every request would have cost. */
  readonly eagerToolTokens: number
  readonly requests: number
}

/** Token accounting since the executor was built. */
export interface Totals {
  readonly turns: number
  readonly requests: number
  readonly toolTokens: number
  readonly eagerToolTokens: number
}

/** The name of the fork tool. */
export const DELEGATE_TASK = "delegate_task"

// -----------------------------------------------------------------------------
// Service
// -----------------------------------------------------------------------------

/** The agent's executor. */
export class Executor extends Context.Service<Executor, {
  /** Runs one turn. */
  readonly run: (input: TurnInput) => Effect.Effect<TurnResult, AiError.AiError>
  /** Runs one turn, emitting its events; the last event is `turn-finished`. */
  readonly stream: (input: TurnInput) => Stream.Stream<TurnEvent, AiError.AiError>
  /** Token accounting of every turn so far. */
  readonly totals: Effect.Effect<Totals>
  /** The settings in use. */
  readonly options: Options
}>()("@tool-search/agent/Executor") {
  /**
   * An executor over the `LanguageModel`, `ToolCatalog` and `TokenCounter` in context. A
   * `SessionStore` is used when provided; otherwise an in-memory one is made for this executor.
   * The disclosure, visibility, permission and approval policies in context when the layer is built
   * apply to every turn.
   */
  static readonly layer = (
    options: Partial<Options> = {}
  ): Layer.Layer<Executor, never, LanguageModel.LanguageModel | ToolCatalog.ToolCatalog | TokenCounter> =>
    Layer.effect(Executor, make({ ...defaults, ...options }))

  /**
   * An executor configured by the settings: discovery-first from the core settings in context
   * (`ToolSearchConfig.layer`), the activation policy and an in-memory session store with the
   * configured eviction from `AgentConfig` (the `ConfigProvider` in context, the environment by
   * default). `options` set what the settings do not.
   */
  static readonly layerConfig = (
    options: Partial<Options> = {}
  ): Layer.Layer<
    Executor,
    Config.ConfigError,
    LanguageModel.LanguageModel | ToolCatalog.ToolCatalog | TokenCounter
  > =>
    Layer.unwrap(
      Effect.map(
        Effect.all([Effect.service(ToolSearchConfig.ToolSearchConfig), AgentConfig.config]),
        ([core, settings]) =>
          Executor.layer({ ...options, discoveryFirst: core.discoveryFirst, activationPolicy: settings.activation })
            .pipe(
              Layer.provide(SessionStore.memory(settings.eviction))
            )
      )
    )
}

// -----------------------------------------------------------------------------
// Implementation
// -----------------------------------------------------------------------------

type Emit = (event: TurnEvent) => Effect.Effect<void>

const DELEGATE_PARAMETERS: JsonSchema.JsonSchema = {
  type: "object",
  properties: {
    task: { type: "string", description: "The task, self-contained: the sub-agent sees nothing else" }
  },
  required: ["task"],
  additionalProperties: false
}

/** Builds an executor. */
export const make = (options: Options) =>
  Effect.gen(function*() {
    const model = yield* LanguageModel.LanguageModel
    const catalog = yield* ToolCatalog.ToolCatalog
    const counter = yield* TokenCounter
    const store = yield* Effect.serviceOption(SessionStore).pipe(
      Effect.flatMap(Option.match({ onSome: Effect.succeed, onNone: () => makeMemory(Eviction.defaultStrategy) }))
    )
    // Agent-level policies, fixed when the executor is built.
    const disclosure = yield* Disclosure.Disclosure
    const visibility = yield* Visibility.Visibility
    const permission = yield* Permission.Permission
    const approval = yield* Approval.Approval
    const tableOfContents = yield* TableOfContents.TableOfContents
    const totals = yield* Ref.make<Totals>({ turns: 0, requests: 0, toolTokens: 0, eagerToolTokens: 0 })
    const forkCounter = yield* Ref.make(0)

    const withPolicies = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      effect.pipe(
        Effect.provideService(Disclosure.Disclosure, disclosure),
        Effect.provideService(Visibility.Visibility, visibility),
        Effect.provideService(Permission.Permission, permission)
      )

    // ---------------------------------------------------------------------------
    // Tool definitions for effect/ai, cached per definition
    // ---------------------------------------------------------------------------

    const toAiTool = definitionCache((tool) => dynamicTool(tool.name, tool.description, tool.parameters))

    // What sending every tool would cost: recomputed only when the catalog changes.
    let eagerCost = { version: -1, tokens: 0 }
    const eagerToolTokens = Effect.suspend(() => {
      const version = catalog.unsafe.version()
      if (eagerCost.version === version) return Effect.succeed(eagerCost.tokens)
      return Effect.map(catalog.all, (all) => {
        const tokens = all.filter(visibility.includes).reduce(
          (sum, t) =>
            sum + counter.definition({ name: t.modelName, description: t.description, parameters: t.parameters }),
          0
        )
        eagerCost = { version, tokens }
        return tokens
      })
    })

    // ---------------------------------------------------------------------------
    // One execution unit: a turn or a fork
    // ---------------------------------------------------------------------------

    const runUnit = (
      input: TurnInput,
      path: ReadonlyArray<string>,
      emit: Emit
    ): Effect.Effect<TurnResult, AiError.AiError> =>
      Effect.scoped(Effect.gen(function*() {
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
        const view = yield* withPolicies(ToolView.make).pipe(
          Effect.provideService(Activation.Activation, activation),
          Effect.provideService(ToolCatalog.ToolCatalog, catalog)
        )
        // staged mode: the table of contents joins the system prompt, built once per unit so the
        // prompt (and the provider's cache of it) stays the same for the whole turn
        const contents = yield* TableOfContents.promptOf(view, tableOfContents)
        const prompt = contents === "" ? initialPrompt : Prompt.appendSystem(initialPrompt, `\n\n${contents}`)
        const body = loop(input, prompt, path, emit, view, activation, carried)
        // The loop runs in a fiber owned by this scope: interrupting the turn interrupts it and
        // everything it started, then the scope closes and the activation ends.
        const fiber = yield* Effect.forkScoped(body)
        const result = yield* Fiber.join(fiber)
        if (isTurn) {
          yield* ActivationPolicy.record(options.activationPolicy, {
            sessionId: input.sessionId,
            store,
            turn: { active: yield* activation.ids, searched: result.searched }
          })
        }
        return result.turn
      }))

    const loop = (
      input: TurnInput,
      initialPrompt: Prompt.Prompt,
      path: ReadonlyArray<string>,
      emit: Emit,
      view: ToolView.ToolView["Service"],
      activation: Activation.Activation["Service"],
      carried: ReadonlyArray<string>
    ): Effect.Effect<{ readonly turn: TurnResult; readonly searched: ReadonlyArray<string> }, AiError.AiError> =>
      Effect.gen(function*() {
        const budget = Math.max(1, input.maxIterations ?? options.maxIterations)
        const forceSearch = yield* Ref.make(options.discoveryFirst)
        const searched: Array<string> = []
        let prompt = initialPrompt
        let text = ""
        let toolTokens = 0
        let eagerTokens = 0
        let iterations = 0
        let stopReason: StopReason = "max-iterations"

        yield* emit({
          type: "turn-started",
          path,
          sessionId: input.sessionId ?? null,
          carried: carried.flatMap((id) => catalog.unsafe.get(id)?.modelName ?? [])
        })

        // Forks do not fork again: one level of sub-agents keeps the cost of a turn bounded.
        const executorTools = options.forks === undefined || path.length > 0
          ? []
          : [delegateTool(path, emit, activation)]

        /** One iteration: read the view, call the model, run the calls. True when the model answered. */
        const iterate = (iteration: number) =>
          Effect.gen(function*() {
            yield* emit({ type: "iteration-started", path, iteration })
            // Re-read every iteration: what the previous iteration activated is sent now.
            const tools = [...(yield* view.visible), ...executorTools]
            const forced = yield* Ref.getAndSet(forceSearch, false)
            const searchTool = forced ? Disclosure.discoveryTool(tools.map((t) => t.name)) : undefined
            const sentTokens = tools.reduce((sum, t) => sum + counter.definition(t), 0)
            const eager = yield* eagerToolTokens
            toolTokens += sentTokens
            eagerTokens += eager
            yield* emit({
              type: "model-request",
              path,
              iteration,
              tools: tools.map((t) => t.name),
              toolTokens: sentTokens,
              eagerToolTokens: eager,
              toolChoice: searchTool ?? "auto"
            })
            const response = yield* model.generateText({
              prompt,
              toolkit: Toolkit.make(...tools.map(toAiTool)),
              toolChoice: searchTool === undefined ? "auto" : { tool: searchTool },
              disableToolCallResolution: true,
              toolCallValidation: "deferred"
            }).pipe(Effect.withSpan("tool-search.model-call", { attributes: { tools: tools.length } }, noStackTrace))
            prompt = Prompt.concat(prompt, Prompt.fromResponseParts(response.content))
            text = response.text
            yield* emit({
              type: "model-response",
              path,
              iteration,
              text: response.text,
              toolCalls: response.toolCalls.map((c) => c.name),
              inputTokens: response.usage.inputTokens.total ?? null,
              outputTokens: response.usage.outputTokens.total ?? null
            })
            if (response.toolCalls.length === 0) return true
            const results = yield* runCalls(response.toolCalls, view, executorTools, path, emit, searched)
            prompt = Prompt.concat(prompt, [{ role: "tool", content: results }])
            return false
          }).pipe(Effect.withSpan("tool-search.iteration", { attributes: { iteration } }, noStackTrace))

        while (iterations < budget) {
          iterations++
          if (yield* iterate(iterations)) {
            stopReason = "answered"
            break
          }
        }

        const activated = (yield* view.activated).map((t) => t.modelName)
        yield* Ref.update(totals, (t) => ({
          turns: t.turns + (path.length === 0 ? 1 : 0),
          requests: t.requests + iterations,
          toolTokens: t.toolTokens + toolTokens,
          eagerToolTokens: t.eagerToolTokens + eagerTokens
        }))
        yield* emit({
          type: "turn-finished",
          path,
          stopReason,
          iterations,
          text,
          activated,
          toolTokens,
          eagerToolTokens: eagerTokens
        })
        return {
          turn: {
            stopReason,
            text,
            iterations,
            prompt,
            activated,
            toolTokens,
            eagerToolTokens: eagerTokens,
            requests: iterations
          } satisfies TurnResult,
          searched
        }
      }).pipe(Effect.withSpan("tool-search.turn", { attributes: { path: path.join("/") } }, noStackTrace))

    // ---------------------------------------------------------------------------
    // Tool calls
    // ---------------------------------------------------------------------------

    type Call = Response.ToolCallParts<Record<string, Tool.Any>, "deferred">
    type ResultPart = Prompt.ToolResultPartEncoded

    const runCalls = (
      calls: ReadonlyArray<Call>,
      view: ToolView.ToolView["Service"],
      executorTools: ReadonlyArray<ToolView.ModelTool>,
      path: ReadonlyArray<string>,
      emit: Emit,
      searched: Array<string>
    ): Effect.Effect<Array<ResultPart>> =>
      Effect.gen(function*() {
        const results = new Array<ResultPart>(calls.length)
        const indexed = calls.map((call, index) => ({ call, index }))
        const isActivationCall = (c: Call) => Disclosure.META_TOOL_NAMES.has(CatalogTool.stripFunctionsPrefix(c.name))
        // Search tools first, one at a time, in the model's order: activation order is deterministic.
        for (const { call, index } of indexed.filter(({ call }) => isActivationCall(call))) {
          results[index] = yield* runCall(call, view, executorTools, path, emit, searched)
        }
        const others = indexed.filter(({ call }) => !isActivationCall(call))
        // One call needs no fibers of its own; several run concurrently, bounded.
        yield* Effect.forEach(
          others,
          ({ call, index }) =>
            Effect.map(runCall(call, view, executorTools, path, emit, searched), (r) => {
              results[index] = r
            }),
          { concurrency: others.length > 1 ? Math.max(1, options.toolConcurrency) : 1, discard: true }
        )
        return results
      })

    const runCall = (
      call: Call,
      view: ToolView.ToolView["Service"],
      executorTools: ReadonlyArray<ToolView.ModelTool>,
      path: ReadonlyArray<string>,
      emit: Emit,
      searched: Array<string>
    ): Effect.Effect<ResultPart> =>
      Effect.gen(function*() {
        yield* emit({ type: "tool-call", path, id: call.id, name: call.name, params: call.params })
        const outcome = yield* execute(call, view, executorTools)
        if (outcome.meta !== undefined) {
          const found = outcome.meta.found ?? []
          yield* emit({ type: "search", path, tool: call.name, query: describeQuery(call.params), found })
          for (const name of found) {
            const id = catalog.unsafe.findByName(name)?.id
            if (id !== undefined && call.name !== Disclosure.SEARCH_TOOLS) searched.push(id)
          }
          const activated = outcome.meta.activated ?? []
          if (activated.length > 0) yield* emit({ type: "activation", path, tools: activated })
        }
        yield* emit({
          type: "tool-result",
          path,
          id: call.id,
          name: call.name,
          isFailure: outcome.isFailure,
          failure: outcome.failure,
          result: outcome.result
        })
        return {
          type: "tool-result" as const,
          id: call.id,
          name: call.name,
          isFailure: outcome.isFailure,
          result: outcome.result
        }
      }).pipe(Effect.withSpan("tool-search.tool-call", { attributes: { tool: call.name } }, noStackTrace))

    interface Outcome {
      readonly isFailure: boolean
      readonly failure: string | null
      readonly result: unknown
      readonly meta?: ToolView.MetaOutput
    }

    const failed = (failure: string, message: string): Outcome => ({ isFailure: true, failure, result: message })

    const execute = (
      call: Call,
      view: ToolView.ToolView["Service"],
      executorTools: ReadonlyArray<ToolView.ModelTool>
    ): Effect.Effect<Outcome> =>
      Effect.gen(function*() {
        const own = executorTools.find((t) => t.name === CatalogTool.stripFunctionsPrefix(call.name))
        const resolved = own !== undefined
          ? permission.allows({ id: own.name, name: own.name })
            ? Effect.succeed(own)
            : Effect.fail(new Permission.ToolNotPermitted({ name: own.name }))
          : view.resolve(call.name)
        const resolution = yield* Effect.result(resolved)
        if (Result.isFailure(resolution)) {
          const e = resolution.failure
          return failed(FAILURE_OF[e._tag], e.message)
        }
        const tool = resolution.success
        const approved = yield* approval.decide({ tool: tool, params: call.params, toolCallId: call.id })
        if (!approved) return failed("not-approved", Approval.deniedMessage(tool.name))
        return yield* tool.run(call.params, { toolCallId: call.id }).pipe(
          Effect.map((out): Outcome => ({
            isFailure: out.isFailure,
            failure: out.isFailure ? "failed" : null,
            result: out.result,
            ...(tool.kind === "meta" ? { meta: out } : {})
          })),
          Effect.catchTag("ToolExecutionError", (e) => Effect.succeed(failed("failed", e.message))),
          // A crashing tool is reported (logged with its cause, marked `defect`), not swallowed,
          // and does not end the turn: the model is told the tool crashed.
          Effect.catchDefect((defect) =>
            Effect.logError(`Tool '${tool.name}' crashed`, defect).pipe(
              Effect.as(failed("defect", `Tool '${tool.name}' crashed: ${defectMessage(defect)}`))
            )
          )
        )
      })

    // ---------------------------------------------------------------------------
    // Forks
    // ---------------------------------------------------------------------------

    const delegateTool = (
      path: ReadonlyArray<string>,
      emit: Emit,
      parent: Activation.Activation["Service"]
    ): ToolView.ModelTool => ({
      name: DELEGATE_TASK,
      description: "Run a sub-agent on a self-contained task. It finds and loads its own tools, " +
        "independently of yours, and returns its final answer.",
      parameters: DELEGATE_PARAMETERS,
      kind: "eager",
      run: (params) =>
        Effect.gen(function*() {
          const task = typeof params === "object" && params !== null && "task" in params ? params.task : undefined
          if (typeof task !== "string" || task.trim() === "") {
            return { isFailure: true, result: `${DELEGATE_TASK} needs {"task": "..."}` }
          }
          const forks = options.forks ?? { maxIterations: options.maxIterations, inheritActivation: false }
          const n = yield* Ref.updateAndGet(forkCounter, (k) => k + 1)
          const result = yield* runUnit(
            {
              prompt: [{ role: "user", content: task }],
              maxIterations: forks.maxIterations,
              // fresh by default; an explicit option copies a snapshot, never shares the parent's Ref
              activation: forks.inheritActivation ? yield* parent.ids : []
            },
            [...path, `fork-${n}`],
            emit
          )
          return {
            isFailure: false,
            result: { answer: result.text, stopReason: result.stopReason, iterations: result.iterations }
          }
        }).pipe(
          Effect.catch((e) => Effect.succeed({ isFailure: true, result: `The sub-agent failed: ${e.message}` }))
        )
    })

    // ---------------------------------------------------------------------------
    // Service
    // ---------------------------------------------------------------------------

    return Executor.of({
      run: (input) => runUnit(input, [], () => Effect.void),
      stream: (input) =>
        Stream.callback<TurnEvent, AiError.AiError>((queue) =>
          Effect.forkScoped(
            runUnit(input, [], (event) => Effect.asVoid(Queue.offer(queue, event))).pipe(
              Effect.matchCauseEffect({
                onFailure: (cause) => Queue.failCause(queue, cause),
                onSuccess: () => Queue.end(queue)
              })
            )
          )
        ),
      totals: Ref.get(totals),
      options
    })
  })

/** A tool definition for `effect/ai`, with a JSON Schema and no handler requirements. */
const dynamicTool = (name: string, description: string, parameters: JsonSchema.JsonSchema) =>
  Tool.dynamic(name, { description, parameters })

/** Spans on the hot path skip capturing a stack trace (it costs more than the span itself). */
const noStackTrace = { captureStackTrace: false } as const

/** How each refusal of `resolve` is labelled in `tool-result` events. */
const FAILURE_OF = { ToolNotActive: "not-active", UnknownTool: "unknown", ToolNotPermitted: "not-permitted" } as const

const withSystem = (prompt: Prompt.Prompt, system: string | undefined): Prompt.Prompt =>
  system === undefined || prompt.content.some((m) => m.role === "system") ? prompt : Prompt.setSystem(prompt, system)

const describeQuery = (params: unknown): string => {
  if (typeof params !== "object" || params === null) return ""
  if ("query" in params && typeof params.query === "string") return params.query
  if ("toolNames" in params && Array.isArray(params.toolNames)) return `toolNames: ${params.toolNames.join(", ")}`
  return ""
}

const defectMessage = (defect: unknown): string => defect instanceof Error ? defect.message : String(defect)
