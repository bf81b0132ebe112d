/**
 * The resource side of a unit: resources, collections, policies and prompts disclosed in levels,
 * through the same visibility and permission policies as tools, and the unit's revealed set (one
 * `Disclosed` per kind).
 *
 * | level | operation | tool | reveals |
 * |---|---|---|---|
 * | L1 | the table of contents (`TableOfContents`) | — (system prompt) | nothing |
 * | L2 | `sample` | `sample_resources {query \| uri, max}` | the resources shown |
 * | L3 | `search` | `search_resources {query, uri?, max}` | the resources of the passages shown |
 * | L4 | `read`, `getPrompt` | `read_resource {uri, offset?, length?}`, `get_prompt {name, arguments}` | — (needs a reveal) |
 *
 * A resource outside the visibility policy does not exist at any level (strict mode and source
 * filters included); revealing is exposure, for this unit only; permission decides whether its
 * content — snippets, passages, slices, rendered prompts — may be shown, at every read.
 *
 * @internal
 */
import { Effect } from "effect"
import * as Disclosure from "../../Disclosure.js"
import type * as Resource from "../../Resource.js"
import type { Entry, Passage, Service as ResourceCatalogService } from "../../ResourceCatalog.js"
import * as Tracing from "../../Tracing.js"
import * as Excerpt from "../excerpt.js"
import { messageOf } from "../messages.js"
import * as Answers from "../resourceAnswers.js"
import { suggest } from "../suggest.js"
import type { Disclosed } from "./disclosed.js"

import type * as Unit from "./model.js"
import * as ResourceTools from "./resourceMessages.js"
import * as ResourceToolkit from "./resourceTools.js"
import type { Policies } from "./service.js"

import { Refused, ResourceReadError } from "../../Errors.js"
import * as Deferral from "../deferral.js"

/** The resource side of one unit. */
export interface ResourceSide {
  /** Resources that exist for this agent, in registration order. */
  readonly available: Effect.Effect<ReadonlyArray<Entry>>
  /** L2: resources for a query, or the resource of a URI; reveals them. */
  readonly sample: (input: {
    readonly query?: string
    readonly uri?: string
    readonly max?: number
  }) => Effect.Effect<ResourceTools.SampleAnswer, Unit.ResourceError>
  /** L3: ranked passages, in every resource or in one; reveals their resources. */
  readonly search: (input: {
    readonly query: string
    readonly uri?: string
    readonly max?: number
  }) => Effect.Effect<ResourceTools.SearchAnswer, Unit.ResourceError>
  /** L4: a slice of a revealed resource's body. */
  readonly read: (input: {
    readonly uri: string
    readonly offset?: number
    readonly length?: number
  }) => Effect.Effect<ResourceTools.ReadAnswer, Unit.ResourceError>
  /** A revealed prompt, rendered. */
  readonly getPrompt: (input: {
    readonly name: string
    readonly arguments?: Readonly<Record<string, string>>
  }) => Effect.Effect<ResourceTools.PromptAnswer, Unit.ResourceError>
  /** Revealed resources that still exist, in reveal order. */
  readonly revealed: Effect.Effect<ReadonlyArray<Entry>>
  /** The resource tools for the next request: none without resources, `get_prompt` only with prompts. */
  readonly tools: Effect.Effect<ReadonlyArray<Unit.ModelTool>>
}

/** What the resource side is built from. */
export interface Inputs {
  readonly catalog: ResourceCatalogService
  readonly revealed: Disclosed
  readonly policies: Policies
}

/** A refusal of a request about a resource or prompt. */
const refused = (kind: Refused["kind"], name: string, reason: Refused["reason"], hint: string) =>
  new Refused({ kind, name, reason, hint })

/** A malformed request: which tool, and what was wrong with it. */
const invalid = (input: { readonly tool: string; readonly reason: string }) =>
  refused(
    input.tool === Disclosure.toolNames.getPrompt ? "prompt" : "resource",
    input.tool,
    "invalid-request",
    input.reason
  )

const notPermitted = (uri: string) => `Resource '${uri}' is not permitted for this agent.`

/** The resource side of a unit. */
export const make = (inputs: Inputs): Effect.Effect<ResourceSide> =>
  Effect.gen(function*() {
    const { catalog, revealed } = inputs
    const { permission, visibility } = inputs.policies
    const options = inputs.policies.resources

    const exists = (e: Entry) => visibility.includes(e)
    const permitted = (e: Entry) => permission.allows({ id: e.uri, name: e.name, source: e.source })

    // Computed once per policy and catalog version, shared by every unit: the tool list reads it often.
    const available = catalog.visibleTo(visibility)

    /** The resource of a URI the model gave, if it exists for this agent. */
    const find = (uri: string): Effect.Effect<Entry, Refused> => {
      const entry = catalog.resolveUnsafe(uri)
      return entry !== undefined && exists(entry) ? Effect.succeed(entry) : Effect.flatMap(available, unknown(uri))
    }

    const unknown = (uri: string) => (entries: ReadonlyArray<Entry>) => {
      const suggestions = suggest(uri, entries.flatMap((e) => [e.uri, e.name]))
      return Effect.fail(refused("resource", uri, "unknown", ResourceTools.unknownHint(uri, suggestions)))
    }

    const requirePermission = (entry: Entry, uri: string) =>
      permitted(entry)
        ? Effect.void
        : Effect.fail(
          refused(entry.prompt === undefined ? "resource" : "prompt", uri, "not-permitted", notPermitted(uri))
        )

    const requireRevealed = (entry: Entry, uri: string, tool: string) =>
      Effect.flatMap(revealed.has(entry.uri), (yes) =>
        yes
          ? Effect.void
          : Effect.fail(refused(
            entry.prompt === undefined ? "resource" : "prompt",
            uri,
            "not-active",
            ResourceTools.notRevealedHint(uri, tool)
          )))

    const withTimeout = <A>(uri: string, effect: Effect.Effect<A, ResourceReadError>) =>
      Effect.suspend(() => effect).pipe(
        Effect.timeout(options.readTimeout),
        Effect.catchTag(
          "TimeoutError",
          () => Effect.fail(new ResourceReadError({ uri, reason: "it took too long; try again or read less" }))
        ),
        Effect.catchDefect((defect) => Effect.fail(new ResourceReadError({ uri, reason: messageOf(defect, 300) })))
      )

    // -------------------------------------------------------------------------
    // L2: sample
    // -------------------------------------------------------------------------

    const snippetOf = (entry: Entry, passage: Passage | undefined, query: string | undefined): string => {
      if (!permitted(entry)) return "(content not permitted for this agent)"
      const source = passage ?? catalog.passagesUnsafe(entry.uri)[0]
      return source === undefined ? "" : Excerpt.excerpt(source.text, query, options.snippetLength)
    }

    const sample = Effect.fnUntraced(
      function*(input: { readonly query?: string; readonly uri?: string; readonly max?: number }) {
        const query = input.query?.trim() === "" ? undefined : input.query
        if (input.uri !== undefined) {
          const entry = yield* find(input.uri)
          const passage = query === undefined || !permitted(entry)
            ? undefined
            : (yield* catalog.searchPassages(query, { limit: 1, accept: (e) => e.uri === entry.uri }))[0]?.passage
          yield* revealed.add([entry.uri])
          return { resources: [Answers.summaryOf(entry, snippetOf(entry, passage, query))] }
        }
        if (query === undefined) {
          return yield* invalid({
            tool: Disclosure.toolNames.sampleResources,
            reason: ResourceTools.usage[Disclosure.toolNames.sampleResources] as string
          })
        }
        const limit = Deferral.clampMaxResults(input.max, options)
        // a resource this agent may not read is found by its metadata only, never by its content
        const matches = yield* catalog.sample(query, { limit, accept: exists, acceptBody: permitted })
        yield* revealed.add(matches.map((m) => m.resource.uri))
        const resources = matches.map((m) => Answers.summaryOf(m.resource, snippetOf(m.resource, m.passage, query)))
        return resources.length > 0 ? { resources } : { resources, note: `No resource matched '${query}'.` }
      },
      Tracing.span("tool-search.resources.sample")
    )

    // -------------------------------------------------------------------------
    // L3: search
    // -------------------------------------------------------------------------

    const search = Effect.fnUntraced(
      function*(input: { readonly query: string; readonly uri?: string; readonly max?: number }) {
        const only = input.uri === undefined ? undefined : yield* find(input.uri)
        if (only !== undefined) {
          yield* requirePermission(only, input.uri as string)
          if (only.unsearchable !== undefined) {
            return { passages: [], note: ResourceTools.notSearchableNote(only.uri, only.unsearchable) }
          }
        }
        const limit = Deferral.clampMaxResults(input.max, options)
        const matches = yield* catalog.searchPassages(input.query, {
          limit,
          accept: (e) => exists(e) && permitted(e) && (only === undefined || e.uri === only.uri)
        })
        yield* revealed.add([...new Set(matches.map((m) => m.resource.uri))])
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
      },
      Tracing.span("tool-search.resources.search")
    )

    // -------------------------------------------------------------------------
    // L4: read, get_prompt
    // -------------------------------------------------------------------------

    const read = Effect.fnUntraced(
      function*(input: { readonly uri: string; readonly offset?: number; readonly length?: number }) {
        const entry = yield* find(input.uri)
        const tool = Disclosure.toolNames.readResource
        if (entry.prompt !== undefined) {
          return yield* invalid({ tool, reason: ResourceTools.isPromptHint(entry.name) })
        }
        if (entry.template && input.uri === entry.uri) {
          return yield* invalid({
            tool,
            reason: `'${entry.uri}' is a URI template: read a concrete uri matching it.`
          })
        }
        // permission first: revealing a resource this agent may not read would be a wasted call
        yield* requirePermission(entry, input.uri)
        yield* requireRevealed(entry, input.uri, tool)
        const reader = entry.read
        if (reader === undefined) return yield* invalid({ tool, reason: "it has no body" })
        const offset = Math.max(0, Math.floor(input.offset ?? 0))
        const length = Math.min(
          options.maxReadLength,
          Math.max(1, Math.floor(input.length ?? options.defaultReadLength))
        )
        const slice = yield* withTimeout(input.uri, reader({ uri: input.uri, offset, length }))
        const answer = Answers.readAnswer(input.uri, entry, slice, offset, length)
        return typeof answer === "string" ? yield* invalid({ tool, reason: answer }) : answer
      },
      Tracing.span("tool-search.resources.read")
    )

    const getPrompt = Effect.fnUntraced(
      function*(input: { readonly name: string; readonly arguments?: Readonly<Record<string, string>> }) {
        const tool = Disclosure.toolNames.getPrompt
        const all = yield* available
        const named = all.filter((e) => e.uri === input.name || e.name === input.name)
        const prompts = named.filter((e) => e.prompt !== undefined)
        if (prompts.length === 0) {
          const other = named[0]
          if (other !== undefined) {
            return yield* invalid({ tool, reason: ResourceTools.notAPromptHint(other.uri) })
          }
          return yield* unknown(input.name)(all.filter((e) => e.prompt !== undefined))
        }
        if (prompts.length > 1) {
          return yield* invalid({ tool, reason: Answers.ambiguousPrompt(input.name, prompts) })
        }
        const entry = prompts[0] as Entry // prompts.length === 1
        const prompt = entry.prompt as Resource.Prompt
        yield* requirePermission(entry, input.name)
        yield* requireRevealed(entry, input.name, tool)
        const args = input.arguments ?? {}
        const problem = Answers.argumentProblem(entry, prompt, input.name, args)
        if (problem !== undefined) return yield* invalid({ tool, reason: problem })
        const rendered = yield* withTimeout(entry.uri, prompt.render(args))
        return Answers.promptAnswer(entry, rendered, options.maxReadLength)
      },
      Tracing.span("tool-search.resources.get-prompt")
    )

    // -------------------------------------------------------------------------
    // Tools
    // -------------------------------------------------------------------------

    const bound = ResourceToolkit.make(options)

    const tools = Effect.map(available, (entries): ReadonlyArray<Unit.ModelTool> => {
      if (entries.length === 0) return []
      const offered = [bound.sample]
      if (entries.some((e) => e.passages > 0)) offered.push(bound.search)
      if (entries.some((e) => e.prompt === undefined)) offered.push(bound.read)
      if (entries.some((e) => e.prompt !== undefined)) offered.push(bound.getPrompt)
      return offered
    })

    return {
      available,
      sample,
      search,
      read,
      getPrompt,
      revealed: Effect.map(
        revealed.values,
        (uris) => uris.flatMap((uri) => catalog.getUnsafe(uri) ?? []).filter(exists)
      ),
      tools
    } satisfies ResourceSide
  })
