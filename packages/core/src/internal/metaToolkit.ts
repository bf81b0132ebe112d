/**
 * The search tools as `ModelTool`s bound to one unit's operations — `ToolSearch`, `search_tools`
 * and `discover_tools`, with the text and schemas of `MetaTools`: each decodes its input, runs the
 * view's operation and answers with JSON, or with a failure message the model can act on. Nothing
 * here fails: every error becomes a tool result. Which of them a request carries depends on the
 * disclosure mode.
 *
 * @internal
 */
import { Effect, Option, Schema } from "effect"
import * as Disclosure from "../Disclosure.js"
import * as MetaTools from "../MetaTools.js"
import type { Entry, Match } from "../ToolCatalog.js"
import type { MetaOutput, ModelTool, SearchResult } from "../ToolView.js"

/** The view's operations the tools run. */
export interface Operations {
  readonly searchAndActivate: (query: string, maxResults: number) => Effect.Effect<SearchResult, Failure>
  readonly browse: (
    query: string,
    options: { readonly maxResults: number; readonly category?: string }
  ) => Effect.Effect<ReadonlyArray<Match>, Failure>
  readonly discover: (names: ReadonlyArray<string>) => Effect.Effect<MetaTools.DiscoveryAnswer, Failure>
  /** The deferred tools this agent may find (what `discover_tools` lists). */
  readonly searchable: Effect.Effect<ReadonlyArray<Entry>>
  /** The unit's activated ids. */
  readonly activated: Effect.Effect<ReadonlyArray<string>>
  /** The model name of a catalog id, if the tool still exists. */
  readonly modelNameOf: (id: string) => string | undefined
}

/** What an operation fails with: its message is the answer. */
export interface Failure {
  readonly message: string
}

/** The meta tools of one view. */
export interface MetaToolkit {
  /** The names of the meta tools of the mode, sent or not (they exist for "did you mean"). */
  readonly names: ReadonlyArray<string>
  /** The meta tools for the next request, given the searchable tools and the active ids. */
  readonly visible: (searchable: ReadonlyArray<Entry>, active: ReadonlySet<string>) => ReadonlyArray<ModelTool>
  /** The meta tool of a name the model called, if the mode has one. */
  readonly resolve: (name: string) => Effect.Effect<Option.Option<ModelTool>>
}

/** A category as compared with what a model typed: case and spacing do not count. */
export const normalizeCategory = (category: string): string => category.trim().replace(/\s+/g, " ").toLowerCase()

const failure = (message: string): MetaOutput => ({ isFailure: true, result: message })

const EMPTY_QUERY = "Query cannot be empty"

/** The meta tools of a view with `disclosure`, over a catalog ranked by `strategy`. */
export const make = (disclosure: Disclosure.Options, strategy: string, ops: Operations): MetaToolkit => {
  const limit = disclosure.maxResultsLimit
  const defaultMax = disclosure.defaultMaxResults

  const toolSearch: ModelTool = {
    name: Disclosure.TOOL_SEARCH,
    description: MetaTools.toolSearchDescription(limit, defaultMax, strategy === "regex" ? "regex" : "keywords"),
    parameters: MetaTools.toolSearchParameters(limit, defaultMax),
    kind: "meta",
    run: (params) => {
      const input = Option.getOrUndefined(Schema.decodeUnknownOption(MetaTools.ToolSearchInput)(params))
      const query = input?.query
      if (typeof query !== "string" || query.trim() === "") return Effect.succeed(failure(EMPTY_QUERY))
      return ops.searchAndActivate(query, Disclosure.clampMaxResults(input?.max_results, disclosure)).pipe(
        Effect.map((r): MetaOutput => {
          const tools = r.matches.map((m) => m.tool)
          const added = new Set(r.newlyActivated)
          const note = r.notLoaded.length > 0
            ? MetaTools.notLoadedNote(r.notLoaded, limit)
            : r.weak.length > 0
            ? MetaTools.weakMatchesNote(tools.length, r.weak.map((m) => m.tool.modelName))
            : undefined
          return {
            isFailure: false,
            result: MetaTools.renderFunctions(tools, note),
            found: tools.map((t) => t.modelName),
            activated: tools.filter((t) => added.has(t.id)).map((t) => t.modelName)
          }
        }),
        Effect.catch((e) => Effect.succeed(failure(e.message)))
      )
    }
  }

  const searchTools: ModelTool = {
    name: Disclosure.SEARCH_TOOLS,
    description: MetaTools.searchToolsDescription(limit, defaultMax),
    parameters: MetaTools.searchToolsParameters(limit, defaultMax),
    kind: "meta",
    run: (params) => {
      const input = Option.getOrUndefined(Schema.decodeUnknownOption(MetaTools.SearchToolsInput)(params))
      const query = input?.query
      if (typeof query !== "string" || query.trim() === "") return Effect.succeed(failure(EMPTY_QUERY))
      const category = typeof input?.category === "string" && input.category.trim() !== "" ? input.category : undefined
      return ops.browse(query, {
        maxResults: Disclosure.clampMaxResults(input?.max_results, disclosure),
        ...(category === undefined ? {} : { category })
      }).pipe(
        Effect.map((matches): MetaOutput => {
          const tools = matches.map((m) => m.tool)
          // the filter matched nothing and the search fell back to every category: say so
          const wanted = category === undefined ? undefined : normalizeCategory(category)
          const fellBack = category !== undefined && tools.length > 0 &&
            !tools.some((t) => t.category !== undefined && normalizeCategory(t.category) === wanted)
          return {
            isFailure: false,
            result: MetaTools.renderCandidates(tools, fellBack ? MetaTools.categoryFallbackNote(category) : undefined),
            found: tools.map((t) => t.modelName),
            activated: []
          }
        }),
        Effect.catch((e) => Effect.succeed(failure(e.message)))
      )
    }
  }

  const discoverTools = (deferred: ReadonlyArray<Entry>): ModelTool => ({
    name: Disclosure.DISCOVER_TOOLS,
    description: MetaTools.discoveryDescription(deferred, disclosure.descriptionDetail),
    parameters: MetaTools.discoveryParameters,
    kind: "meta",
    run: (params) => {
      const input = Schema.decodeUnknownOption(MetaTools.DiscoveryInput)(params)
      if (Option.isNone(input)) {
        return Effect.succeed(failure(`${Disclosure.DISCOVER_TOOLS} needs {"toolNames": ["name", ...]}`))
      }
      return Effect.zip(ops.activated, ops.discover(input.value.toolNames)).pipe(
        Effect.flatMap(([before, answer]) =>
          Effect.map(ops.activated, (after): MetaOutput => {
            const was = new Set(before)
            return {
              isFailure: false,
              result: answer,
              found: answer.tools.map((t) => t.name),
              activated: after.filter((id) => !was.has(id)).flatMap((id) => ops.modelNameOf(id) ?? [])
            }
          })
        ),
        Effect.catch((e) => Effect.succeed(failure(e.message)))
      )
    }
  })

  const names: ReadonlyArray<string> = disclosure.mode === "catalog"
    ? [Disclosure.DISCOVER_TOOLS]
    : disclosure.mode === "staged" && disclosure.searchTools !== false
    ? [Disclosure.SEARCH_TOOLS, Disclosure.TOOL_SEARCH]
    : [Disclosure.TOOL_SEARCH]

  const visible = (searchable: ReadonlyArray<Entry>, active: ReadonlySet<string>): ReadonlyArray<ModelTool> => {
    switch (disclosure.mode) {
      case "search":
        return [toolSearch]
      case "staged":
        return Disclosure.offersSearchTools(disclosure, searchable.length) ? [searchTools, toolSearch] : [toolSearch]
      case "catalog":
        // absent when nothing is deferred; leaves the list once everything was discovered
        return searchable.some((t) => !active.has(t.id)) ? [discoverTools(searchable)] : []
    }
  }

  const resolve = (name: string): Effect.Effect<Option.Option<ModelTool>> => {
    if (!names.includes(name)) return Effect.succeed(Option.none())
    switch (name) {
      case Disclosure.TOOL_SEARCH:
        return Effect.succeed(Option.some(toolSearch))
      case Disclosure.SEARCH_TOOLS:
        return Effect.succeed(Option.some(searchTools))
      default:
        return Effect.map(ops.searchable, (deferred) => Option.some(discoverTools(deferred)))
    }
  }

  return { names, visible, resolve }
}
