/**
 * What one gateway session sees, built in its scope: its execution unit — the core's one unit
 * layer (`Unit.session`), with the session's loaded-set capacity, the `call_tool` dispatcher, the
 * resource level tools when the gateway offers them, the upstream servers as the sources a search
 * answer may name (only those the visibility policy exposes), and an observer that records each
 * search in the audit trail, and in code mode `execute_code` (instead of `call_tool`) — and its
 * resource and prompt methods when the gateway serves a resource catalog.
 *
 * @internal
 */
import { Permission, ResourceCatalog, ResourceDisclosure, type ToolCatalog, Unit, Visibility } from "@tool-search/core"
import { Clock, Effect, Layer, Metric, Option, Scope } from "effect"
import type { Options } from "../Gateway.js"
import type { Recorder } from "../GatewayAudit.js"
import type * as McpSources from "../McpSources.js"
import * as Telemetry from "../Telemetry.js"
import { Sources } from "./GatewaySources.js"
import * as SessionResources from "./SessionResources.js"

/** What a session sees and serves. */
export interface SessionView {
  /** Runs an effect in the session's unit. */
  readonly inUnit: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, Exclude<R, Unit.Unit>>
  /** Whether the unit offers the resource level tools (their list can change with the resources). */
  readonly resourceTools: boolean
  /** The resource and prompt methods, with a resource catalog. */
  readonly resources: SessionResources.SessionResources | undefined
  readonly sources: McpSources.Service | undefined
}

/** The servers as a search answer may name them: those that cannot answer now, and why. */
const sourcesOf = (sources: McpSources.Service): Unit.Sources => ({
  // a server whose filter denies every name has nothing to search: never named
  names: sources.servers.filter((s) => !(s.deniesAll ?? false)).map((s) => s.name),
  unavailable: Effect.map(sources.status, (all) =>
    all.filter((s) => s.state !== "ready").map((s) => ({
      name: s.name,
      reason: s.state === "starting" ? "still starting" : `unavailable (${s.error?.message ?? s.state})`
    })))
})

/** The session's unit (in code mode with `code`) and its resource methods, if any. */
export const make = (
  settings: Options,
  resourceCatalog: ResourceCatalog.Service | undefined,
  audit: Recorder | undefined,
  session: () => string,
  code?: Unit.Code
): Effect.Effect<SessionView, never, ToolCatalog.ToolCatalog | Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Scope.Scope
    const sources = Option.getOrUndefined(yield* Sources)
    const resourceTools = resourceCatalog !== undefined && settings.resourceTools
    const observer: Unit.Observer = {
      onSearch: (search) =>
        Effect.gen(function*() {
          if (search.tool === "ToolSearch") {
            yield* Metric.update(Telemetry.searches, 1)
            if (search.found.length === 0) yield* Metric.update(Telemetry.misses, 1)
            yield* Metric.update(Telemetry.activations, search.activated.length)
          }
          if (audit === undefined) return
          yield* audit.reveal({
            at: yield* Clock.currentTimeMillis,
            sessionId: session(),
            requestId: search.toolCallId,
            tool: search.tool,
            query: search.query,
            found: search.found,
            activated: search.activated
          })
        })
    }
    const unit = Unit.session({
      capacity: settings.maxLoadedTools,
      resources: resourceTools,
      // in code mode programs call what searches load: no dispatcher
      dispatcher: settings.callTool && code === undefined,
      ...(sources === undefined ? {} : { sources: sourcesOf(sources) }),
      observer,
      code
    })
    const context = yield* Layer.buildWithScope(
      resourceCatalog === undefined
        ? unit
        : unit.pipe(Layer.provide(Layer.succeed(ResourceCatalog.ResourceCatalog, resourceCatalog))),
      scope
    ).pipe(Effect.orDie) // the session's unit has no seed: making it cannot fail
    const inUnit = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.provide(effect, context) as Effect.Effect<A, E, Exclude<R, Unit.Unit>>
    const resources = resourceCatalog === undefined ? undefined : yield* SessionResources.make({
      catalog: resourceCatalog,
      upstream: sources?.resources,
      servers: sources?.servers.map((s) => s.name) ?? [],
      visibility: yield* Visibility.Visibility,
      permission: yield* Permission.Permission,
      settings: {
        maxResourceBytes: settings.limits.maxResourceBytes,
        maxSubscriptions: settings.maxSubscriptions,
        maxArgumentBytes: settings.limits.maxArgumentBytes,
        maxArgumentDepth: settings.limits.maxArgumentDepth,
        listChangedDelay: settings.listChangedDelay,
        readTimeout: (yield* ResourceDisclosure.ResourceDisclosure).readTimeout
      }
    })
    return { inUnit, resourceTools, resources, sources } satisfies SessionView
  })
