/**
 * What every unit of one executor shares, gathered once when the executor is built: the settings,
 * the model, the catalog (and the resource catalog, when the executor offers resources), the token
 * counter, the session store, the policies in context at that moment, and the token totals. `make`
 * builds it and returns the executor's service.
 */
import {
  Disclosure,
  NativeDeferral,
  Permission,
  type ResourceCatalog,
  ResourceDisclosure,
  TableOfContents,
  ToolCatalog,
  Visibility
} from "@tool-search/core"
import { Context, Effect, Option, Queue, Ref, Stream } from "effect"
import { type AiError, LanguageModel } from "effect/ai"
import { Approval } from "../Approval.js"
import type { Options, Service } from "../Executor.js"
import { type Service as SessionStoreService, SessionStore } from "../SessionStore.js"
import { type Service as TokenCounterService, TokenCounter } from "../TokenCounter.js"
import type { TurnEvent } from "../TurnEvent.js"
import * as Delivery from "./delivery.js"
import * as Prefix from "./prefix.js"
import * as Tokens from "./tokens.js"
import * as Unit from "./unit.js"

/** The executor-wide record every unit reads. */
export interface Agent {
  readonly options: Options
  readonly model: LanguageModel.LanguageModel
  readonly catalog: ToolCatalog.Service
  /** The resources every unit offers (`Executor.withResources`); none by default. */
  readonly resources: Option.Option<ResourceCatalog.Service>
  readonly counter: TokenCounterService
  readonly store: SessionStoreService
  readonly tableOfContents: TableOfContents.Options
  /** Provides the agent-level policies (fixed when the executor was built) to a unit. */
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

/**
 * Builds an executor from the services and policies in context. Asking for `native` delivery of a
 * model that cannot defer tools is a wiring mistake: a defect (`Executor.layerConfig` checks it
 * first and fails with a `ConfigError`).
 */
export const make = (options: Options) =>
  Effect.gen(function*() {
    yield* Effect.orDie(Delivery.check(options.delivery, yield* NativeDeferral.Support))
    const catalog = yield* ToolCatalog.ToolCatalog
    const counter = yield* TokenCounter
    const disclosure = yield* Disclosure.Disclosure
    const visibility = yield* Visibility.Visibility
    const permission = yield* Permission.Permission
    const approval = yield* Approval
    const resourceDisclosure = yield* ResourceDisclosure.ResourceDisclosure
    const agent: Agent = {
      options,
      model: yield* LanguageModel.LanguageModel,
      catalog,
      resources: yield* Resources,
      counter,
      store: yield* SessionStore,
      tableOfContents: yield* TableOfContents.TableOfContents,
      withPolicies: (effect) =>
        effect.pipe(
          Effect.provideService(Disclosure.Disclosure, disclosure),
          Effect.provideService(Visibility.Visibility, visibility),
          Effect.provideService(Permission.Permission, permission),
          Effect.provideService(ResourceDisclosure.ResourceDisclosure, resourceDisclosure),
          Effect.provideService(Approval, approval)
        ),
      tokens: yield* Tokens.make(catalog, visibility, counter),
      prefix: Prefix.make(counter),
      forks: yield* Ref.make(0)
    }
    const service: Service = {
      run: (input) => Unit.run(agent, input, [], () => Effect.void),
      stream: (input) =>
        Stream.callback<TurnEvent, AiError.AiError>((queue) =>
          Effect.forkScoped(
            Unit.run(agent, input, [], (event) => Effect.asVoid(Queue.offer(queue, event))).pipe(
              Effect.matchCauseEffect({
                onFailure: (cause) => Queue.failCause(queue, cause),
                onSuccess: () => Queue.end(queue)
              })
            )
          )
        ),
      totals: agent.tokens.totals,
      options
    }
    return service
  })
