/**
 * The executor: a ReAct loop on `effect/ai`'s `LanguageModel` in which the tools sent to the model
 * are re-read from the unit at every iteration.
 *
 * Every turn and every fork is one `Unit` (the core's unit layer, built per unit: a fresh
 * activation seeded by the activation policy or by the turn's input, its revealed resources, the
 * policies read from the caller's context). The loop reads the unit's tools, calls the model with
 * exactly those, runs the tool calls — each a child fiber of the unit — and appends the results,
 * until the model answers without tool calls, the iteration budget ends, or the turn's time does.
 * Tools activated in iteration n are in the request of iteration n + 1 under the default `list`
 * delivery; `result` delivery keeps one tool list for the whole unit (found tools are called
 * through `call_tool`) and `native` sends the deferred tools the provider's way, so the request
 * prefix, and the provider's prompt cache, hold. Every request reports its input tokens and the
 * prefix an earlier request of the executor shared (`ModelRequest`).
 *
 * Tool calls run through `UnitToolkit`, the same code path an app's own loop uses: a deferred tool
 * that is not active, an unknown name, a denied permission or approval, arguments that do not fit
 * the tool's schema, a timeout, a failing tool and a crashing tool all become a tool result the
 * model can act on. The end of a unit interrupts whatever still runs in it (`ToolInterrupted`).
 *
 * Sub-agents: `fork` runs one from the app, with its own unit and an explicit inheritance (nothing,
 * or a snapshot of activated ids); the model's `delegate_task` goes through the same path. What a
 * turn reports as `activated` (tool ids) is what the next turn, or a fork, accepts.
 *
 * @since 0.1.0
 */
import { CodeConfig } from "@tool-search/code"
import {
  NativeDeferral,
  ResourceCatalog,
  Setting,
  type ToolCatalog,
  ToolSearchConfig,
  type UnknownTools
} from "@tool-search/core"
import { type Config, Context, Duration, Effect, Layer, Option, type Stream } from "effect"
import type { AiError, LanguageModel, Prompt } from "effect/ai"
import type * as ActivationPolicy from "./ActivationPolicy.js"
import * as AgentConfig from "./AgentConfig.js"
import * as Eviction from "./Eviction.js"
import * as Internal from "./internal/agent.js"
import * as DeliveryInternal from "./internal/delivery.js"
import * as Forks from "./internal/forks.js"
import * as SessionStore from "./SessionStore.js"
import type { TurnEvent } from "./TurnEvent.js"
import * as UnitToolkit from "./UnitToolkit.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * How sub-agents (forks) are offered to the model.
 *
 * @since 0.1.0
 * @category models
 */
export interface ForkOptions {
  /** The iteration budget of a fork. */
  readonly maxIterations: number
  /** Whether a fork starts with a snapshot copy of its parent's activation (default: fresh). */
  readonly inheritActivation: boolean
}

/**
 * How found tools reach the model: `list` (they join the tool list of the next request), `result`
 * (the tool list stays fixed; search results carry the schemas, `call_tool` runs them), `native`
 * (deferred tools sent the provider's way, where the provider supports it) or `code` (search
 * results carry TypeScript declarations; the model calls found tools from a program it runs with
 * `execute_code`, in a sandbox).
 *
 * @since 0.2.0
 * @category models
 */
export type Delivery = DeliveryInternal.Mode

/**
 * The delivery modes.
 *
 * @since 0.2.0
 * @category models
 */
export const deliveries: ReadonlyArray<Delivery> = DeliveryInternal.modes

/**
 * `native` delivery was asked of a language model whose layer does not declare deferred-tool
 * support (`NativeDeferral.Support`); the message names the provider and says why.
 *
 * @since 0.2.0
 * @category errors
 */
export const DeliveryUnsupported = DeliveryInternal.DeliveryUnsupported

/**
 * The error of `native` delivery on a model that cannot defer tools.
 *
 * @since 0.2.0
 * @category errors
 */
export type DeliveryUnsupported = DeliveryInternal.DeliveryUnsupported

/**
 * The executor's settings; the bounds on tool calls are `UnitToolkit`'s.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends UnitToolkit.Settings {
  /** Model calls per turn before the turn stops with `max-iterations`. */
  readonly maxIterations: number
  /** What a new turn starts with. */
  readonly activationPolicy: ActivationPolicy.Policy
  /** Force the first model call of each turn to the search tool (weak models). */
  readonly discoveryFirst: boolean
  /** A system message put first when the prompt has none. */
  readonly systemPrompt?: string
  /** Offer the `delegate_task` tool that runs a sub-agent (to turns, not to forks); absent: no forks. */
  readonly forks?: ForkOptions
  /**
   * The longest a turn (or fork) may run; when it is up, what still runs is interrupted
   * (`ToolInterrupted`) and the turn ends with `timeout`. Absent: no limit.
   */
  readonly turnTimeout?: Duration.Input
  /**
   * How found tools reach the model. `native` needs a model whose layer declares
   * `NativeDeferral.Support` (Anthropic's): on any other the layer dies with `DeliveryUnsupported`.
   * `code` runs the model's programs in a sandbox the executor owns (see `code`).
   */
  readonly delivery: Delivery
  /**
   * Under `code` delivery, the settings of the executor's sandbox — the limits of one program and
   * the worker threads (`CodeConfig`); the defaults for the rest.
   */
  readonly code?: Partial<CodeConfig.Settings>
}

/**
 * The defaults: 10 iterations, `turn` policy, no forcing, no forks, `list` delivery, `UnitToolkit.defaults`.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults: Options = {
  ...UnitToolkit.defaults,
  maxIterations: 10,
  activationPolicy: "turn",
  discoveryFirst: false,
  delivery: "list"
}

/**
 * One turn to run.
 *
 * @since 0.1.0
 * @category models
 */
export interface TurnInput {
  /** The session, for the `session` and `latest` policies. */
  readonly sessionId?: string
  /** The conversation so far, ending with the new user message. */
  readonly prompt: Prompt.RawInput
  /** Overrides the iteration budget of this turn. */
  readonly maxIterations?: number
  /**
   * Tool ids the turn starts with, instead of what the activation policy gives: an earlier turn's
   * `activated`, or `Unit.snapshot`. An id no tool of this agent has fails the turn with
   * `UnknownTools`, naming it.
   */
  readonly activation?: ReadonlyArray<string>
}

/**
 * A sub-agent to run: its task, its budget, and what it inherits — nothing, or a snapshot of
 * activated tool ids (a turn's `activated`, `Unit.snapshot` inside a unit). Never the parent's
 * state itself: the fork's activations stay its own.
 *
 * @since 0.3.0
 * @category models
 */
export interface ForkInput {
  /** The task, self-contained: the sub-agent sees nothing else. */
  readonly task: string | Prompt.RawInput
  readonly inherit: "nothing" | ReadonlyArray<string>
  /** The iteration budget; default: the `forks` option's, else the executor's. */
  readonly maxIterations?: number
}

/**
 * Why a turn ended.
 *
 * @since 0.1.0
 * @category models
 */
export type StopReason = "answered" | "max-iterations" | "timeout"

/**
 * What a turn produced.
 *
 * @since 0.1.0
 * @category models
 */
export interface TurnResult {
  readonly stopReason: StopReason
  /** The model's last text. */
  readonly text: string
  readonly iterations: number
  /** The conversation after the turn: pass it (plus the next user message) to the next turn. */
  readonly prompt: Prompt.Prompt
  /**
   * Ids of the tools active at the end of the turn, in activation order: what the next turn accepts
   * as its `activation` (MCP-shaped ids such as `mail/send_email` included).
   */
  readonly activated: ReadonlyArray<string>
  /** Tokens of the tool definitions sent, summed over the turn's requests. */
  readonly toolTokens: number
  /** What sending every tool on every request would have cost. */
  readonly eagerToolTokens: number
  /** Input tokens of the turn's requests (tools, system, messages), counted with the `TokenCounter`. */
  readonly inputTokens: number
  /** Of those, the tokens each request shared with the start of an earlier request: what a prefix cache could serve. */
  readonly prefixTokens: number
  readonly requests: number
}

/**
 * Token accounting since the executor was built.
 *
 * @since 0.1.0
 * @category models
 */
export interface Totals {
  readonly turns: number
  readonly requests: number
  readonly toolTokens: number
  readonly eagerToolTokens: number
  readonly inputTokens: number
  readonly prefixTokens: number
}

/**
 * The name of the fork tool.
 *
 * @since 0.1.0
 * @category constants
 */
export const DELEGATE_TASK: string = Forks.DELEGATE_TASK

// -----------------------------------------------------------------------------
// Service
// -----------------------------------------------------------------------------

/**
 * What the executor offers.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** Runs one turn. */
  readonly run: (input: TurnInput) => Effect.Effect<TurnResult, AiError.AiError | UnknownTools>
  /** Runs one turn, emitting its events; the last event is `TurnFinished`. */
  readonly stream: (input: TurnInput) => Stream.Stream<TurnEvent, AiError.AiError | UnknownTools>
  /**
   * Runs a sub-agent from the app: a unit of its own (its own scope and activation, inherited only
   * as `inherit` says), the executor's model, policies and settings; the model's `delegate_task`
   * runs the same way.
   */
  readonly fork: (input: ForkInput) => Effect.Effect<TurnResult, AiError.AiError | UnknownTools>
  /** Token accounting of every turn so far. */
  readonly totals: Effect.Effect<Totals>
  /** The settings in use. */
  readonly options: Options
}

/** What every executor layer needs. */
type Needs = LanguageModel.LanguageModel | ToolCatalog.ToolCatalog | SessionStore.SessionStore

/**
 * The agent's executor.
 *
 * @since 0.1.0
 * @category services
 */
export class Executor extends Context.Service<Executor, Service>()("@tool-search/agent/Executor") {}

/**
 * An executor over the `LanguageModel`, `ToolCatalog` and `SessionStore` in context. Each unit
 * reads its policies (disclosure, visibility, permission, approval, resource disclosure, table of
 * contents, search feedback, token counter) from the context of the `run`/`fork` call, and where
 * that context provides none, from the context this layer was built in.
 *
 * **Example**
 *
 * ```ts
 * const Agent = Executor.layer({ maxIterations: 8 }).pipe(
 *   Layer.provide(SessionStore.layerMemory()),
 *   Layer.provide(Model),
 *   Layer.provide(Catalog)
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Partial<Options> = {}): Layer.Layer<Executor, never, Needs> =>
  Layer.effect(Executor, Internal.make({ ...defaults, ...options }))

/**
 * `layer` with an in-memory `SessionStore` of its own (`SessionStore.layerMemory(eviction)`, LRU of
 * 1,000 sessions by default): for one process, and whenever the `turn` policy carries nothing over.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerMemory = (
  options: Partial<Options> = {},
  eviction: Eviction.Strategy = Eviction.defaultStrategy
): Layer.Layer<Executor, never, Exclude<Needs, SessionStore.SessionStore>> =>
  layer(options).pipe(Layer.provide(SessionStore.layerMemory(eviction)))

/**
 * Makes the executor built by `layer` offer the resources of the `ResourceCatalog` in context:
 * each turn and each fork gets its own revealed set (a fork inherits no reveal), the resource
 * tools join its tool list (`sample_resources`, `search_resources`, `read_resource`,
 * `get_prompt`), and the resource table of contents joins its system prompt. The
 * `ResourceDisclosure` settings apply, with the visibility and permission policies.
 * `Executor.layerMemory().pipe(Executor.withResources)`.
 *
 * @since 0.2.0
 * @category layers
 */
export const withResources = <E, R>(
  executor: Layer.Layer<Executor, E, R>
): Layer.Layer<Executor, E, R | ResourceCatalog.ResourceCatalog> =>
  Layer.unwrap(
    Effect.map(
      Effect.service(ResourceCatalog.ResourceCatalog),
      (catalog) => Layer.provide(executor, Layer.succeed(Internal.Resources, Option.some(catalog)))
    )
  )

/**
 * An executor configured by the settings: discovery-first from the core settings in context
 * (`ToolSearchConfig.layerConfig`), the activation policy, the delivery and the bounds on tool calls
 * from `AgentConfig` (the `ConfigProvider` in context, the environment by default), and under
 * `code` delivery the sandbox's settings from `CodeConfig` (`TOOL_SEARCH_CODE_*`). `options` set
 * what the settings do not. The `SessionStore` comes from context: `SessionStore.layerConfig` is
 * the in-memory one with the configured eviction. `TOOL_SEARCH_DELIVERY=native` on a model that
 * cannot defer tools is a `ConfigError` naming the variable and the provider.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  options: Partial<Options> = {}
): Layer.Layer<Executor, Config.ConfigError, Needs> =>
  Layer.unwrap(Effect.gen(function*() {
    const core = yield* ToolSearchConfig.ToolSearchConfig
    const settings = yield* AgentConfig.config
    yield* DeliveryInternal.check(settings.delivery, yield* NativeDeferral.Support).pipe(
      Effect.mapError((e) => Setting.invalid(AgentConfig.settings.delivery.env, e.message))
    )
    return layer({
      ...options,
      ...(settings.delivery === "code" ? { code: yield* CodeConfig.config } : {}),
      discoveryFirst: core.discoveryFirst,
      activationPolicy: settings.activation,
      delivery: settings.delivery,
      toolTimeout: Duration.toMillis(settings.toolTimeout),
      toolResultMaxTokens: settings.toolResultMaxTokens,
      toolArgumentsMaxSize: settings.toolArgumentsMaxSize,
      toolArgumentsMaxDepth: settings.toolArgumentsMaxDepth
    })
  }))
