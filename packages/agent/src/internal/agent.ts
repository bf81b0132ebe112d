/**
 * What every unit of one executor shares, gathered once when the executor is built: the settings,
 * the model, the catalog (and the resource catalog, when the executor offers resources), the
 * session store, the token totals, and the policies in context at that moment — the defaults for
 * units whose caller provides none. `make` builds it and returns the executor's service.
 */
import { Sandbox } from "@tool-search/code"
import {
  Disclosure,
  NativeDeferral,
  Permission,
  type ResourceCatalog,
  ResourceDisclosure,
  SearchFeedback,
  TableOfContents,
  ToolCatalog,
  Visibility
} from "@tool-search/core"
import { Context, Effect, Option, Queue, Ref, Stream } from "effect"
import { LanguageModel } from "effect/ai"
import { Approval } from "../Approval.js"
import type { Options, Service } from "../Executor.js"
import { type Service as SessionStoreService, SessionStore } from "../SessionStore.js"
import { TokenCounter } from "../TokenCounter.js"
import type { TurnEvent } from "../TurnEvent.js"
import * as Delivery from "./delivery.js"
import * as Prefix from "./prefix.js"
import * as Run from "./run.js"
import * as Tokens from "./tokens.js"

/** The executor-wide record every unit reads. */
export interface Agent {
  readonly options: Options
  readonly model: LanguageModel.LanguageModel
  readonly catalog: ToolCatalog.Service
  /** The resources every unit offers (`Executor.withResources`); none by default. */
  readonly resources: Option.Option<ResourceCatalog.Service>
  /** The sandbox that runs the programs of code delivery: the executor's own, only under `code`. */
  readonly sandbox: Option.Option<Sandbox.Service>
  readonly store: SessionStoreService
  /**
   * Gives a unit its policies: those the caller of `run` provided, else those in context when the
   * executor was built, else the defaults. Read once per unit, when it starts.
   */
  readonly withPolicies: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  readonly tokens: Tokens.Account
  /** Every request of the executor, for the prefix a later request shares with them. */
  readonly prefix: Prefix.Index
  /** Numbers forks: `fork-1`, `fork-2`, ... */
  readonly forks: Ref.Ref<number>
}

/**
 * The resource catalog an executor built here offers to its units. Only `Executor.withResources`
 * sets it, and that combinator puts `ResourceCatalog` in the layer's requirements: the dependency
 * is in the types, not looked up on the side.
 */
export const Resources: Context.Reference<Option.Option<ResourceCatalog.Service>> = Context
  .Reference<Option.Option<ResourceCatalog.Service>>("@tool-search/agent/internal/Resources", {
    defaultValue: () => Option.none()
  })

/** The policies a unit reads from its context: the caller's wins over the executor's. */
const POLICIES: ReadonlyArray<Context.Reference<unknown>> = [
  Disclosure.Disclosure,
  Visibility.Visibility,
  Permission.Permission,
  ResourceDisclosure.ResourceDisclosure,
  TableOfContents.TableOfContents,
  SearchFeedback.SearchFeedback,
  Approval,
  TokenCounter
] as ReadonlyArray<Context.Reference<unknown>>

/**
 * Builds an executor from the services and policies in context. Asking for `native` delivery of a
 * model that cannot defer tools is a wiring mistake: a defect (`Executor.layerConfig` checks it
 * first and fails with a `ConfigError`). Under `code` delivery the executor owns a sandbox, whose
 * worker threads live as long as the scope it is built in.
 */
export const make = (options: Options) =>
  Effect.gen(function*() {
    yield* Effect.orDie(Delivery.check(options.delivery, yield* NativeDeferral.Support))
    const built = yield* Effect.context<never>()
    const counter = yield* TokenCounter
    const agent: Agent = {
      options,
      model: yield* LanguageModel.LanguageModel,
      catalog: yield* ToolCatalog.ToolCatalog,
      resources: yield* Resources,
      // its threads start with the first program and end with the executor's layer
      sandbox: options.delivery === "code" ? Option.some(yield* Sandbox.make(options.code)) : Option.none(),
      store: yield* SessionStore,
      withPolicies: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.updateContext(effect, (current: Context.Context<R>) =>
          POLICIES.reduce((context, reference) => {
            if (Context.getOrUndefined(current, reference) !== undefined) return context
            const fallback = Context.getOrUndefined(built, reference)
            return fallback === undefined ? context : Context.add(context, reference, fallback)
          }, current)),
      tokens: yield* Tokens.make(counter),
      prefix: Prefix.make(counter),
      forks: yield* Ref.make(0)
    }
    const service: Service = {
      // nobody listens to `run`'s events: none is built
      run: (input) => Run.turn(agent, input, undefined),
      stream: (input) =>
        Stream.callback<TurnEvent, Run.RunError>((queue) =>
          Effect.forkScoped(
            Run.turn(agent, input, (event) => Effect.asVoid(Queue.offer(queue, event))).pipe(
              Effect.matchCauseEffect({
                onFailure: (cause) => Queue.failCause(queue, cause),
                onSuccess: () => Queue.end(queue)
              })
            )
          )
        ),
      fork: (input) => Run.fork(agent, input, [], undefined),
      totals: agent.tokens.totals,
      options
    }
    return service
  })
