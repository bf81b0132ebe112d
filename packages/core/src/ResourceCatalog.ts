/**
 * The resource catalog: every resource the agent could read, for the agent's whole lifetime — the
 * resource counterpart of `ToolCatalog`. It registers and unregisters resources atomically, keeps
 * two live indexes built by the agent's `SearchStrategy` (BM25F by default) — one of resource
 * metadata (name, title, kind, description, prompt arguments) and one of passages inside the
 * bodies — and answers queries without revealing anything: what was revealed belongs to a unit's
 * `RevealedResources`, whose lifetime is one turn or one fork.
 *
 * A body is split into passages on headings and paragraphs when its resource is registered: the
 * catalog reads it through the resource's reader (at most `maxIndexedChars`, within
 * `indexTimeout`, `indexConcurrency` at a time), outside the write lock, then commits the resource
 * and its passages in one synchronous step. A body that cannot be read (a failing reader, a binary
 * body, a template, a prompt) leaves the resource registered, readable and sampled by its
 * metadata, with the reason in `unsearchable`. Writes are serialized and all-or-nothing: a batch
 * with one invalid resource registers nothing. Replacing a resource replaces its passages, so a
 * search never sees a stale body.
 *
 * @since 0.2.0
 */
import { Context, type Duration, Effect, Layer, Option, PubSub, Semaphore, Stream } from "effect"
import type { Scope } from "effect"
import type { InvalidEntry, InvalidQuery, SearchFailed } from "./Errors.js"
import { DuplicateEntry } from "./Errors.js"
import * as Passages from "./internal/passages.js"
import * as Index from "./internal/resourceIndex.js"
import * as ResourceSearch from "./internal/resourceSearch.js"
import * as ResourceTable from "./internal/resourceTable.js"
import * as Versioned from "./internal/versioned.js"
import * as Resource from "./Resource.js"
import { type SearchIndex, SearchStrategy } from "./SearchStrategy.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * A registered resource.
 *
 * @since 0.2.0
 * @category models
 */
export interface Entry extends Resource.Resource {
  /** The URI: what visibility and permission policies match as the id. */
  readonly id: string
  /** The name: what tables of contents and `get_prompt` show. */
  readonly modelName: string
  /** Passages of the body in the search index. */
  readonly passages: number
  /** Why the body is not searchable (a prompt, a template, a binary body, a failed read); absent when it is. */
  readonly unsearchable?: string
  /** Whether only the head of the body (`maxIndexedChars`) is searchable. */
  readonly truncated: boolean
}

/**
 * A passage of a body: where it is, the headings above it, and its text.
 *
 * @since 0.2.0
 * @category models
 */
export interface Passage {
  readonly uri: string
  /** Its position among the passages of its resource. */
  readonly index: number
  readonly offset: number
  readonly length: number
  /** The headings above it, outermost first, joined by ` › `; empty before the first heading. */
  readonly heading: string
  readonly text: string
}

/**
 * A resource found by `sample`, with the passage that matched best when the body matched.
 *
 * @since 0.2.0
 * @category models
 */
export interface Match {
  readonly resource: Entry
  readonly score: number
  readonly passage?: Passage
}

/**
 * A passage found by `searchPassages`.
 *
 * @since 0.2.0
 * @category models
 */
export interface PassageMatch {
  readonly resource: Entry
  readonly passage: Passage
  readonly score: number
}

/**
 * What one write changed (URIs), published on `changes`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Change {
  readonly added: ReadonlyArray<string>
  readonly removed: ReadonlyArray<string>
  readonly version: number
}

/**
 * How a search is run: at most `limit` results among the resources `accept` lets through.
 *
 * @since 0.2.0
 * @category models
 */
export interface SearchOptions {
  readonly limit: number
  readonly accept: (resource: Entry) => boolean
  /** For `sample`: resources whose passages may rank them (default all); a view passes those it may read. */
  readonly acceptBody?: (resource: Entry) => boolean
}

/**
 * The catalog settings.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** Characters of a body split into passages; the rest is readable but not searchable. */
  readonly maxIndexedChars: number
  /** Passage sizes in characters: a passage stops growing at `target`, never exceeds `max`. */
  readonly passageTarget: number
  readonly passageMax: number
  /** How long reading one body for the index may take. */
  readonly indexTimeout: Duration.Input
  /** Bodies read at once while registering. */
  readonly indexConcurrency: number
  /**
   * Whether bodies are read and split into passages at registration (default `true`). Without it
   * nothing is read until someone reads: resources are found by their metadata only (a gateway
   * that forwards reads and offers no search inside bodies).
   */
  readonly indexBodies: boolean
}

/**
 * Defaults: bodies indexed, 2 million indexed characters per body, passages of 800 to 1,600
 * characters, 30 seconds and 4 reads at once.
 *
 * @since 0.2.0
 * @category models
 */
const defaultOptions: Options = {
  maxIndexedChars: 2_000_000,
  passageTarget: Passages.defaultSizes.target,
  passageMax: Passages.defaultSizes.max,
  indexTimeout: "30 seconds",
  indexConcurrency: 4,
  indexBodies: true
}

/**
 * The operations of a resource catalog.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** Registers resources atomically; with `replace`, a resource with an existing URI replaces it. */
  readonly register: (
    resources: Resource.Resource | Iterable<Resource.Resource>,
    options?: { readonly replace?: boolean }
  ) => Effect.Effect<void, InvalidEntry | DuplicateEntry>
  /** Removes resources by URI; unknown URIs are ignored. */
  readonly unregister: (uris: string | Iterable<string>) => Effect.Effect<void>
  /** Makes a source hold exactly `resources`, in one atomic step (what a `list_changed` needs). */
  readonly replaceSource: (
    source: string,
    resources: Iterable<Resource.Resource>
  ) => Effect.Effect<void, InvalidEntry | DuplicateEntry>
  /** Every resource, in registration order. */
  readonly all: Effect.Effect<ReadonlyArray<Entry>>
  readonly get: (uri: string) => Effect.Effect<Option.Option<Entry>>
  /** The resource of a URI: registered under it, or the first template matching it. */
  readonly resolve: (uri: string) => Effect.Effect<Option.Option<Entry>>
  /** The passages of a resource, in order. */
  readonly passages: (uri: string) => Effect.Effect<ReadonlyArray<Passage>>
  /** Ranks resources by metadata and body, fused. Pure: reveals nothing. */
  readonly sample: (
    query: string,
    options: SearchOptions
  ) => Effect.Effect<ReadonlyArray<Match>, SearchFailed | InvalidQuery>
  /** Ranks passages. Pure: reveals nothing. */
  readonly searchPassages: (
    query: string,
    options: SearchOptions
  ) => Effect.Effect<ReadonlyArray<PassageMatch>, SearchFailed | InvalidQuery>
  /** `get`, synchronously: for hot paths. */
  readonly getUnsafe: (uri: string) => Entry | undefined
  /** `resolve`, synchronously. */
  readonly resolveUnsafe: (uri: string) => Entry | undefined
  /** A resource's passages, synchronously. */
  readonly passagesUnsafe: (uri: string) => ReadonlyArray<Passage>
  /** `version`, synchronously. */
  readonly versionUnsafe: () => number
  /**
   * The resources a policy lets exist (`Visibility.includes`), in registration order: computed once
   * per policy object and catalog version, shared by every unit (and gateway listing) that reads it.
   */
  readonly visibleTo: (
    policy: { readonly includes: (resource: Entry) => boolean }
  ) => Effect.Effect<ReadonlyArray<Entry>>
  /** Increases with every write. */
  readonly version: Effect.Effect<number>
  /** Every write, as it happens (subscribe before writing to see it). */
  readonly changes: Stream.Stream<Change>
  /** The strategy ranking this catalog. */
  readonly strategy: string
}

// -----------------------------------------------------------------------------
// Implementation
// -----------------------------------------------------------------------------

/**
 * Builds a catalog; its change stream ends with the enclosing scope.
 *
 * @since 0.2.0
 * @category constructors
 */
const make = (
  partial: Partial<Options> = {}
): Effect.Effect<Service, never, SearchStrategy | Scope.Scope> =>
  Effect.gen(function*() {
    const options: Options = { ...defaultOptions, ...partial }
    const strategy = yield* SearchStrategy
    const metadata: SearchIndex = yield* strategy.makeIndex
    const bodies: SearchIndex = yield* strategy.makeIndex
    const pubsub = yield* Effect.acquireRelease(PubSub.unbounded<Change>(), PubSub.shutdown)
    const writeLock = yield* Semaphore.make(1)

    // The state: mutated only by `table.commit`, one synchronous step under `writeLock`.
    const table = ResourceTable.make(metadata, bodies)

    /** Validates a batch against itself (not against the state: `commit` does, under the lock). */
    const validate = (resources: ReadonlyArray<Resource.Resource>) =>
      Effect.gen(function*() {
        const valid = new Map<string, Resource.Resource>()
        for (const resource of resources) {
          const checked = yield* Resource.validate(resource)
          if (valid.has(checked.uri)) {
            return yield* new DuplicateEntry({ kind: "resource", id: checked.uri, name: checked.uri })
          }
          valid.set(checked.uri, checked)
        }
        return [...valid.values()]
      })

    const prepare = (resource: Resource.Resource) => Index.prepare(resource, options)

    const write = <E>(
      resources: ReadonlyArray<Resource.Resource>,
      plan: (valid: ReadonlyArray<Resource.Resource>) => Effect.Effect<ReadonlyArray<string>, E>
    ): Effect.Effect<void, E | InvalidEntry | DuplicateEntry> =>
      Effect.gen(function*() {
        const valid = yield* validate(resources)
        const prepared = yield* Effect.forEach(valid, prepare, { concurrency: Math.max(1, options.indexConcurrency) })
        yield* writeLock.withPermits(1)(
          plan(valid).pipe(
            Effect.map((removals) => table.commit(removals, prepared)),
            Effect.flatMap((change) =>
              change.added.length + change.removed.length > 0 ? PubSub.publish(pubsub, change) : Effect.void
            ),
            Effect.uninterruptible
          )
        )
      })

    const register = (
      input: Resource.Resource | Iterable<Resource.Resource>,
      opts?: { readonly replace?: boolean }
    ) => {
      const resources = isResource(input) ? [input] : [...input]
      const duplicates = (valid: ReadonlyArray<Resource.Resource>) => {
        const taken = opts?.replace === true ? undefined : valid.find((r) => table.get(r.uri) !== undefined)
        return taken === undefined
          ? Effect.succeed([])
          : Effect.fail(new DuplicateEntry({ kind: "resource", id: taken.uri, name: taken.uri }))
      }
      // fail before reading any body when a URI is already taken
      return Effect.suspend(() => duplicates(resources)).pipe(Effect.andThen(write(resources, duplicates)))
    }

    const replaceSource = (source: string, input: Iterable<Resource.Resource>) => {
      const resources = [...input].map((r) => r.source === source ? r : { ...r, source })
      return write(resources, (valid) =>
        Effect.suspend(() => {
          const taken = valid.find((r) => {
            const owner = table.get(r.uri)
            return owner !== undefined && owner.source !== source
          })
          if (taken !== undefined) {
            return Effect.fail(new DuplicateEntry({ kind: "resource", id: taken.uri, name: taken.uri }))
          }
          const incoming = new Set(valid.map((r) => r.uri))
          return Effect.succeed(
            table.all().filter((e) => e.source === source && !incoming.has(e.uri)).map((e) => e.uri)
          )
        }))
    }

    const { sample, searchPassages } = ResourceSearch.make(table, metadata, bodies, strategy.name)

    const visibleTo = Versioned.perPolicy(
      table.version,
      (policy: { readonly includes: (resource: Entry) => boolean }) => table.all().filter(policy.includes)
    )

    return {
      register,
      unregister: (uris) =>
        writeLock.withPermits(1)(
          Effect.suspend(() => {
            const change = table.commit(typeof uris === "string" ? [uris] : [...uris], [])
            return change.removed.length > 0 ? PubSub.publish(pubsub, change) : Effect.void
          }).pipe(Effect.uninterruptible, Effect.asVoid)
        ),
      replaceSource,
      all: Effect.sync(table.all),
      get: (uri) => Effect.sync(() => Option.fromUndefinedOr(table.get(uri))),
      resolve: (uri) => Effect.sync(() => Option.fromUndefinedOr(table.resolve(uri))),
      passages: (uri) => Effect.sync(() => table.passages(uri)),
      sample,
      searchPassages,
      getUnsafe: table.get,
      resolveUnsafe: table.resolve,
      passagesUnsafe: table.passages,
      versionUnsafe: table.version,
      visibleTo: (policy) => Effect.sync(() => visibleTo(policy)),
      version: Effect.sync(table.version),
      changes: Stream.fromPubSub(pubsub),
      strategy: strategy.name
    } satisfies Service
  })

const isResource = (u: Resource.Resource | Iterable<Resource.Resource>): u is Resource.Resource =>
  typeof (u as Resource.Resource).uri === "string"

// -----------------------------------------------------------------------------
// Service
// -----------------------------------------------------------------------------

/**
 * The agent's resource catalog.
 *
 * @since 0.2.0
 * @category services
 */
export class ResourceCatalog extends Context.Service<ResourceCatalog, Service>()("@tool-search/core/ResourceCatalog") {}

/**
 * A catalog ranking with the `SearchStrategy` in context, with the default settings.
 *
 * @since 0.3.0
 * @category layers
 */
export const layer: Layer.Layer<ResourceCatalog, never, SearchStrategy> = Layer.effect(ResourceCatalog, make())

/**
 * A catalog with explicit settings.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerWith = (options: Partial<Options>): Layer.Layer<ResourceCatalog, never, SearchStrategy> =>
  Layer.effect(ResourceCatalog, make(options))

/**
 * A catalog that starts with `resources` registered (one atomic batch: a bad resource fails the layer).
 *
 * **Example**
 *
 * ```ts
 * const Resources = ResourceCatalog.layerWithResources([
 *   Resource.text({ uri: "policy://handbook", name: "Handbook", description: "Returns and refunds", text })
 * ]).pipe(Layer.provide(Bm25f.layer))
 * ```
 *
 * @since 0.3.0
 * @category layers
 */
export const layerWithResources = (
  resources: Iterable<Resource.Resource>,
  options: Partial<Options> = {}
): Layer.Layer<ResourceCatalog, InvalidEntry | DuplicateEntry, SearchStrategy> =>
  Layer.effect(ResourceCatalog, Effect.tap(make(options), (catalog) => catalog.register(resources)))
