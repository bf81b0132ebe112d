/**
 * The tool catalog: every tool the agent could ever use, for the agent's whole lifetime. It
 * registers and unregisters tools atomically, classifies them eager or deferred, gives each the
 * name the model sees (unambiguous even when two sources declare the same name), keeps the search
 * index live, and answers queries without activating anything: activation belongs to a `ToolView`,
 * whose lifetime is one turn or one fork.
 *
 * Writes are serialized and all-or-nothing: a batch with one bad tool registers nothing. The state
 * is mutated in one synchronous step per write, which JavaScript never interleaves with a read, so
 * readers need no lock and a 100k-tool catalog takes one tool in constant time.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option, PubSub, Semaphore, Stream } from "effect"
import type { Scope } from "effect"
import * as CatalogTool from "./CatalogTool.js"
import { isMetaTool } from "./Disclosure.js"
import type { InvalidQuery, SearchFailed } from "./Errors.js"
import { DuplicateEntry, InvalidEntry } from "./Errors.js"
import * as Evidence from "./internal/evidence.js"
import * as ToolRanking from "./internal/toolRanking.js"
import * as ToolTable from "./internal/toolTable.js"
import * as Versioned from "./internal/versioned.js"
import type * as Query from "./Query.js"
import * as SearchFeedback from "./SearchFeedback.js"
import { SearchStrategy } from "./SearchStrategy.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * A registered tool with the name the model sees.
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry extends CatalogTool.CatalogTool {
  /** Equal to `name`, unless another tool declares the same name: then qualified by source. */
  readonly modelName: string
}

/**
 * What one write changed, published on `changes`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Change {
  readonly added: ReadonlyArray<string>
  readonly removed: ReadonlyArray<string>
  /** Tools whose model name changed because of a collision. */
  readonly renamed: ReadonlyArray<string>
  /** The catalog version after the change. */
  readonly version: number
}

/**
 * One search result.
 *
 * @since 0.1.0
 * @category models
 */
export interface Match {
  readonly tool: Entry
  readonly score: number
  /** How well it matches on an absolute scale, when the strategy says (`SearchStrategy.Hit`). */
  readonly strength?: number
}

/**
 * How a catalog search is run.
 *
 * @since 0.1.0
 * @category models
 */
export interface SearchOptions {
  readonly limit: number
  /** Which tools may be returned; default: deferred tools. */
  readonly candidates?: (tool: Entry) => boolean
  /** Drops hits scoring below it. */
  readonly minScore?: number
  /** Keeps one category, unless that leaves nothing: then searches all candidates again. */
  readonly category?: string
}

/**
 * What decides whether a tool exists for an agent: a visibility policy.
 *
 * @since 0.3.0
 * @category models
 */
export interface Policy {
  readonly includes: (tool: Entry) => boolean
}

/**
 * The tools a policy lets exist, eager and deferred, in registration order.
 *
 * @since 0.3.0
 * @category models
 */
export interface Visible {
  readonly eager: ReadonlyArray<Entry>
  readonly deferred: ReadonlyArray<Entry>
}

/**
 * The catalog settings.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * Strip a leading `functions.` from names the model sends back (some models echo the namespace of
   * their tool-calling format). On by default: `.` is not a valid tool name character, so stripping
   * can never hide a real tool.
   */
  readonly stripFunctionsPrefix: boolean
  /** Names the catalog in `SearchFeedback`: catalogs sharing a feedback store need different names. */
  readonly name: string
}

/**
 * Default settings: strip `functions.`, the name `default`.
 *
 * @since 0.1.0
 * @category models
 */
const defaultOptions: Options = { stripFunctionsPrefix: true, name: "default" }

/**
 * The operations of a tool catalog.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** Registers one or many tools atomically; with `replace`, tools with an existing id replace it. */
  readonly register: (
    tools: CatalogTool.CatalogTool | Iterable<CatalogTool.CatalogTool>,
    options?: { readonly replace?: boolean }
  ) => Effect.Effect<void, InvalidEntry | DuplicateEntry>
  /** Removes tools by id; unknown ids are ignored. */
  readonly unregister: (ids: string | Iterable<string>) => Effect.Effect<void>
  /** Makes a source hold exactly `tools`, in one atomic step (what a `tools/list_changed` needs). */
  readonly replaceSource: (
    source: string,
    tools: Iterable<CatalogTool.CatalogTool>
  ) => Effect.Effect<void, InvalidEntry | DuplicateEntry>
  /** Eager tools, in registration order. */
  readonly eager: Effect.Effect<ReadonlyArray<Entry>>
  /** Deferred tools, in registration order. */
  readonly deferred: Effect.Effect<ReadonlyArray<Entry>>
  /** Every tool, in registration order. */
  readonly all: Effect.Effect<ReadonlyArray<Entry>>
  /** `all`, synchronously. */
  readonly allUnsafe: () => ReadonlyArray<Entry>
  readonly get: (id: string) => Effect.Effect<Option.Option<Entry>>
  /** Finds a tool by the name the model sees (or its declared name, when unambiguous). */
  readonly findByName: (name: string) => Effect.Effect<Option.Option<Entry>>
  /** `get`, synchronously: for hot paths (the view checks each search hit). */
  readonly getUnsafe: (id: string) => Entry | undefined
  /** `findByName`, synchronously. */
  readonly findByNameUnsafe: (name: string) => Entry | undefined
  /** `version`, synchronously. */
  readonly versionUnsafe: () => number
  /**
   * The eager and deferred tools a policy lets exist (`Visibility.includes`), in registration
   * order: computed once per policy object and catalog version, shared by every unit that reads it.
   */
  readonly visibleTo: (policy: Policy) => Effect.Effect<Visible>
  /** `visibleTo`, synchronously: for hot paths (every request and call of a unit reads it). */
  readonly visibleToUnsafe: (policy: Policy) => Visible
  /** Ranks tools for a query. Pure: activates nothing. */
  readonly search: (
    query: Query.Query,
    options: SearchOptions
  ) => Effect.Effect<ReadonlyArray<Match>, SearchFailed | InvalidQuery>
  /** Increases with every write. */
  readonly version: Effect.Effect<number>
  /** Every write, as it happens (subscribe before writing to see it). */
  readonly changes: Stream.Stream<Change>
  /** The strategy ranking this catalog. */
  readonly strategy: string
  /** The catalog's name in `SearchFeedback`. */
  readonly name: string
}

// -----------------------------------------------------------------------------
// Implementation
// -----------------------------------------------------------------------------

/**
 * Builds a catalog; its change stream ends with the enclosing scope.
 *
 * @since 0.1.0
 * @category constructors
 */
const make = (partial: Partial<Options> = {}): Effect.Effect<Service, never, SearchStrategy | Scope.Scope> =>
  Effect.gen(function*() {
    const options: Options = { ...defaultOptions, ...partial }
    const strategy = yield* SearchStrategy
    const feedback = yield* SearchFeedback.SearchFeedback
    const index = yield* strategy.makeIndex
    const pubsub = yield* Effect.acquireRelease(PubSub.unbounded<Change>(), PubSub.shutdown)
    const writeLock = yield* Semaphore.make(1)
    // The feedback evidence the index holds (each tool's past queries).
    const evidence = Evidence.make(index)
    // The state: mutated only by `table.commit`, one synchronous step under `writeLock`.
    const table = ToolTable.make(
      index,
      evidence.documentOf,
      (name) => options.stripFunctionsPrefix ? CatalogTool.stripFunctionsPrefix(name) : name
    )

    /** Validates a batch against itself and the current state, without touching the state. */
    const prepare = (
      tools: ReadonlyArray<CatalogTool.CatalogTool>,
      replaceable: (id: string) => boolean
    ): Effect.Effect<ReadonlyArray<CatalogTool.CatalogTool>, InvalidEntry | DuplicateEntry> =>
      Effect.gen(function*() {
        const seen = new Set<string>()
        const valid: Array<CatalogTool.CatalogTool> = []
        for (const tool of tools) {
          const checked = yield* CatalogTool.validate(tool)
          if (isMetaTool(checked.name)) {
            return yield* new InvalidEntry({
              kind: "tool",
              name: checked.name,
              reason: "the name is reserved for the search tools"
            })
          }
          if (seen.has(checked.id) || (table.get(checked.id) !== undefined && !replaceable(checked.id))) {
            return yield* new DuplicateEntry({ kind: "tool", id: checked.id, name: checked.name })
          }
          seen.add(checked.id)
          valid.push(checked)
        }
        return valid
      })

    const write = <E>(
      plan: Effect.Effect<
        { readonly removals: ReadonlyArray<string>; readonly additions: ReadonlyArray<CatalogTool.CatalogTool> },
        E
      >
    ): Effect.Effect<void, E> =>
      writeLock.withPermits(1)(
        plan.pipe(
          Effect.map(({ additions, removals }) => table.commit(removals, additions)),
          Effect.tap((change) =>
            change.added.length + change.removed.length > 0 ? PubSub.publish(pubsub, change) : Effect.void
          ),
          // a removed tool takes its feedback with it
          Effect.flatMap((change) =>
            change.removed.length > 0 ? feedback.forget(options.name, change.removed) : Effect.void
          ),
          Effect.uninterruptible
        )
      )

    const rank = ToolRanking.make(table, index, strategy.name)

    const visibleTo = Versioned.perPolicy(table.version, (policy: Policy): Visible => {
      const all = table.all().filter(policy.includes)
      return { eager: all.filter((e) => e.loading === "eager"), deferred: all.filter((e) => e.loading === "deferred") }
    })

    const toArray = (tools: CatalogTool.CatalogTool | Iterable<CatalogTool.CatalogTool>) =>
      isTool(tools) ? [tools] : [...tools]

    const search = (
      query: Query.Query,
      opts: SearchOptions
    ): Effect.Effect<ReadonlyArray<Match>, SearchFailed | InvalidQuery> =>
      // combinators, not a generator: this closure would make a new generator function per search
      Effect.flatMap(feedback.read(options.name), (read) => {
        evidence.apply(read, (id) => table.get(id))
        const candidates = opts.candidates ?? ((e: Entry) => e.loading === "deferred")
        const run = (accept: (e: Entry) => boolean) => rank(query, opts.limit, accept)
        const { category, minScore } = opts
        const ranked = category === undefined
          ? run(candidates)
          : Effect.flatMap(
            run((e) => candidates(e) && e.category === category),
            (matches) => matches.length === 0 ? run(candidates) : Effect.succeed(matches)
          )
        return minScore === undefined ? ranked : Effect.map(ranked, (ms) => ms.filter((m) => m.score >= minScore))
      })

    return {
      register: (tools, opts) =>
        write(
          prepare(toArray(tools), () => opts?.replace === true).pipe(
            Effect.map((additions) => ({ removals: [], additions }))
          )
        ),
      unregister: (ids) =>
        write(Effect.succeed({ removals: typeof ids === "string" ? [ids] : [...ids], additions: [] })),
      replaceSource: (source, tools) => {
        const batch = [...tools].map((t) => t.source === source ? t : { ...t, source })
        return write(
          Effect.suspend(() => {
            const current = table.all().filter((e) => e.source === source).map((e) => e.id)
            const kept = new Set(current)
            return prepare(batch, (id) => kept.has(id)).pipe(
              Effect.map((additions) => {
                const incoming = new Set(additions.map((t) => t.id))
                return { removals: current.filter((id) => !incoming.has(id)), additions }
              })
            )
          })
        )
      },
      eager: Effect.sync(table.eager),
      deferred: Effect.sync(() => table.all().filter((e) => e.loading === "deferred")),
      all: Effect.sync(table.all),
      allUnsafe: table.all,
      get: (id) => Effect.sync(() => Option.fromUndefinedOr(table.get(id))),
      findByName: (name) => Effect.sync(() => Option.fromUndefinedOr(table.findByName(name))),
      getUnsafe: table.get,
      findByNameUnsafe: table.findByName,
      versionUnsafe: table.version,
      visibleTo: (policy) => Effect.sync(() => visibleTo(policy)),
      visibleToUnsafe: visibleTo,
      search,
      version: Effect.sync(table.version),
      changes: Stream.fromPubSub(pubsub),
      strategy: strategy.name,
      name: options.name
    } satisfies Service
  })

const isTool = (u: CatalogTool.CatalogTool | Iterable<CatalogTool.CatalogTool>): u is CatalogTool.CatalogTool =>
  typeof (u as CatalogTool.CatalogTool).name === "string" && typeof (u as CatalogTool.CatalogTool).id === "string"

// -----------------------------------------------------------------------------
// Service
// -----------------------------------------------------------------------------

/**
 * The agent's tool catalog.
 *
 * @since 0.1.0
 * @category services
 */
export class ToolCatalog extends Context.Service<ToolCatalog, Service>()("@tool-search/core/ToolCatalog") {}

/**
 * A catalog ranking with the `SearchStrategy` in context, with the default settings.
 *
 * @since 0.3.0
 * @category layers
 */
export const layer: Layer.Layer<ToolCatalog, never, SearchStrategy> = Layer.effect(ToolCatalog, make())

/**
 * A catalog with explicit settings.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerWith = (options: Partial<Options>): Layer.Layer<ToolCatalog, never, SearchStrategy> =>
  Layer.effect(ToolCatalog, make(options))

/**
 * A catalog that starts with `tools` registered (one atomic batch: a bad tool fails the layer).
 *
 * **Example**
 *
 * ```ts
 * const Catalog = ToolCatalog.layerWithTools([
 *   CatalogTool.make({ name: "read_file", description: "Read a file", loading: "eager" }),
 *   CatalogTool.make({ name: "slack_send", description: "Send a Slack message" })
 * ]).pipe(Layer.provide(Bm25f.layer))
 * ```
 *
 * @since 0.3.0
 * @category layers
 */
export const layerWithTools = (
  tools: Iterable<CatalogTool.CatalogTool>,
  options: Partial<Options> = {}
): Layer.Layer<ToolCatalog, InvalidEntry | DuplicateEntry, SearchStrategy> =>
  Layer.effect(ToolCatalog, Effect.tap(make(options), (catalog) => catalog.register(tools)))
