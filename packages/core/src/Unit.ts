/**
 * One execution unit — a turn or a fork — and everything it sees and does: the tools it activated,
 * the resources it revealed, the tools the model is sent now, how a name the model called
 * resolves, and the search, discovery and resource tools that change what it has disclosed. Tools,
 * resources and prompts go through one engine: the same visibility policy (strict mode, source
 * filters), the same permission policy, one disclosed set per kind, one answer per meta tool.
 *
 * **The lifetime is in the types.** A unit is reached only through effects that require `Unit` in
 * their context (`Unit.tools`, `Unit.search`, `Unit.snapshot`, …), and only `Unit.provide` (and
 * `Unit.provideWith(options)`) makes one: a fresh unit for exactly the effect it wraps, gone when that
 * effect ends. There is no
 * service object to hold: an effect taken out of its unit still requires `Unit`, so it cannot run
 * until a new unit is provided, and the compiler says so. `Unit.session` is the one deliberate way
 * to share a unit between several effects (a gateway session, a chat that keeps its tools), and its
 * name says so. What the types cannot see — a tool's `run` kept past its unit and provided a unit
 * again — acts on the unit it is run in; the sets of a closed unit refuse every use with the defect
 * `UnitClosed`.
 *
 * ```ts
 * const turn = Effect.gen(function*() {
 *   yield* Unit.search("send a slack message")   // activates what it finds, for this unit only
 *   return (yield* Unit.tools).map((t) => t.name) // what the next model request carries
 * }).pipe(Unit.provide)                           // requires ToolCatalog; Unit is gone from R
 * ```
 *
 * A unit supervises what runs on its behalf: tool calls and forks run as its child fibers
 * (`Unit.supervise`, `Unit.start`), and its end interrupts whatever still runs and runs their
 * finalizers.
 *
 * @since 0.3.0
 */
import { Context, Duration, Effect, Exit, Fiber, Layer, Option } from "effect"
import { Scope } from "effect"
import type * as CatalogTool from "./CatalogTool.js"
import * as Disclosure from "./Disclosure.js"
import type { InvalidQuery, SearchFailed } from "./Errors.js"
import { Refused, UnitClosed, UnknownTools } from "./Errors.js"
import * as Deferral from "./internal/deferral.js"
import * as ResourceContents from "./internal/resourceContents.js"
import * as ToolContents from "./internal/toolContents.js"
import * as CodeTool from "./internal/unit/code.js"
import * as Disclosed from "./internal/unit/disclosed.js"
import * as Dispatcher from "./internal/unit/dispatcher.js"
import * as MetaTools from "./internal/unit/metaTools.js"
import type * as Model from "./internal/unit/model.js"
import type * as ResourceAnswers from "./internal/unit/resourceMessages.js"
import * as Resources from "./internal/unit/resources.js"
import { type Children, type Observer as UnitObserver, type State, UnitService } from "./internal/unit/service.js"
import type * as UnitSources from "./internal/unit/sources.js"
import * as ToolSide from "./internal/unit/tools.js"
import * as Permission from "./Permission.js"
import { ResourceCatalog } from "./ResourceCatalog.js"
import type * as ResourceCatalogModule from "./ResourceCatalog.js"
import * as ResourceDisclosure from "./ResourceDisclosure.js"
import { SearchFeedback } from "./SearchFeedback.js"
import * as TableOfContents from "./TableOfContents.js"
import * as ToolArguments from "./ToolArguments.js"
import { ToolCatalog } from "./ToolCatalog.js"
import type * as ToolCatalogModule from "./ToolCatalog.js"
import * as Visibility from "./Visibility.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * The capability of one execution unit, in the `R` channel: what every effect that reads or
 * changes a unit's state requires, and only `provide` and `session` satisfy.
 *
 * @since 0.3.0
 * @category models
 */
export type Unit = UnitService

/**
 * The sources of a unit's tools as a search answer needs them: which exist, which cannot answer
 * now. A gateway passes its upstream servers; answers name only the sources the visibility policy
 * exposes.
 *
 * @since 0.3.0
 * @category models
 */
export type Sources = UnitSources.Sources

/**
 * Sees every search of a unit: an audit trail plugs in here.
 *
 * @since 0.3.0
 * @category models
 */
export type Observer = UnitObserver

/**
 * How a unit is made. Everything else — disclosure, visibility, permission, resource disclosure,
 * the table of contents — is read from the context the unit is provided in, once, when it starts.
 *
 * @since 0.3.0
 * @category models
 */
export interface Options {
  /** Tool ids the unit starts with: a session's carry-over, a snapshot for a fork. Unknown ids fail the unit. */
  readonly seed?: ReadonlyArray<string> | undefined
  /** Offer the resources of the `ResourceCatalog` in context: the resource tools join the tool list. */
  readonly resources?: boolean | undefined
  /** The most tools kept active; past it the least recently used are unloaded (a gateway session). */
  readonly capacity?: number | undefined
  /** Offer `call_tool {name, arguments}`, through which found tools are called without joining the tool list. */
  readonly dispatcher?: boolean | undefined
  /** The sources of the tools, for search answers that say which could not be searched. */
  readonly sources?: Sources | undefined
  readonly observer?: Observer | undefined
  /**
   * Code mode: offer `execute_code` (after the meta tools), answer `ToolSearch` with the plug's
   * declarations, and keep activated tools out of the tool list — programs call them.
   */
  readonly code?: Code | undefined
}

/**
 * Code mode, plugged into a unit (`Unit.provideWith({ code })`, `Unit.session({ code })`), so that
 * core depends on no sandbox: `@tool-search/code`'s `CodeMode.make` builds one from a sandbox and
 * the surface's own call path. The unit offers `execute_code` with `description` and `parameters`,
 * runs each call of it with `run` (whose programs may call `Unit.callable`, each call through the
 * surface's call path), answers `ToolSearch` and `discover_tools` with `declare(found, note)`
 * instead of JSON Schemas, and keeps activated tools out of `Unit.tools`.
 *
 * @since 0.3.0
 * @category models
 */
export type Code = CodeTool.Code

/**
 * A tool as the model is sent it, and how it runs — in the unit of the call.
 *
 * @since 0.3.0
 * @category models
 */
export type ModelTool = Model.ModelTool

/**
 * A tool result, with what a meta tool found and activated (for progress events).
 *
 * @since 0.3.0
 * @category models
 */
export type Output = Model.Output

/**
 * One call as the model made it (`via` names the dispatcher it came through, if any).
 *
 * @since 0.3.0
 * @category models
 */
export type Call = Model.Call

/**
 * What a resource request can fail with.
 *
 * @since 0.3.0
 * @category errors
 */
export type ResourceError = Model.ResourceError

// -----------------------------------------------------------------------------
// Making units
// -----------------------------------------------------------------------------

/** What making a unit requires. */
type Requires<O extends Options> = ToolCatalog | (O extends { readonly resources: true } ? ResourceCatalog : never)

/**
 * A unit, made in a few steps: its context read at once, its sets made and closed by one finalizer
 * (every turn and fork makes one).
 */
const make = Effect.fnUntraced(function*(options: Options) {
  const context = yield* Effect.context<ToolCatalog>()
  const catalog = Context.get(context, ToolCatalog)
  const resourceCatalog = options.resources === true
    ? yield* ResourceCatalog // required by `Requires` when `resources` is set
    : undefined
  const policies = {
    disclosure: Context.get(context, Disclosure.Disclosure),
    visibility: Context.get(context, Visibility.Visibility),
    permission: Context.get(context, Permission.Permission),
    resources: Context.get(context, ResourceDisclosure.ResourceDisclosure),
    tableOfContents: Context.get(context, TableOfContents.TableOfContents)
  }
  const seed = options.seed ?? []
  const unknown = seed.filter((id) => {
    const tool = catalog.getUnsafe(id)
    return tool === undefined || !policies.visibility.includes(tool)
  })
  if (unknown.length > 0) return yield* new UnknownTools({ ids: unknown })
  const closed = () => new UnitClosed()
  const activationSet = Disclosed.make(seed, { capacity: options.capacity, closed })
  const revealedSet = Disclosed.make([], { closed })
  const { children, close } = supervisor()
  // one finalizer: what still runs ends first (its finalizers may still read the unit), then the sets
  yield* Effect.addFinalizer(() =>
    Effect.andThen(
      close,
      Effect.sync(() => {
        activationSet.close()
        revealedSet.close()
      })
    )
  )
  const activation = activationSet.disclosed
  const revealed = revealedSet.disclosed
  const resources = resourceCatalog === undefined
    ? undefined
    : yield* Resources.make({ catalog: resourceCatalog, revealed, policies })
  const fixed = [
    ...(options.dispatcher === true ? [Dispatcher.tool] : []),
    ...(options.code === undefined ? [] : [CodeTool.tool(options.code)])
  ]
  const own = resources === undefined
    ? Effect.succeed(fixed)
    : Effect.map(resources.tools, (tools) => [...tools, ...fixed])
  const tools = ToolSide.make({
    catalog,
    feedback: Context.get(context, SearchFeedback),
    activation,
    policies,
    own,
    metaTools: MetaTools.of(
      policies.disclosure,
      catalog.strategy,
      options.code === undefined ? "definitions" : "declarations"
    ),
    listsActivated: options.code === undefined
  })
  return {
    catalog,
    resourceCatalog,
    policies,
    activation,
    revealed,
    tools,
    resources,
    sources: options.sources,
    children,
    dispatcher: options.dispatcher === true ? Dispatcher.CALL_TOOL : undefined,
    code: options.code,
    capacity: options.capacity,
    observer: options.observer
  } satisfies State
})

/**
 * The fibers of a unit, with a label each, and the function that ends them (the unit's finalizer
 * calls it: it interrupts what still runs and waits for its finalizers). A child started after that
 * starts interrupted. Read and written only in synchronous steps of the unit's fibers; a child's
 * label is set before it starts and removed by its exit's observer, so a call costs no effect to
 * track.
 */
const supervisor = (): { readonly children: Children; readonly close: Effect.Effect<void> } => {
  const labels = new Map<number, string>()
  const fibers = new Set<Fiber.Fiber<unknown, unknown>>()
  let next = 0
  let closed = false
  const start = <A, E, R>(label: string, effect: Effect.Effect<A, E, R>) =>
    Effect.suspend(() => {
      const id = next++
      labels.set(id, label)
      return Effect.map(Effect.forkDetach(closed ? Effect.interrupt : effect, { startImmediately: true }), (fiber) => {
        fibers.add(fiber)
        fiber.addObserver(() => {
          labels.delete(id)
          fibers.delete(fiber)
        })
        return fiber
      })
    })
  // forked and awaited in one uninterruptible step, so an interruption of the caller always reaches the child
  const awaitExit = <A, E, R>(label: string, effect: Effect.Effect<A, E, R>, timeout: Duration.Duration | undefined) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(start(label, effect), (fiber): Effect.Effect<Option.Option<Exit.Exit<A, E>>> => {
        const ended = fiber.pollUnsafe()
        if (ended !== undefined) return Effect.succeed(Option.some(ended))
        const awaited = Fiber.await(fiber)
        return restore(timeout === undefined ? Effect.asSome(awaited) : Effect.timeoutOption(awaited, timeout)).pipe(
          Effect.onInterrupt(() => Fiber.interrupt(fiber)),
          Effect.tap((waited) => Option.isNone(waited) ? Fiber.interrupt(fiber) : Effect.void)
        )
      })
    )
  const children: Children = {
    start,
    awaitExit,
    // without a timeout the exit is always there
    supervise: (label, effect) =>
      Effect.flatMap(awaitExit(label, effect, undefined), (ended) => Option.getOrElse(ended, () => Exit.interrupt())),
    running: Effect.sync(() => [...labels.values()])
  }
  const close = Effect.suspend(() => {
    closed = true
    return fibers.size === 0 ? Effect.void : Fiber.interruptAll([...fibers])
  })
  return { children, close }
}

/**
 * Runs `effect` in a unit made with `options`, in a scope of its own: the one way a unit is made for
 * one effect (`session` is the same `make` as a layer). No layer is built per unit: a turn pays for
 * its unit's state, not for layer machinery.
 */
const within = <A, E, R>(effect: Effect.Effect<A, E, R>, options: Options) =>
  Effect.scopedWith((scope) =>
    Effect.flatMap(
      Scope.provide(make(options), scope),
      (unit) => Effect.provideService(effect, UnitService, unit)
    )
  )

/**
 * Runs `effect` as one execution unit: a fresh unit for exactly this effect, gone when it ends.
 *
 * **Example**
 *
 * ```ts
 * const names = Unit.tools.pipe(Effect.map((tools) => tools.map((t) => t.name)), Unit.provide)
 * ```
 *
 * @since 0.3.0
 * @category constructors
 */
export const provide = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, Unit> | ToolCatalog> =>
  // without a seed there is nothing unknown: making the unit cannot fail
  within(effect, {}) as Effect.Effect<A, E, Exclude<R, Unit> | ToolCatalog>

/**
 * `provide` with options: a seed (tool ids to start with; unknown ids fail with `UnknownTools`),
 * resources, a capacity, a dispatcher, sources, an observer and code mode.
 *
 * **Example**
 *
 * ```ts
 * const seeded = Unit.activated.pipe(Unit.provideWith({ seed: ["mail/send_email"] }))
 * ```
 *
 * @since 0.3.0
 * @category constructors
 */
export const provideWith: {
  <O extends Options & { readonly seed: ReadonlyArray<string> }>(
    options: O
  ): <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | UnknownTools, Exclude<R, Unit> | Requires<O>>
  <O extends Options>(
    options: O
  ): <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, Exclude<R, Unit> | Requires<O>>
} = (options: Options) => <A, E, R>(effect: Effect.Effect<A, E, R>) => within(effect, options) as never

/**
 * One unit shared by every effect this layer is provided to — the deliberate form, for a session
 * that keeps what it disclosed across requests (a gateway session, a chat). Each build of the layer
 * is a new unit; everything it is provided to shares that one.
 *
 * **Example**
 *
 * ```ts
 * // a gateway session: one unit for the life of the layer, at most 50 tools loaded at once
 * const Session = Unit.session({ capacity: 50, dispatcher: true })
 * ```
 *
 * @since 0.3.0
 * @category constructors
 */
export const session = <O extends Options>(options: O = {} as O): Layer.Layer<Unit, UnknownTools, Requires<O>> =>
  Layer.fresh(Layer.effect(UnitService, make(options))) as Layer.Layer<Unit, UnknownTools, Requires<O>>

// -----------------------------------------------------------------------------
// What the unit discloses
// -----------------------------------------------------------------------------

/**
 * The tools for the next model request: eager tools, the meta tools of the mode, the unit's own
 * tools (resource tools, the dispatcher), then activated tools in activation order.
 *
 * @since 0.3.0
 * @category accessors
 */
export const tools: Effect.Effect<ReadonlyArray<ModelTool>, never, Unit> = UnitService.use((u) => u.tools.visible)

/**
 * The tool the model means by `name` — a meta tool, an eager tool, an active one — or why it may
 * not run (`Refused`: unknown, not active yet, not permitted), with the corrective message.
 *
 * @since 0.3.0
 * @category accessors
 */
export const resolve = (name: string): Effect.Effect<ModelTool, Refused, Unit> =>
  UnitService.use((u) => u.tools.resolve(name))

/**
 * What a search of the unit came to: the hits it loaded (with their scores), the ids it activated
 * that were not active before, and the note its `ToolSearch` answer carries (names of a `select:`
 * it did not load, weak matches it left out, tools a capacity unloaded, sources it could not search).
 *
 * @since 0.3.0
 * @category models
 */
export interface SearchAnswer {
  readonly matches: ReadonlyArray<ToolCatalogModule.Match>
  readonly activated: ReadonlyArray<string>
  readonly note?: string
}

/**
 * Ranks the deferred tools this agent may find for a query (`read file`, `select:Read,Edit`,
 * `+slack send`), activates the hits that are not weak matches, and says what it did not load:
 * exactly what `ToolSearch` runs, on every surface (agent, gateway, `tool-search search`).
 * `maxResults` defaults to the disclosure settings'; a `select:` honours every name up to the hard
 * limit, whatever it says.
 *
 * **Example**
 *
 * ```ts
 * const answer = Unit.search("send a message on slack").pipe(Unit.provide)
 * // answer.matches: the tools found; answer.activated: their ids, now callable in this unit
 * ```
 *
 * @since 0.3.0
 * @category accessors
 */
export const search = (
  query: string,
  options: { readonly maxResults?: number } = {}
): Effect.Effect<SearchAnswer, InvalidQuery | SearchFailed, Unit> =>
  UnitService.use((u) => MetaTools.search(u, query, options.maxResults, { toolCallId: "" }))

/**
 * Ranks candidates without activating them (`search_tools`), optionally in one category.
 *
 * @since 0.3.0
 * @category accessors
 */
export const browse = (
  query: string,
  options: { readonly maxResults?: number; readonly category?: string } = {}
): Effect.Effect<ReadonlyArray<ToolCatalogModule.Match>, InvalidQuery | SearchFailed, Unit> =>
  UnitService.use((u) => u.tools.browse(query, options))

/**
 * Runs one meta tool by name as the model would call it — `ToolSearch`, `search_tools`,
 * `discover_tools`, a resource tool — and gives its answer: the one implementation every surface
 * (executor, gateway, CLI) answers with. An unknown name or one the mode does not offer is refused.
 *
 * @since 0.3.0
 * @category accessors
 */
export const answer = (
  name: string,
  params: unknown,
  context: CatalogTool.CallContext = { toolCallId: "" }
): Effect.Effect<Output, Refused, Unit> =>
  Effect.flatMap(resolve(name), (tool) =>
    tool.kind === "meta"
      ? Effect.orDie(tool.run(params, context))
      : Effect.fail(
        new Refused({ kind: "tool", name, reason: "invalid-request", hint: `'${name}' is not a meta tool` })
      ))

/**
 * The tools this unit activated that still exist, in activation order.
 *
 * @since 0.3.0
 * @category accessors
 */
export const activated: Effect.Effect<ReadonlyArray<ToolCatalogModule.Entry>, never, Unit> = UnitService.use((u) =>
  u.tools.activated
)

/**
 * What the unit activated, as the ids a new unit accepts as its `seed` (a turn's carry-over, a
 * fork's inheritance), in activation order — including the ids of tools that are gone from the
 * catalog for now (a server restarting), which a unit keeps until they return.
 *
 * @since 0.3.0
 * @category accessors
 */
export const snapshot: Effect.Effect<ReadonlyArray<string>, never, Unit> = UnitService.use((u) => u.activation.values)

/**
 * Activates what a stored copy of this unit's session holds — a session resumed by another process
 * or instance — without a search; like any activated id, one whose tool is gone or hidden shows
 * nothing until it exists again. Returns the ids that were not active before. (Everything the model
 * activates goes through a search.)
 *
 * @since 0.3.0
 * @category accessors
 */
export const restore = (ids: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<string>, never, Unit> =>
  UnitService.use((u) => u.activation.add(ids))

/**
 * Deactivates what a stored copy of this unit's session lost — another process or instance serving
 * the same session unloaded it — the counterpart of `restore`; ids not active are ignored.
 *
 * @since 0.3.0
 * @category accessors
 */
export const unload = (ids: ReadonlyArray<string>): Effect.Effect<void, never, Unit> =>
  UnitService.use((u) => u.activation.remove(ids))

/**
 * The catalog tools the unit may call now: eager and activated tools (every tool below the deferral
 * threshold) that exist for it and that the permission policy allows — what a resolution by name
 * would accept, without the meta tools. In code mode, exactly the tools a program sees.
 *
 * @since 0.3.0
 * @category accessors
 */
export const callable: Effect.Effect<ReadonlyArray<ModelTool>, never, Unit> = UnitService.use((u) => u.tools.callable)

/**
 * The deferred tools this agent may find.
 *
 * @since 0.3.0
 * @category accessors
 */
export const searchable: Effect.Effect<ReadonlyArray<ToolCatalogModule.Entry>, never, Unit> = UnitService.use((u) =>
  u.tools.searchable
)

/**
 * Whether the unit defers tools: `false` below the deferral threshold (`Disclosure.Options.defer`),
 * when every tool is sent and no search tool is offered.
 *
 * @since 0.3.0
 * @category accessors
 */
export const deferring: Effect.Effect<boolean, never, Unit> = UnitService.use((u) => u.tools.deferring)

/**
 * The feedback hook for a tool run some other way than through its `ModelTool` (a gateway that
 * forwards a call): a successful call of a tool a ranked search of this unit found.
 *
 * @since 0.3.0
 * @category accessors
 */
export const recordSuccessfulCall = (toolId: string): Effect.Effect<void, never, Unit> =>
  UnitService.use((u) => u.tools.recordSuccessfulCall(toolId))

/**
 * The resources this unit revealed that still exist, in reveal order (none without resources).
 *
 * @since 0.3.0
 * @category accessors
 */
export const revealed: Effect.Effect<ReadonlyArray<ResourceCatalogModule.Entry>, never, Unit> = UnitService.use((
  u
) => u.resources === undefined ? Effect.succeed([]) : u.resources.revealed)

/**
 * The answer of `sample_resources` (`sampleResources`): resources with their metadata and a snippet.
 *
 * @since 0.3.0
 * @category resources
 */
export type SampleAnswer = ResourceAnswers.SampleAnswer

/**
 * The answer of `search_resources` (`searchResources`): ranked passages with their offsets.
 *
 * @since 0.3.0
 * @category resources
 */
export type PassagesAnswer = ResourceAnswers.SearchAnswer

/**
 * The answer of `read_resource` (`readResource`): a slice of a body, with where to continue.
 *
 * @since 0.3.0
 * @category resources
 */
export type ReadAnswer = ResourceAnswers.ReadAnswer

/**
 * The answer of `get_prompt` (`getPrompt`): the rendered messages.
 *
 * @since 0.3.0
 * @category resources
 */
export type PromptAnswer = ResourceAnswers.PromptAnswer

/** The resource side of the unit in context, or the refusal of a unit without resources. */
const resourceSide = <A, E>(
  f: (side: Resources.ResourceSide) => Effect.Effect<A, E>
): Effect.Effect<A, E | Refused, Unit> =>
  UnitService.use((u): Effect.Effect<A, E | Refused> =>
    u.resources === undefined
      ? Effect.fail(
        new Refused({
          kind: "resource",
          name: "resources",
          reason: "invalid-request",
          hint: "This unit offers no resources (Unit.provideWith({ resources: true }))"
        })
      )
      : f(u.resources)
  )

/**
 * Level 2 of resource disclosure: resources matching a query, or the resource of a URI, each with
 * its metadata and a snippet; reveals them. What `sample_resources` answers.
 *
 * @since 0.3.0
 * @category resources
 */
export const sampleResources = (input: {
  readonly query?: string
  readonly uri?: string
  readonly max?: number
}): Effect.Effect<SampleAnswer, ResourceError, Unit> => resourceSide((r) => r.sample(input))

/**
 * Level 3: ranked passages, in every resource or in one; reveals their resources. What
 * `search_resources` answers.
 *
 * @since 0.3.0
 * @category resources
 */
export const searchResources = (input: {
  readonly query: string
  readonly uri?: string
  readonly max?: number
}): Effect.Effect<PassagesAnswer, ResourceError, Unit> => resourceSide((r) => r.search(input))

/**
 * Level 4: a slice of a revealed resource's body. What `read_resource` answers.
 *
 * @since 0.3.0
 * @category resources
 */
export const readResource = (input: {
  readonly uri: string
  readonly offset?: number
  readonly length?: number
}): Effect.Effect<ReadAnswer, ResourceError, Unit> => resourceSide((r) => r.read(input))

/**
 * A revealed prompt, rendered with its arguments. What `get_prompt` answers.
 *
 * @since 0.3.0
 * @category resources
 */
export const getPrompt = (input: {
  readonly name: string
  readonly arguments?: Readonly<Record<string, string>>
}): Effect.Effect<PromptAnswer, ResourceError, Unit> => resourceSide((r) => r.getPrompt(input))

/**
 * The system prompt sections of the unit: the table of contents of the tools (`staged` mode) and
 * of the resources (every mode, with resources), built from the policies the unit read.
 *
 * @since 0.3.0
 * @category accessors
 */
export const contents: Effect.Effect<string, never, Unit> = UnitService.use((u) =>
  // neither staged tools nor resources: nothing to build (every turn of most agents)
  u.policies.disclosure.mode !== "staged" && u.resources === undefined ? Effect.succeed("") : Effect.gen(function*() {
    const { disclosure, tableOfContents, visibility } = u.policies
    const searchableTools = yield* u.tools.searchable
    const tools = disclosure.mode === "staged" && Deferral.defers(disclosure, searchableTools.length)
      ? ToolContents.section(searchableTools, visibility, disclosure, tableOfContents)
      : ""
    const resources = u.resources === undefined ? "" : ResourceContents.section(
      yield* u.resources.available,
      visibility,
      (yield* u.resources.tools).map((t) => t.name),
      tableOfContents
    )
    return [tools, resources].filter((s) => s !== "").join("\n\n")
  })
)

/**
 * The policies the unit read when it started.
 *
 * @since 0.3.0
 * @category accessors
 */
export const policies: Effect.Effect<
  {
    readonly disclosure: Disclosure.Options
    readonly visibility: Visibility.Visibility
    readonly permission: Permission.Permission
  },
  never,
  Unit
> = UnitService.use((u) => Effect.succeed(u.policies))

// -----------------------------------------------------------------------------
// Supervision
// -----------------------------------------------------------------------------

/**
 * Runs `effect` as a child fiber of the unit and waits for it: interrupting the caller interrupts
 * it, and so does the end of the unit. The label names it in `running`.
 *
 * @since 0.3.0
 * @category supervision
 */
export const supervise: {
  (label: string): <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R | Unit>
  <A, E, R>(effect: Effect.Effect<A, E, R>, label: string): Effect.Effect<A, E, R | Unit>
} = function() {
  if (typeof arguments[0] === "string") {
    const label = arguments[0] as string
    return <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      UnitService.use((u) => u.children.supervise(label, effect)) as Effect.Effect<A, E, R | Unit>
  }
  const [effect, label] = arguments as unknown as [Effect.Effect<unknown, unknown, unknown>, string]
  return UnitService.use((u) => u.children.supervise(label, effect))
} as never

/**
 * `supervise` with a time limit, giving the child's exit rather than its outcome: `None` when it ran
 * past `timeout` and was interrupted (its finalizers have run). A child that finished as it started
 * (a synchronous tool) is taken at once, with no timer. The executor runs every tool this way.
 *
 * @since 0.3.0
 * @category supervision
 */
export const superviseExit = <A, E, R>(
  label: string,
  effect: Effect.Effect<A, E, R>,
  options: { readonly timeout?: Duration.Input | undefined } = {}
): Effect.Effect<Option.Option<Exit.Exit<A, E>>, never, R | Unit> =>
  UnitService.use((u) =>
    u.children.awaitExit(
      label,
      effect,
      options.timeout === undefined ? undefined : Duration.fromInputUnsafe(options.timeout)
    )
  )

/**
 * Starts `effect` in the background as a child fiber of the unit: the unit's end interrupts it if it
 * still runs (a sub-agent the app starts and may not wait for).
 *
 * @since 0.3.0
 * @category supervision
 */
export const start = <A, E, R>(
  label: string,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<Fiber.Fiber<A, E>, never, R | Unit> => UnitService.use((u) => u.children.start(label, effect))

/**
 * The labels of the unit's children still running.
 *
 * @since 0.3.0
 * @category supervision
 */
export const running: Effect.Effect<ReadonlyArray<string>, never, Unit> = UnitService.use((u) => u.children.running)

// -----------------------------------------------------------------------------
// The dispatcher
// -----------------------------------------------------------------------------

/**
 * The call a model's call stands for: a call of `call_tool {name, arguments}` is the call of the
 * named tool (with `via: "call_tool"`), so it runs exactly as a direct call would; any other call
 * passes unchanged. A malformed dispatcher call is refused with a message for the model.
 *
 * @since 0.3.0
 * @category dispatcher
 */
export const unwrap = (
  call: Call,
  limits: ToolArguments.Limits = ToolArguments.defaultLimits
): Effect.Effect<Call, Refused> => {
  const unwrapped = Dispatcher.unwrap(call, limits)
  return unwrapped._tag === "Call"
    ? Effect.succeed(unwrapped.call)
    : Effect.fail(
      new Refused({ kind: "tool", name: Dispatcher.CALL_TOOL, reason: "invalid-request", hint: unwrapped.message })
    )
}

/**
 * Whether the unit in context offers the dispatcher.
 *
 * @since 0.3.0
 * @category dispatcher
 */
export const dispatches: Effect.Effect<boolean, never, Unit> = UnitService.use((u) =>
  Effect.succeed(u.dispatcher !== undefined)
)
