/**
 * The gateway's `ToolSearch`: the view ranks without loading; the hits `Disclosure.weakHits` calls
 * weak under the view's own settings (`minScore`, `minScoreRatio`: the rule of the agent's
 * `ToolSearch`) are not loaded; what was loaded, left out as weak, unloaded (the session's cap)
 * and not searched (a server still starting or failed) is said in the answer. A query that names
 * only servers that cannot answer loads nothing, rather than unrelated tools.
 *
 * @internal
 */
import { Disclosure, MetaTools, Query, type ToolCatalog, type ToolView } from "@tool-search/core"
import { Clock, Effect, Metric, Option, Schema } from "effect"
import type { Options } from "../Gateway.js"
import type { Recorder } from "../GatewayAudit.js"
import type { ServerStatus, Service as McpSourcesService } from "../McpSources.js"
import { CALL_TOOL } from "../McpTool.js"
import * as Telemetry from "../Telemetry.js"
import type { BoundedActivation } from "./BoundedActivation.js"
import { type Answer, result, text, textResult } from "./Calls.js"

/** What a session's search works with. */
export interface Dependencies {
  readonly view: ToolView.Service
  readonly catalog: ToolCatalog.Service
  readonly sources: McpSourcesService | undefined
  readonly bounded: BoundedActivation
  readonly settings: Pick<Options, "maxLoadedTools" | "callTool">
  /** A log line and a span around the search, with its outcome. */
  readonly observed: <A>(
    what: "search",
    fields: Record<string, unknown>,
    effect: Effect.Effect<A>,
    outcome: (a: A) => Record<string, unknown>
  ) => Effect.Effect<A>
  /** The audit trail each search is recorded in, if any. */
  readonly audit: Recorder | undefined
  /** The session's id. */
  readonly session: () => string
}

/** How an unavailable server is described in a search answer. */
const availability = (status: ServerStatus): string =>
  status.state === "starting"
    ? "still starting"
    : `unavailable (${status.error?.message ?? status.state})`

/** Whether `query` names `server` as a word. */
const mentions = (query: string, server: string): boolean =>
  new RegExp(`(^|[^a-z0-9])${server.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}($|[^a-z0-9])`).test(
    query.toLowerCase()
  )

/**
 * The session's `ToolSearch`: rank, leave out the weak hits, load the others, and say which
 * servers could not be searched.
 */
export const make =
  (deps: Dependencies) => (params: Record<string, unknown>, requestId: string): Effect.Effect<Answer> => {
    const { bounded, catalog, observed, settings, sources, view } = deps
    const input = Option.getOrUndefined(Schema.decodeUnknownOption(MetaTools.ToolSearchInput)(params))
    const query = input?.query
    if (typeof query !== "string" || query.trim() === "") {
      return Effect.succeed(result(textResult("Query cannot be empty", true)))
    }
    const max = Disclosure.clampMaxResults(input?.max_results, view.disclosure)
    const work = Effect.gen(function*() {
      const at = yield* Clock.currentTimeMillis
      const ranked = yield* Effect.result(view.browse(query, { maxResults: max }))
      if (ranked._tag === "Failure") return { answer: result(textResult(ranked.failure.message, true)), loaded: 0 }
      const weakHits = Disclosure.weakHits(ranked.success, view.disclosure)
      const down = sources === undefined ? [] : (yield* sources.status).filter((s) => s.state !== "ready")
      const named = down.filter((s) => mentions(query, s.name))
      // The query is about servers that cannot answer: say so rather than load unrelated tools.
      const namesAvailable = sources?.servers.some((s) =>
        !named.some((d) => d.name === s.name) && mentions(query, s.name)
      )
      const onlyDown = named.length > 0 && namesAvailable !== true
      const weak = onlyDown ? [] : weakHits
      const kept = onlyDown ? [] : ranked.success.filter((m) => !weakHits.includes(m))
      const before = new Set(yield* bounded.activation.ids)
      const found = kept.length === 0
        ? []
        : (yield* view.searchAndActivate(Query.select(kept.map((m) => m.tool.modelName)), kept.length).pipe(
          Effect.orElseSucceed(() => ({ matches: [] }))
        )).matches.map((m) => m.tool)
      const after = yield* bounded.activation.ids
      const loaded = found.filter((t) => !before.has(t.id)).map((t) => t.modelName)
      const unloaded = [...before].filter((id) => !after.includes(id)).flatMap((id) =>
        catalog.getUnsafe(id)?.modelName ?? []
      )
      const unsearched = found.length === 0 ? down : named
      const notes = [
        ...(weak.length > 0 ? [MetaTools.weakMatchesNote(found.length, weak.map((m) => m.tool.modelName))] : []),
        ...(loaded.length > 0 && settings.callTool
          ? [
            `Loaded for this session: ${loaded.join(", ")}. Call them directly, or with ${CALL_TOOL} ` +
            `({"name": "${loaded[0]}", "arguments": {...}}) if they are not in your tool list yet.`
          ]
          : []),
        ...(unloaded.length > 0
          ? [`Unloaded to keep at most ${settings.maxLoadedTools} tools loaded: ${unloaded.join(", ")}.`]
          : []),
        ...(unsearched.length > 0
          ? [`Not searched: ${unsearched.map((s) => `${s.name}: ${availability(s)}`).join("; ")}.`]
          : [])
      ]
      yield* Metric.update(Telemetry.searches, 1)
      if (found.length === 0) yield* Metric.update(Telemetry.misses, 1)
      yield* Metric.update(Telemetry.activations, loaded.length)
      if (deps.audit !== undefined) {
        yield* deps.audit.reveal({
          at,
          sessionId: deps.session(),
          requestId,
          tool: Disclosure.TOOL_SEARCH,
          query,
          found: found.map((t) => t.modelName),
          activated: loaded
        })
      }
      const content = [text(JSON.stringify(MetaTools.renderFunctions(found))), ...notes.map(text)]
      return { answer: result({ content }), loaded: loaded.length, found: found.length }
    })
    return observed(
      "search",
      { query },
      work,
      (r) => ({ results: "found" in r ? r.found : 0, loaded: r.loaded })
    ).pipe(Effect.map((r) => r.answer))
  }
