/**
 * What one gateway session sees, built in its scope: its `ToolView` over its bounded activation,
 * with the resource level tools when the gateway offers them, and its resource and prompt
 * methods when the gateway serves a resource catalog.
 *
 * @internal
 */
import {
  Activation,
  Permission,
  type ResourceCatalog,
  ResourceDisclosure,
  ResourceView,
  RevealedResources,
  type ToolCatalog,
  ToolView,
  Visibility
} from "@tool-search/core"
import { ResourceCatalog as Resources } from "@tool-search/core"
import { Context, Effect, Layer, Option, Scope } from "effect"
import type { Options } from "../Gateway.js"
import type * as McpSources from "../McpSources.js"
import type { BoundedActivation } from "./BoundedActivation.js"
import { Sources } from "./GatewaySources.js"
import * as SessionResources from "./SessionResources.js"

/** What a session sees and serves. */
export interface SessionView {
  /** The session's tools. */
  readonly tools: ToolView.Service
  /** The tools, with the resource level tools when they are offered. */
  readonly view: ToolView.Service
  /** The resource and prompt methods, with a resource catalog. */
  readonly resources: SessionResources.SessionResources | undefined
  readonly sources: McpSources.Service | undefined
}

/** The session's view (tools, and the level tools when offered) and its resource methods, if any. */
export const make = (
  settings: Options,
  bounded: BoundedActivation,
  resourceCatalog: ResourceCatalog.Service | undefined
): Effect.Effect<SessionView, never, ToolCatalog.ToolCatalog | Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Scope.Scope
    const tools = Context.get(
      yield* Layer.buildWithScope(
        ToolView.ToolView.layer.pipe(Layer.provide(Layer.succeed(Activation.Activation, bounded.activation))),
        scope
      ),
      ToolView.ToolView
    )
    const sources = Option.getOrUndefined(yield* Sources)
    const view = resourceCatalog === undefined || !settings.resourceTools
      ? tools
      : ResourceView.withResources(
        tools,
        yield* ResourceView.make.pipe(
          Effect.provideService(Resources.ResourceCatalog, resourceCatalog),
          Effect.provideService(RevealedResources.RevealedResources, yield* RevealedResources.make([]))
        )
      )
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
    return { tools, view, resources, sources } satisfies SessionView
  })
