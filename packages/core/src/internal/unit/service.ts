/**
 * The service behind `Unit`: one execution unit's state and operations. Its tag is internal — the
 * public module exports the identifier type `Unit` for the `R` channel and accessors that read the
 * service from context — so no user code can hold the service object, store it, or provide it to
 * another effect: a unit's state is reached only while the unit is in context.
 *
 * @internal
 */
import { Context } from "effect"
import type { Duration, Effect, Exit, Fiber, Option } from "effect"
import type * as Disclosure from "../../Disclosure.js"
import type * as Permission from "../../Permission.js"
import type * as ResourceCatalog from "../../ResourceCatalog.js"
import type * as ResourceDisclosure from "../../ResourceDisclosure.js"
import type * as TableOfContents from "../../TableOfContents.js"
import type * as ToolCatalog from "../../ToolCatalog.js"
import type * as Visibility from "../../Visibility.js"
import type { Code } from "./code.js"
import type { Disclosed } from "./disclosed.js"
import type { ResourceSide } from "./resources.js"
import type { Sources } from "./sources.js"
import type { ToolSide } from "./tools.js"

/** The policies a unit read from its context when it was built. */
export interface Policies {
  readonly disclosure: Disclosure.Options
  readonly visibility: Visibility.Visibility
  readonly permission: Permission.Permission
  readonly resources: ResourceDisclosure.Options
  readonly tableOfContents: TableOfContents.Options
}

/** The fibers a unit supervises: tool calls and forks. */
export interface Children {
  /** Starts `effect` as a child fiber of the unit, labelled; the unit's end interrupts it. */
  readonly start: <A, E, R>(label: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<Fiber.Fiber<A, E>, never, R>
  /** Runs `effect` as a child fiber of the unit, labelled, and waits for it. */
  readonly supervise: <A, E, R>(label: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Runs `effect` as a child fiber of the unit and waits for its exit, at most `timeout` (then
   * interrupts it: `None`); a child that ended as it started is taken at once, with no timer.
   */
  readonly awaitExit: <A, E, R>(
    label: string,
    effect: Effect.Effect<A, E, R>,
    timeout: Duration.Duration | undefined
  ) => Effect.Effect<Option.Option<Exit.Exit<A, E>>, never, R>
  /** Labels of the children still running. */
  readonly running: Effect.Effect<ReadonlyArray<string>>
}

/** One unit. */
export interface State {
  readonly catalog: ToolCatalog.Service
  readonly resourceCatalog: ResourceCatalog.Service | undefined
  readonly policies: Policies
  /** Activated tool ids. */
  readonly activation: Disclosed
  /** Revealed resource URIs. */
  readonly revealed: Disclosed
  readonly tools: ToolSide
  readonly resources: ResourceSide | undefined
  readonly sources: Sources | undefined
  readonly children: Children
  /** The name of the dispatcher tool the unit offers (`call_tool`), if it offers one. */
  readonly dispatcher: string | undefined
  /** Code mode, if the unit offers it: `execute_code`, and `ToolSearch` answering with declarations. */
  readonly code: Code | undefined
  /** The most tools the unit keeps active, if it is bounded. */
  readonly capacity: number | undefined
  /** Sees every search of the unit (an audit trail). */
  readonly observer: Observer | undefined
}

/** What a unit tells about its searches. */
export interface Observer {
  readonly onSearch?: (search: {
    /** The meta tool that searched. */
    readonly tool: string
    readonly query: string
    /** Model names found. */
    readonly found: ReadonlyArray<string>
    /** Model names activated that were not active before. */
    readonly activated: ReadonlyArray<string>
    /** The id of the call that searched (the request id, through a gateway). */
    readonly toolCallId: string
  }) => Effect.Effect<void>
}

/** The tag of the unit in context. */
export class UnitService extends Context.Service<UnitService, State>()("@tool-search/core/Unit") {}
