/**
 * What the model can read in one execution unit (a turn or a fork): the resource catalog seen
 * through this unit's `RevealedResources`, the agent's `Visibility`, `Permission` and
 * `ResourceDisclosure` settings — the resource counterpart of `ToolView`.
 *
 * Resources are disclosed in levels, and the view is the only place where one is revealed:
 *
 * | level | operation | tool | reveals |
 * |---|---|---|---|
 * | L1 | the table of contents (`TableOfContents.resourcesOf`) | — (system prompt) | nothing |
 * | L2 | `sample` | `sample_resources {query \| uri, max}` | the resources shown |
 * | L3 | `search` | `search_resources {query, uri?, max}` | the resources of the passages shown |
 * | L4 | `read`, `getPrompt` | `read_resource {uri, offset?, length?}`, `get_prompt {name, arguments}` | — (needs a reveal) |
 *
 * The three decisions of tools apply unchanged: a resource outside the visibility policy does not
 * exist at any level (strict mode included); revealing is exposure, for this unit only; and
 * permission decides whether its content — snippets, passages, slices, rendered prompts — may be
 * shown, at every read. A fork builds its own view and inherits no reveal.
 *
 * `withResources` composes a unit's `ToolView` with its `ResourceView`: the resource tools join the
 * tool list after the meta tools (before activated tools, so the request prefix stays stable) and
 * are resolved before catalog tools.
 *
 * @since 0.2.0
 */
import { Context, Effect, Layer, Option } from "effect"
import { stripFunctionsPrefix } from "./CatalogTool.js"
import * as Disclosure from "./Disclosure.js"
import * as Excerpt from "./internal/excerpt.js"
import { messageOf } from "./internal/messages.js"
import * as Answers from "./internal/resourceAnswers.js"
import { bindTools } from "./internal/resourceToolkit.js"
import { suggest } from "./internal/suggest.js"
import { cachedByVersion } from "./internal/versioned.js"
import * as Permission from "./Permission.js"
import * as Resource from "./Resource.js"
import { type Entry, type Passage, ResourceCatalog } from "./ResourceCatalog.js"
import * as ResourceDisclosure from "./ResourceDisclosure.js"
import {
  InvalidResourceRequest,
  type ResourceError,
  ResourceNotPermitted,
  ResourceNotRevealed,
  UnknownResource
} from "./ResourceError.js"
import * as ResourceTools from "./ResourceTools.js"
import { RevealedResources } from "./RevealedResources.js"
import type * as ToolView from "./ToolView.js"
import * as Visibility from "./Visibility.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * The operations of one unit's resource view. It has no way to register or remove a resource.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** Resources that exist for this agent, in registration order. */
  readonly available: Effect.Effect<ReadonlyArray<Entry>>
  /** L2: resources for a query, or the resource of a URI; reveals them. */
  readonly sample: (input: {
    readonly query?: string
    readonly uri?: string
    readonly max?: number
  }) => Effect.Effect<ResourceTools.SampleAnswer, ResourceError>
  /** L3: ranked passages, in every resource or in one; reveals their resources. */
  readonly search: (input: {
    readonly query: string
    readonly uri?: string
    readonly max?: number
  }) => Effect.Effect<ResourceTools.SearchAnswer, ResourceError>
  /** L4: a slice of a revealed resource's body. */
  readonly read: (input: {
    readonly uri: string
    readonly offset?: number
    readonly length?: number
  }) => Effect.Effect<ResourceTools.ReadAnswer, ResourceError>
  /** A revealed prompt, rendered. */
  readonly getPrompt: (input: {
    readonly name: string
    readonly arguments?: Readonly<Record<string, string>>
  }) => Effect.Effect<ResourceTools.PromptAnswer, ResourceError>
  /** Revealed resources that still exist, in reveal order. */
  readonly revealed: Effect.Effect<ReadonlyArray<Entry>>
  /** The resource tools for the next request: none without resources, `get_prompt` only with prompts. */
  readonly tools: Effect.Effect<ReadonlyArray<ToolView.ModelTool>>
  /** A resource tool offered now, by name, if this agent may call it. */
  readonly resolveTool: (name: string) => Effect.Effect<Option.Option<ToolView.ModelTool>, Permission.ToolNotPermitted>
  /** The settings this view applies. */
  readonly options: ResourceDisclosure.Options
  /** The visibility policy this view applies (tables of contents read it). */
  readonly visibility: Visibility.Visibility
}

/**
 * A tool view that also offers the unit's resource tools: they are listed after the meta tools and
 * before activated tools, and resolved before catalog tools. Everything else is the tool view's.
 *
 * @since 0.2.0
 * @category combinators
 */
export const withResources = (tools: ToolView.Service, resources: Service): ToolView.Service => ({
  ...tools,
  visible: Effect.zipWith(tools.visible, resources.tools, (visible, extra) => {
    const at = visible.findIndex((t) => t.kind === "activated")
    const split = at < 0 ? visible.length : at
    return [...visible.slice(0, split), ...extra, ...visible.slice(split)]
  }),
  resolve: (raw) =>
    Effect.flatMap(
      resources.resolveTool(stripFunctionsPrefix(raw)),
      Option.match({ onNone: () => tools.resolve(raw), onSome: Effect.succeed })
    )
})

// -----------------------------------------------------------------------------
// Implementation
// -----------------------------------------------------------------------------

/**
 * Builds a view from the catalog, revealed set and policies in context.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make: Effect.Effect<Service, never, ResourceCatalog | RevealedResources> = Effect.gen(
  function*() {
    const catalog = yield* ResourceCatalog
    const revealed = yield* RevealedResources
    const visibility = yield* Visibility.Visibility
    const permission = yield* Permission.Permission
    const options = yield* ResourceDisclosure.ResourceDisclosure

    const exists = (e: Entry) => visibility.includes(e)
    const permitted = (e: Entry) => permission.allows({ id: e.uri, name: e.name, source: e.source })

    // Recomputed only when the catalog changes: the tool list and tables of contents read it often.
    const available = cachedByVersion(catalog.versionUnsafe, Effect.map(catalog.all, (all) => all.filter(exists)))

    /** The resource of a URI the model gave, if it exists for this agent. */
    const find = (uri: string): Effect.Effect<Entry, UnknownResource> => {
      const entry = catalog.resolveUnsafe(uri)
      return entry !== undefined && exists(entry) ? Effect.succeed(entry) : Effect.flatMap(available, unknown(uri))
    }

    const unknown = (uri: string) => (entries: ReadonlyArray<Entry>) => {
      const suggestions = suggest(uri, entries.flatMap((e) => [e.uri, e.name]))
      return Effect.fail(new UnknownResource({ uri, suggestions, hint: ResourceTools.unknownHint(uri, suggestions) }))
    }

    const requirePermission = (entry: Entry, uri: string) =>
      permitted(entry) ? Effect.void : Effect.fail(new ResourceNotPermitted({ uri }))

    const requireRevealed = (entry: Entry, uri: string, tool: string) =>
      Effect.flatMap(revealed.has(entry.uri), (yes) =>
        yes
          ? Effect.void
          : Effect.fail(new ResourceNotRevealed({ uri, hint: ResourceTools.notRevealedHint(uri, tool) })))

    const withTimeout = <A>(uri: string, effect: Effect.Effect<A, Resource.ResourceReadError>) =>
      Effect.suspend(() => effect).pipe(
        Effect.timeout(options.readTimeout),
        Effect.catchTag(
          "TimeoutError",
          () => Effect.fail(new Resource.ResourceReadError({ uri, reason: "it took too long; try again or read less" }))
        ),
        Effect.catchDefect((defect) =>
          Effect.fail(new Resource.ResourceReadError({ uri, reason: messageOf(defect, 300) }))
        )
      )

    // -------------------------------------------------------------------------
    // L2: sample
    // -------------------------------------------------------------------------

    const snippetOf = (entry: Entry, passage: Passage | undefined, query: string | undefined): string => {
      if (!permitted(entry)) return "(content not permitted for this agent)"
      const source = passage ?? catalog.passagesUnsafe(entry.uri)[0]
      return source === undefined ? "" : Excerpt.excerpt(source.text, query, options.snippetLength)
    }

    const sample = (input: { readonly query?: string; readonly uri?: string; readonly max?: number }) =>
      Effect.gen(function*() {
        const query = input.query?.trim() === "" ? undefined : input.query
        if (input.uri !== undefined) {
          const entry = yield* find(input.uri)
          const passage = query === undefined || !permitted(entry)
            ? undefined
            : (yield* catalog.searchPassages(query, { limit: 1, accept: (e) => e.uri === entry.uri }))[0]?.passage
          yield* revealed.reveal([entry.uri])
          return { resources: [Answers.summaryOf(entry, snippetOf(entry, passage, query))] }
        }
        if (query === undefined) {
          return yield* new InvalidResourceRequest({
            tool: Disclosure.SAMPLE_RESOURCES,
            reason: ResourceTools.usage[Disclosure.SAMPLE_RESOURCES] as string
          })
        }
        const limit = ResourceDisclosure.clampMax(input.max, options)
        // a resource this agent may not read is found by its metadata only, never by its content
        const matches = yield* catalog.sample(query, { limit, accept: exists, acceptBody: permitted })
        yield* revealed.reveal(matches.map((m) => m.resource.uri))
        const resources = matches.map((m) => Answers.summaryOf(m.resource, snippetOf(m.resource, m.passage, query)))
        return resources.length > 0 ? { resources } : { resources, note: `No resource matched '${query}'.` }
      }).pipe(Effect.withSpan("tool-search.resources.sample", undefined, { captureStackTrace: false }))

    // -------------------------------------------------------------------------
    // L3: search
    // -------------------------------------------------------------------------

    const search = (input: { readonly query: string; readonly uri?: string; readonly max?: number }) =>
      Effect.gen(function*() {
        const only = input.uri === undefined ? undefined : yield* find(input.uri)
        if (only !== undefined) {
          yield* requirePermission(only, input.uri as string)
          if (only.unsearchable !== undefined) {
            return { passages: [], note: ResourceTools.notSearchableNote(only.uri, only.unsearchable) }
          }
        }
        const limit = ResourceDisclosure.clampMax(input.max, options)
        const matches = yield* catalog.searchPassages(input.query, {
          limit,
          accept: (e) => exists(e) && permitted(e) && (only === undefined || e.uri === only.uri)
        })
        yield* revealed.reveal([...new Set(matches.map((m) => m.resource.uri))])
        const passages = matches.map(({ passage, resource }): ResourceTools.PassageHit => ({
          uri: resource.uri,
          name: resource.name,
          heading: passage.heading,
          offset: passage.offset,
          length: passage.length,
          excerpt: Excerpt.excerpt(passage.text, input.query, options.excerptLength)
        }))
        if (passages.length > 0) return { passages }
        const where = only === undefined ? "" : ` in '${only.uri}'`
        return { passages, note: `No passage matched '${input.query.trim()}'${where}.` }
      }).pipe(Effect.withSpan("tool-search.resources.search", undefined, { captureStackTrace: false }))

    // -------------------------------------------------------------------------
    // L4: read, get_prompt
    // -------------------------------------------------------------------------

    const read = (input: { readonly uri: string; readonly offset?: number; readonly length?: number }) =>
      Effect.gen(function*() {
        const entry = yield* find(input.uri)
        const tool = Disclosure.READ_RESOURCE
        if (entry.prompt !== undefined) {
          return yield* new InvalidResourceRequest({ tool, reason: ResourceTools.isPromptHint(entry.name) })
        }
        if (entry.template && input.uri === entry.uri) {
          return yield* new InvalidResourceRequest({
            tool,
            reason: `'${entry.uri}' is a URI template: read a concrete uri matching it.`
          })
        }
        // permission first: revealing a resource this agent may not read would be a wasted call
        yield* requirePermission(entry, input.uri)
        yield* requireRevealed(entry, input.uri, tool)
        const reader = entry.read
        if (reader === undefined) return yield* new InvalidResourceRequest({ tool, reason: "it has no body" })
        const offset = Math.max(0, Math.floor(input.offset ?? 0))
        const length = Math.min(
          options.maxReadLength,
          Math.max(1, Math.floor(input.length ?? options.defaultReadLength))
        )
        const slice = yield* withTimeout(input.uri, reader({ uri: input.uri, offset, length }))
        const answer = Answers.readAnswer(input.uri, entry, slice, offset, length)
        return typeof answer === "string" ? yield* new InvalidResourceRequest({ tool, reason: answer }) : answer
      }).pipe(Effect.withSpan("tool-search.resources.read", undefined, { captureStackTrace: false }))

    const getPrompt = (input: { readonly name: string; readonly arguments?: Readonly<Record<string, string>> }) =>
      Effect.gen(function*() {
        const tool = Disclosure.GET_PROMPT
        const all = yield* available
        const named = all.filter((e) => e.uri === input.name || e.name === input.name)
        const prompts = named.filter((e) => e.prompt !== undefined)
        if (prompts.length === 0) {
          const other = named[0]
          if (other !== undefined) {
            return yield* new InvalidResourceRequest({ tool, reason: ResourceTools.notAPromptHint(other.uri) })
          }
          return yield* unknown(input.name)(all.filter((e) => e.prompt !== undefined))
        }
        if (prompts.length > 1) {
          return yield* new InvalidResourceRequest({ tool, reason: Answers.ambiguousPrompt(input.name, prompts) })
        }
        const entry = prompts[0] as Entry // prompts.length === 1
        const prompt = entry.prompt as Resource.Prompt
        yield* requirePermission(entry, input.name)
        yield* requireRevealed(entry, input.name, tool)
        const args = input.arguments ?? {}
        const problem = Answers.argumentProblem(entry, prompt, input.name, args)
        if (problem !== undefined) return yield* new InvalidResourceRequest({ tool, reason: problem })
        const rendered = yield* withTimeout(entry.uri, prompt.render(args))
        return Answers.promptAnswer(entry, rendered, options.maxReadLength)
      }).pipe(Effect.withSpan("tool-search.resources.get-prompt", undefined, { captureStackTrace: false }))

    // -------------------------------------------------------------------------
    // Tools
    // -------------------------------------------------------------------------

    const bound = bindTools({ sample, search, read, getPrompt }, options)

    const tools = Effect.map(available, (entries): ReadonlyArray<ToolView.ModelTool> => {
      if (entries.length === 0) return []
      const offered = [bound.sample]
      if (entries.some((e) => e.passages > 0)) offered.push(bound.search)
      if (entries.some((e) => e.prompt === undefined)) offered.push(bound.read)
      if (entries.some((e) => e.prompt !== undefined)) offered.push(bound.getPrompt)
      return offered
    })

    const resolveTool = (name: string) =>
      Effect.flatMap(tools, (offered) => {
        const tool = offered.find((t) => t.name === name)
        if (tool === undefined) return Effect.succeed(Option.none<ToolView.ModelTool>())
        return permission.allows({ id: tool.name, name: tool.name, source: "meta" })
          ? Effect.succeed(Option.some(tool))
          : Effect.fail(new Permission.ToolNotPermitted({ name: tool.name }))
      })

    return {
      available,
      sample,
      search,
      read,
      getPrompt,
      revealed: Effect.map(
        revealed.uris,
        (uris) => uris.flatMap((uri) => catalog.getUnsafe(uri) ?? []).filter(exists)
      ),
      tools,
      resolveTool,
      options,
      visibility
    }
  }
)

// -----------------------------------------------------------------------------
// Service
// -----------------------------------------------------------------------------

/**
 * The resource view of one execution unit.
 *
 * @since 0.2.0
 * @category services
 */
export class ResourceView extends Context.Service<ResourceView, Service>()("@tool-search/core/ResourceView") {
  /** A view over the catalog and the unit's revealed set in context. */
  static readonly layer: Layer.Layer<ResourceView, never, ResourceCatalog | RevealedResources> = Layer.effect(
    ResourceView,
    make
  )
  /** A view with its own fresh revealed set: provide it to one turn or fork. */
  static readonly unit: Layer.Layer<ResourceView, never, ResourceCatalog> = ResourceView.layer.pipe(
    Layer.provide(RevealedResources.layer),
    Layer.fresh
  )
}

/**
 * Runs `effect` as one execution unit for resources: a fresh revealed set, gone when `effect` ends.
 *
 * @since 0.2.0
 * @category constructors
 */
export const withUnit = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, Exclude<R, ResourceView> | ResourceCatalog> => Effect.provide(effect, ResourceView.unit)
