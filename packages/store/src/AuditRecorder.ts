/**
 * Records the audit trail from the executor's `TurnEvent` stream, so wiring the audit into anything
 * that runs turns is one line:
 *
 * ```ts
 * executor.stream(input).pipe(AuditRecorder.tap)
 * ```
 *
 * A search (`Search`, then `Activation` when it activated tools, then its `ToolResult`) becomes
 * one reveal; every `ToolCall` with its `ToolResult` becomes one call, with the catalog id and
 * source of the tool the name resolved to and the time between the two events as its duration.
 * Each turn gets an id; a fork's entries carry its turn's id and session, and their own unit path.
 *
 * @since 0.2.0
 */
import type { TurnEvent } from "@tool-search/agent"
import { CatalogTool, ToolCatalog } from "@tool-search/core"
import { Clock, Effect, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { Audit } from "./Audit.js"

/**
 * Something that takes the events of one stream of turns, in order.
 *
 * @since 0.2.0
 * @category models
 */
export type Recorder = (event: TurnEvent.TurnEvent) => Effect.Effect<void>

interface Search {
  readonly tool: string
  readonly query: string
  readonly found: ReadonlyArray<string>
  readonly at: number
  activated: ReadonlyArray<string>
}

interface Started {
  readonly at: number
  readonly params: unknown
}

/**
 * A recorder for one stream of turns (one per `executor.stream`, or one for a sequence of turns
 * consumed in order).
 *
 * @since 0.2.0
 * @category constructors
 */
export const make: Effect.Effect<Recorder, never, Audit | ToolCatalog.ToolCatalog> = Effect.gen(function*() {
  const audit = yield* Audit
  const catalog = yield* ToolCatalog.ToolCatalog
  let turnId = ""
  let sessionId: string | null = null
  const searches = new Map<string, Search>()
  const calls = new Map<string, Started>()

  const origin = (path: ReadonlyArray<string>, at: number) => ({ at, turnId, sessionId, path })

  return (event) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const unit = event.path.join("/")
      switch (event._tag) {
        case "TurnStarted":
          if (event.path.length === 0) {
            turnId = randomUUID()
            sessionId = event.sessionId
            searches.clear()
            calls.clear()
          }
          return
        case "Search":
          searches.set(unit, { tool: event.tool, query: event.query, found: event.found, at: now, activated: [] })
          return
        case "Activation": {
          const search = searches.get(unit)
          if (search !== undefined) search.activated = [...search.activated, ...event.tools]
          return
        }
        case "ToolCall":
          calls.set(`${unit}\n${event.id}`, { at: now, params: event.params })
          return
        case "ToolResult": {
          const search = searches.get(unit)
          if (search !== undefined) {
            searches.delete(unit)
            yield* audit.record({
              _tag: "Reveal",
              ...origin(event.path, search.at),
              tool: search.tool,
              query: search.query,
              found: search.found,
              activated: search.activated
            })
          }
          const key = `${unit}\n${event.id}`
          const started = calls.get(key)
          calls.delete(key)
          const tool = catalog.findByNameUnsafe(CatalogTool.stripFunctionsPrefix(event.name))
          yield* audit.record({
            _tag: "Call",
            ...origin(event.path, started?.at ?? now),
            callId: event.id,
            toolName: event.name,
            toolId: tool?.id ?? null,
            source: tool?.source ?? null,
            ...(event.via === undefined ? {} : { via: event.via }),
            outcome: event.failure ?? (event.isFailure ? "failed" : "ok"),
            durationMs: started === undefined ? 0 : now - started.at,
            ...(audit.payloads ? { arguments: started?.params, result: event.result } : {})
          })
          return
        }
        case "IterationStarted":
        case "ModelRequest":
        case "ModelResponse":
        case "TurnFinished":
          return
      }
    })
})

/**
 * Records the events of `stream` as they pass.
 *
 * @since 0.2.0
 * @category combinators
 */
export const tap = <E, R>(
  stream: Stream.Stream<TurnEvent.TurnEvent, E, R>
): Stream.Stream<TurnEvent.TurnEvent, E, R | Audit | ToolCatalog.ToolCatalog> =>
  Stream.unwrap(Effect.map(make, (record) => Stream.tap(stream, record)))
