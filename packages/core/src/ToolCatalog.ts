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
import { Context, Effect, Layer, Option, PubSub, Schema, Semaphore, Stream } from "effect"
import * as CatalogTool from "./CatalogTool.js"
import { META_TOOL_NAMES } from "./Disclosure.js"
import * as Evidence from "./internal/evidence.js"
import { messageOf } from "./internal/messages.js"
import type * as Query from "./Query.js"
import * as SearchFeedback from "./SearchFeedback.js"
import { SearchFailed, type SearchIndex, SearchStrategy } from "./SearchStrategy.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/** A registered tool with the name the model sees. */
export interface Entry extends CatalogTool.CatalogTool {
  /** Equal to `name`, unless another tool declares the same name: then qualified by source. */
  readonly modelName: string
}

/** What one write changed, published on `changes`. */
export interface Change {
  readonly added: ReadonlyArray<string>
  readonly removed: ReadonlyArray<string>
  /** Tools whose model name changed because of a collision. */
  readonly renamed: ReadonlyArray<string>
  /** The catalog version after the change. */
  readonly version: number
}

/** One search result. */
export interface Match {
  readonly tool: Entry
  readonly score: number
  /** How well it matches on an absolute scale, when the strategy says (`SearchStrategy.Hit`). */
  readonly strength?: number
}

/** How a catalog search is run. */
export interface SearchOptions {
  readonly limit: number
  /** Which tools may be returned; default: deferred tools. */
  readonly candidates?: (tool: Entry) => boolean
  /** Drops hits scoring below it. */
  readonly minScore?: number
  /** Keeps one category, unless that leaves nothing: then searches all candidates again. */
  readonly category?: string
}

/** Another tool already has this id. */
export class DuplicateTool extends Schema.TaggedError<DuplicateTool>()("DuplicateTool", {
  id: Schema.String,
  name: Schema.String
}) {
  override get message(): string {
    return `Duplicate tool id '${this.id}' (tool '${this.name}'): ids must be unique in a catalog; give one an explicit id`
  }
}

/** The catalog settings. */
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

/** Default settings. */
export const defaultOptions: Options = { stripFunctionsPrefix: true, name: "default" }

// -----------------------------------------------------------------------------
// Service
// -----------------------------------------------------------------------------

/** The agent's tool catalog. */
export class ToolCatalog extends Context.Service<ToolCatalog, {
  /** Registers one or many tools atomically; with `replace`, tools with an existing id replace it. */
  readonly register: (
    tools: CatalogTool.CatalogTool | Iterable<CatalogTool.CatalogTool>,
    options?: { readonly replace?: boolean }
  ) => Effect.Effect<void, CatalogTool.InvalidTool | DuplicateTool>
  /** Removes tools by id; unknown ids are ignored. */
  readonly unregister: (ids: string | Iterable<string>) => Effect.Effect<void>
  /** Makes a source hold exactly `tools`, in one atomic step (what a `tools/list_changed` needs). */
  readonly replaceSource: (
    source: string,
    tools: Iterable<CatalogTool.CatalogTool>
  ) => Effect.Effect<void, CatalogTool.InvalidTool | DuplicateTool>
  /** Eager tools, in registration order. */
  readonly eager: Effect.Effect<ReadonlyArray<Entry>>
  /** Deferred tools, in registration order. */
  readonly deferred: Effect.Effect<ReadonlyArray<Entry>>
  /** Every tool, in registration order. */
  readonly all: Effect.Effect<ReadonlyArray<Entry>>
  readonly get: (id: string) => Effect.Effect<Option.Option<Entry>>
  /** Finds a tool by the name the model sees (or its declared name, when unambiguous). */
  readonly findByName: (name: string) => Effect.Effect<Option.Option<Entry>>
  /** Synchronous lookups for hot paths (the view checks each search hit). */
  readonly unsafe: {
    readonly get: (id: string) => Entry | undefined
    readonly findByName: (name: string) => Entry | undefined
    readonly version: () => number
  }
  /** Ranks tools for a query. Pure: activates nothing. */
  readonly search: (
    query: Query.Query,
    options: SearchOptions
  ) => Effect.Effect<ReadonlyArray<Match>, SearchFailed | Query.InvalidQuery>
  /** Increases with every write. */
  readonly version: Effect.Effect<number>
  /** Every write, as it happens (subscribe before writing to see it). */
  readonly changes: Stream.Stream<Change>
  /** The strategy ranking this catalog. */
  readonly strategy: string
  /** The catalog's name in `SearchFeedback`. */
  readonly name: string
}>()("@tool-search/core/ToolCatalog") {
  /** A catalog ranking with the `SearchStrategy` in context. */
  static readonly layer: Layer.Layer<ToolCatalog, never, SearchStrategy> = Layer.effect(
    ToolCatalog,
    Effect.suspend(() => make(defaultOptions))
  )
  /** A catalog with explicit settings. */
  static readonly layerWith = (options: Partial<Options>): Layer.Layer<ToolCatalog, never, SearchStrategy> =>
    Layer.effect(ToolCatalog, Effect.suspend(() => make({ ...defaultOptions, ...options })))
  /** A catalog that starts with `tools` registered (one atomic batch: a bad tool fails the layer). */
  static readonly layerOf = (
    tools: Iterable<CatalogTool.CatalogTool>,
    options: Partial<Options> = {}
  ): Layer.Layer<ToolCatalog, CatalogTool.InvalidTool | DuplicateTool, SearchStrategy> =>
    Layer.effect(
      ToolCatalog,
      Effect.gen(function*() {
        const catalog = yield* make({ ...defaultOptions, ...options })
        yield* catalog.register(tools)
        return catalog
      })
    )
}

// -----------------------------------------------------------------------------
// Implementation
// -----------------------------------------------------------------------------

/** Builds a catalog; its change stream ends with the enclosing scope. */
export const make = Effect.fnUntraced(function*(partial: Partial<Options> = {}) {
  const options: Options = { ...defaultOptions, ...partial }
  const strategy = yield* SearchStrategy
  const feedback = yield* SearchFeedback.SearchFeedback
  const index: SearchIndex = yield* strategy.makeIndex
  const pubsub = yield* Effect.acquireRelease(PubSub.unbounded<Change>(), PubSub.shutdown)
  const writeLock = yield* Semaphore.make(1)

  // The state. Mutated only inside `commit`, one synchronous step under `writeLock`.
  const byId = new Map<string, Entry>()
  const idByModelName = new Map<string, string>()
  const idsByName = new Map<string, Set<string>>()
  const eagerIds = new Set<string>()
  let version = 0
  // The feedback evidence the index holds (each tool's past queries).
  const evidence = Evidence.make(index)

  const normalizeName = (name: string): string =>
    options.stripFunctionsPrefix ? CatalogTool.stripFunctionsPrefix(name) : name

  const findByNameUnsafe = (raw: string): Entry | undefined => {
    const name = normalizeName(raw)
    const id = idByModelName.get(name)
    if (id !== undefined) return byId.get(id)
    const declared = idsByName.get(name)
    if (declared?.size === 1) return byId.get(declared.values().next().value as string)
    return undefined
  }

  /** Validates a batch against itself and the current state, without touching the state. */
  const prepare = (
    tools: ReadonlyArray<CatalogTool.CatalogTool>,
    replaceable: (id: string) => boolean
  ): Effect.Effect<ReadonlyArray<CatalogTool.CatalogTool>, CatalogTool.InvalidTool | DuplicateTool> =>
    Effect.gen(function*() {
      const seen = new Set<string>()
      const valid: Array<CatalogTool.CatalogTool> = []
      for (const tool of tools) {
        const checked = yield* CatalogTool.validate(tool)
        if (META_TOOL_NAMES.has(checked.name)) {
          return yield* new CatalogTool.InvalidTool({
            tool: checked.name,
            reason: "the name is reserved for the search tools"
          })
        }
        if (seen.has(checked.id) || (byId.has(checked.id) && !replaceable(checked.id))) {
          return yield* new DuplicateTool({ id: checked.id, name: checked.name })
        }
        seen.add(checked.id)
        valid.push(checked)
      }
      return valid
    })

  /** Applies removals then additions in one synchronous step, and recomputes affected names. */
  const commit = (removals: ReadonlyArray<string>, additions: ReadonlyArray<CatalogTool.CatalogTool>): Change => {
    const touchedNames = new Set<string>()
    const removed: Array<string> = []
    const dropped: Array<string> = []
    for (const id of removals) {
      const old = byId.get(id)
      if (old === undefined) continue
      byId.delete(id)
      eagerIds.delete(id)
      if (idByModelName.get(old.modelName) === id) idByModelName.delete(old.modelName)
      idsByName.get(old.name)?.delete(id)
      if (idsByName.get(old.name)?.size === 0) idsByName.delete(old.name)
      touchedNames.add(old.name)
      removed.push(id)
      dropped.push(id)
    }
    for (const tool of additions) {
      const old = byId.get(tool.id)
      if (old !== undefined) {
        // replaced in place: keep the registration order of the id
        if (idByModelName.get(old.modelName) === tool.id) idByModelName.delete(old.modelName)
        idsByName.get(old.name)?.delete(tool.id)
        if (idsByName.get(old.name)?.size === 0) idsByName.delete(old.name)
        touchedNames.add(old.name)
      }
      byId.set(tool.id, { ...tool, modelName: tool.name })
      if (tool.loading === "eager") eagerIds.add(tool.id)
      else eagerIds.delete(tool.id)
      const ids = idsByName.get(tool.name) ?? new Set<string>()
      ids.add(tool.id)
      idsByName.set(tool.name, ids)
      touchedNames.add(tool.name)
    }
    const renamed = assignModelNames(touchedNames, new Set(additions.map((t) => t.id)))
    if (dropped.length > 0) index.remove(dropped)
    if (additions.length > 0) index.add(additions.map(evidence.documentOf))
    version++
    return { added: additions.map((t) => t.id), removed, renamed, version }
  }

  /**
   * Gives every tool of the touched name groups an unambiguous model name. A name alone in its
   * group is used as is. In a collision, a rewritten name (`originalName` set) takes a suffix and
   * leaves the plain name to the one tool that declared it as is; several tools declaring the same
   * name as is are each qualified by source.
   */
  const assignModelNames = (names: ReadonlySet<string>, fresh: ReadonlySet<string>): Array<string> => {
    const renamed: Array<string> = []
    for (const name of names) {
      const ids = [...(idsByName.get(name) ?? [])].sort()
      let declaredAsIs = 0
      for (const id of ids) {
        const entry = byId.get(id)
        if (entry === undefined) continue
        if (entry.originalName === undefined) declaredAsIs++
        if (idByModelName.get(entry.modelName) === id) idByModelName.delete(entry.modelName)
      }
      for (const id of ids) {
        const entry = byId.get(id)
        if (entry === undefined) continue
        const wanted = ids.length === 1
          ? entry.name
          : entry.originalName !== undefined
          ? suffixed(entry.name, id)
          : declaredAsIs === 1
          ? entry.name
          : qualifiedName(entry)
        let modelName = wanted
        if (idByModelName.has(modelName)) {
          modelName = suffixed(wanted, id)
        }
        idByModelName.set(modelName, id)
        if (modelName !== entry.modelName) {
          byId.set(id, { ...entry, modelName })
          if (!fresh.has(id)) renamed.push(id)
        }
      }
    }
    return renamed
  }

  const write = <E>(
    plan: Effect.Effect<
      { readonly removals: ReadonlyArray<string>; readonly additions: ReadonlyArray<CatalogTool.CatalogTool> },
      E
    >
  ): Effect.Effect<void, E> =>
    writeLock.withPermits(1)(
      plan.pipe(
        Effect.map(({ additions, removals }) => commit(removals, additions)),
        Effect.flatMap((change) =>
          change.added.length + change.removed.length > 0
            ? PubSub.publish(pubsub, change).pipe(Effect.as(change))
            : Effect.succeed(change)
        ),
        // a removed tool takes its feedback with it
        Effect.flatMap((change) =>
          change.removed.length > 0 ? feedback.forget(options.name, change.removed) : Effect.void
        ),
        Effect.uninterruptible,
        Effect.asVoid
      )
    )

  const toArray = (tools: CatalogTool.CatalogTool | Iterable<CatalogTool.CatalogTool>) =>
    isTool(tools) ? [tools] : [...tools]

  const entries = (filter: (e: Entry) => boolean) => Effect.sync(() => [...byId.values()].filter(filter))

  const search = (
    query: Query.Query,
    opts: SearchOptions
  ): Effect.Effect<ReadonlyArray<Match>, SearchFailed | Query.InvalidQuery> =>
    Effect.gen(function*() {
      evidence.apply(yield* feedback.read(options.name), (id) => byId.get(id))
      const candidates = opts.candidates ?? ((e: Entry) => e.loading === "deferred")
      const run = (accept: (e: Entry) => boolean) => rank(query, opts.limit, accept)
      let matches = opts.category === undefined
        ? yield* run(candidates)
        : yield* run((e) => candidates(e) && e.category === opts.category)
      if (matches.length === 0 && opts.category !== undefined) matches = yield* run(candidates)
      const min = opts.minScore
      return min === undefined ? matches : matches.filter((m) => m.score >= min)
    })

  const rank = (
    query: Query.Query,
    limit: number,
    accept: (e: Entry) => boolean
  ): Effect.Effect<ReadonlyArray<Match>, SearchFailed | Query.InvalidQuery> => {
    switch (query._tag) {
      case "Select":
        return Effect.sync(() => {
          const out: Array<Match> = []
          const seen = new Set<string>()
          for (const name of query.names) {
            const tool = findByNameUnsafe(name)
            if (tool !== undefined && !seen.has(tool.id) && accept(tool)) {
              seen.add(tool.id)
              out.push({ tool, score: 1 })
            }
          }
          return out.slice(0, limit)
        })
      case "Required": {
        const terms = query.required.filter((t) => t.length > 0)
        // an empty requirement would match every name: it is no requirement
        if (terms.length === 0) return query.text.trim() === "" ? Effect.succeed([]) : ranked(query.text, limit, accept)
        const named = (e: Entry) => {
          const lower = e.modelName.toLowerCase()
          return terms.every((t) => lower.includes(t)) && accept(e)
        }
        if (query.text.trim() === "") {
          return Effect.sync(() =>
            [...byId.values()].filter(named).sort((a, b) => a.modelName.localeCompare(b.modelName)).slice(0, limit)
              .map((tool) => ({ tool, score: 1 }))
          )
        }
        return ranked(query.text, limit, named)
      }
      case "Keywords": {
        // a query that is a tool's full name finds that tool first, whatever the ranking (or feedback) says
        const named = findByNameUnsafe(query.text.trim())
        if (named === undefined || !accept(named) || limit <= 0) return ranked(query.text, limit, accept)
        return Effect.map(
          ranked(query.text, limit - 1, (e) => e.id !== named.id && accept(e)),
          (rest) => [{ tool: named, score: Math.max(rest[0]?.score ?? 1, 1) }, ...rest]
        )
      }
    }
  }

  const ranked = (text: string, limit: number, accept: (e: Entry) => boolean) =>
    index.search({
      text,
      limit,
      accept: (id) => {
        const e = byId.get(id)
        return e !== undefined && accept(e)
      }
    }).pipe(
      Effect.map((hits) =>
        hits.flatMap((hit) => {
          const tool = byId.get(hit.id)
          if (tool === undefined) return []
          return [
            hit.strength === undefined ? { tool, score: hit.score } : { tool, score: hit.score, strength: hit.strength }
          ]
        })
      ),
      Effect.catchDefect((defect) =>
        Effect.fail(new SearchFailed({ strategy: strategy.name, reason: messageOf(defect) }))
      )
    )

  return ToolCatalog.of({
    register: (tools, opts) =>
      write(
        prepare(toArray(tools), () => opts?.replace === true).pipe(
          Effect.map((additions) => ({ removals: [], additions }))
        )
      ),
    unregister: (ids) => write(Effect.succeed({ removals: typeof ids === "string" ? [ids] : [...ids], additions: [] })),
    replaceSource: (source, tools) => {
      const batch = [...tools].map((t) => t.source === source ? t : { ...t, source })
      return write(
        Effect.suspend(() => {
          const current = [...byId.values()].filter((e) => e.source === source).map((e) => e.id)
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
    eager: Effect.sync(() => [...eagerIds].flatMap((id) => byId.get(id) ?? [])),
    deferred: entries((e) => e.loading === "deferred"),
    all: entries(() => true),
    get: (id) => Effect.sync(() => Option.fromUndefinedOr(byId.get(id))),
    findByName: (name) => Effect.sync(() => Option.fromUndefinedOr(findByNameUnsafe(name))),
    unsafe: { get: (id) => byId.get(id), findByName: findByNameUnsafe, version: () => version },
    search,
    version: Effect.sync(() => version),
    changes: Stream.fromPubSub(pubsub),
    strategy: strategy.name,
    name: options.name
  })
})

const isTool = (u: CatalogTool.CatalogTool | Iterable<CatalogTool.CatalogTool>): u is CatalogTool.CatalogTool =>
  typeof (u as CatalogTool.CatalogTool).name === "string" && typeof (u as CatalogTool.CatalogTool).id === "string"

/** `name_<hash of the id>`, valid for providers. */
const suffixed = (name: string, id: string): string =>
  CatalogTool.sanitizeName(`${name.slice(0, 56)}_${CatalogTool.hash(id).slice(0, 6)}`)

/** `source__name`, valid for providers; tools without a source are qualified by their id. */
const qualifiedName = (tool: CatalogTool.CatalogTool): string =>
  CatalogTool.sanitizeName(tool.source === undefined ? tool.id : `${tool.source}__${tool.name}`)
