/**
 * MCP servers as catalog sources. For each configured server, a supervisor fiber — owned by the
 * layer's scope — connects, lists every tool (all pages), registers them as one catalog source
 * named after the server, re-lists on `notifications/tools/list_changed` (an atomic
 * `replaceSource`), and runs calls through the server.
 *
 * Servers fail independently. A server that fails to start, dies, hangs or answers nonsense is
 * reported with a typed error naming it (in `status` and in the log), its tools' calls fail with
 * that error, and its supervisor reconnects on the configured `Schedule` while the others keep
 * working. Tools of a server that is reconnecting stay in the catalog — a model that found one
 * gets "not available, reconnecting" rather than "unknown tool" — and a re-listing after the
 * reconnection picks up whatever changed meanwhile. A server whose reconnection schedule ends is
 * `stopped` and its tools leave the catalog.
 *
 * Only a transport failure (the process died, the socket closed) restarts a server. A failure
 * that another attempt will not fix — a process that exits at start, an answer that is not MCP or
 * is over the size bound — is retried on the same backoff, but after `attempts` of them in a row
 * the server is `failed`, with the reason, and no longer retried: a broken server never
 * restart-loops.
 *
 * With `layerWithResources`, each server's resources, resource templates and prompts join the
 * `ResourceCatalog` too (one source per server, re-listed on `resources/list_changed` and
 * `prompts/list_changed`), named so that no two servers' URIs collide (`QualifiedUri`), and
 * `resources` forwards reads, prompt renderings and subscriptions to the server each came from.
 *
 * @since 0.1.0
 */
import type { CatalogTool } from "@tool-search/core"
import { ResourceCatalog, ToolCatalog, ToolExecutionError, type Visibility } from "@tool-search/core"
import { Context, Deferred, Effect, Layer, Option, type Scope, Semaphore, Stream, SubscriptionRef } from "effect"
import * as ClientRelay from "./internal/ClientRelay.js"
import { supervise } from "./internal/Supervisor.js"
import * as UpstreamResources from "./internal/UpstreamResources.js"
import type * as McpConnection from "./McpConnection.js"
import { type CallError, type InvalidServerTool, type McpError, ServerUnavailable, UnknownServer } from "./McpError.js"
import type { InvalidServerResource } from "./McpResource.js"
import type * as McpTool from "./McpTool.js"
import * as Upstream from "./Upstream.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * Where a server's supervisor is: starting, serving, waiting to reconnect, given up because its
 * schedule ended (`stopped`) or because it failed the same way too often (`failed`).
 *
 * @since 0.1.0
 * @category models
 */
export type State = "starting" | "ready" | "reconnecting" | "stopped" | "failed"

/**
 * What is known about one server right now.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServerStatus {
  readonly name: string
  readonly kind: Upstream.Kind
  readonly state: State
  /** Tools of this server in the catalog. */
  readonly tools: number
  /** Tools the server declares that could not join the catalog, each with its reason. */
  readonly invalidTools: ReadonlyArray<InvalidServerTool>
  /** Resources, templates and prompts of this server in the resource catalog (`layerWithResources`). */
  readonly resources: number
  /** Resources and prompts the server lists that could not join the resource catalog. */
  readonly invalidResources: ReadonlyArray<InvalidServerResource>
  /** The last failure (cleared by nothing: compare `connections` to see a recovery). */
  readonly error?: McpError
  /** Connections opened successfully so far; more than one means the server was restarted. */
  readonly connections: number
  readonly serverInfo?: { readonly name: string; readonly version: string }
}

/**
 * A configured server's name and kind: the data a visibility policy needs.
 *
 * @since 0.1.0
 * @category models
 */
export interface Source {
  readonly name: string
  readonly kind: Upstream.Kind
  /** Whether its filter denies every name (`deny: ["*"]`): none of its tools, resources or prompts exist. */
  readonly deniesAll?: boolean
}

/**
 * The visibility settings the servers' kinds imply: `connected` servers are the agent's connected
 * sources (listed by name, never hidden by the platform allow-list), `platform` servers stay behind
 * the allow-list. Merge the result into the agent's `Visibility` options.
 *
 * @since 0.1.0
 * @category settings
 */
export const visibilityOf = (servers: ReadonlyArray<Source>): Pick<Visibility.Options, "connected"> => ({
  connected: servers.filter((s) => s.kind === "connected").map((s) => s.name)
})

// -----------------------------------------------------------------------------
// Service
// -----------------------------------------------------------------------------

/**
 * What `McpSources` provides.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The configured servers, in order. */
  readonly servers: ReadonlyArray<Source>
  /** The current status of every server, in configuration order. */
  readonly status: Effect.Effect<ReadonlyArray<ServerStatus>>
  /** Every status change (starting with the current status). */
  readonly changes: Stream.Stream<ReadonlyArray<ServerStatus>>
  /** Calls a tool by server and MCP name; the result exactly as the server sent it. */
  readonly call: (
    server: string,
    tool: string,
    args: Readonly<Record<string, unknown>>,
    options?: McpConnection.CallOptions
  ) => Effect.Effect<McpTool.CallToolResult, CallError>
  /**
   * Asks every server that logs to send log lines from `level` up: the most verbose level any
   * client asked for so far (each client's own level filters what reaches it).
   */
  readonly setLogLevel: (level: ClientRelay.Level) => Effect.Effect<void>
  /** `completion/complete` on a server, its `ref` in the server's own names: the result raw. */
  readonly complete: (server: string, params: Readonly<Record<string, unknown>>) => Effect.Effect<unknown, CallError>
  /** The calls in flight per server, through which servers reach the client sessions that called them. */
  readonly relay: ClientRelay.ClientRelay
  /** The server and MCP name behind a catalog tool id, if the tool came from one of these servers. */
  readonly origin: (id: string) => McpTool.Origin | undefined
  /** The servers' resources and prompts: present when the layer imports them (`layerWithResources`). */
  readonly resources: Resources | undefined
}

/**
 * The upstream MCP servers of this process.
 *
 * @since 0.1.0
 * @category services
 */
export class McpSources extends Context.Service<McpSources, Service>()("@tool-search/mcp/McpSources") {}

/**
 * Starts a supervisor per server and, by default, waits for each one's first connection
 * attempt, so the tools of every reachable server are in the catalog when the layer is ready.
 * With `start: "background"` the layer is ready at once and each server's tools join the
 * catalog when it is up (a gateway answers its clients meanwhile, and announces the tools with
 * `list_changed`). Fails only on a bad configuration (an invalid or duplicate server name),
 * never because a server is down.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  servers: ReadonlyArray<Upstream.Input>,
  options: Options = {}
): Layer.Layer<McpSources, Upstream.InvalidUpstream, ToolCatalog.ToolCatalog> =>
  Layer.effect(McpSources, Effect.suspend(() => make(servers, options, Option.none())))

/**
 * `layer`, and each server's resources, resource templates and prompts join the
 * `ResourceCatalog` in context as well (one source per server, kept live), and `resources`
 * forwards reads, prompt renderings and subscriptions to their servers.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerWithResources = (
  servers: ReadonlyArray<Upstream.Input>,
  options: Options = {}
): Layer.Layer<
  McpSources,
  Upstream.InvalidUpstream,
  ToolCatalog.ToolCatalog | ResourceCatalog.ResourceCatalog
> =>
  Layer.effect(
    McpSources,
    Effect.flatMap(
      Effect.service(ResourceCatalog.ResourceCatalog),
      (resources) => make(servers, options, Option.some(resources))
    )
  )

/**
 * Where a catalog resource or prompt came from: a server's resource or template (by the server's
 * URI), or its prompt (by the server's name).
 *
 * @since 0.2.0
 * @category models
 */
export type Origin = UpstreamResources.Origin

/**
 * A `notifications/resources/updated` of a server, by the server's URI.
 *
 * @since 0.2.0
 * @category models
 */
export type Update = UpstreamResources.Update

/**
 * What the gateway forwards to the servers about resources and prompts.
 *
 * @since 0.2.0
 * @category models
 */
export interface Resources {
  /** Where a catalog resource or prompt (by its catalog URI) came from; undefined for other sources'. */
  readonly origin: (catalogUri: string) => Origin | undefined
  /**
   * The URI a client sees for a server's URI (in a tool result's `resource_link`, in a read's
   * contents): the URI itself while no other source claims it, else its qualified form.
   */
  readonly clientUri: (server: string, uri: string) => string
  /** `resources/read` on a server, by the server's URI: the result raw, for the caller to decode. */
  readonly read: (server: string, uri: string) => Effect.Effect<unknown, CallError>
  /** `prompts/get` on a server, by the server's name: the result raw. */
  readonly getPrompt: (
    server: string,
    name: string,
    args: Readonly<Record<string, string>>
  ) => Effect.Effect<unknown, CallError>
  /**
   * Subscribes to a server's resource for as long as the scope is open: the first subscriber
   * subscribes upstream, the last one to leave unsubscribes, a reconnection subscribes again.
   */
  readonly subscribe: (server: string, uri: string) => Effect.Effect<void, CallError, Scope.Scope>
  /** Whether the server accepts subscriptions (its `resources.subscribe` capability). */
  readonly canSubscribe: (server: string) => boolean
  /** Every `notifications/resources/updated` of every server. */
  readonly updates: Stream.Stream<Update>
}

/**
 * How the servers start.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** `wait` (default) for each server's first attempt before the layer is ready, or start in the `background`. */
  readonly start?: "wait" | "background"
}

/**
 * Whether another attempt, after a backoff, may fix this failure without anything changing.
 *
 * @since 0.2.0
 * @category failures
 */
export const isTransient = (error: McpError, transport: Upstream.Transport): boolean => {
  switch (error._tag) {
    case "ConnectionLost":
    case "ServerTimeout":
    case "ServerUnavailable":
      return true
    case "ServerStartFailed":
      // an HTTP server that refuses may come back; a process that exits at start will again
      return transport._tag === "Http"
    default:
      return false
  }
}

/**
 * Waits until `predicate` holds for the status of `server`, and returns that status.
 *
 * @since 0.1.0
 * @category status
 */
export const awaitStatus = (
  server: string,
  predicate: (status: ServerStatus) => boolean
): Effect.Effect<ServerStatus, never, McpSources> =>
  Effect.flatMap(McpSources, (sources) =>
    sources.changes.pipe(
      Stream.map((all) => all.find((s) => s.name === server)),
      Stream.filter((s): s is ServerStatus => s !== undefined && predicate(s)),
      Stream.runHead,
      Effect.flatMap(Option.match({
        onNone: () => Effect.die(new Error(`McpSources.awaitStatus: status stream of '${server}' ended`)),
        onSome: Effect.succeed
      }))
    ))

// -----------------------------------------------------------------------------
// Implementation
// -----------------------------------------------------------------------------

/**
 * Builds the service in the current scope: the supervisors end with it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  inputs: ReadonlyArray<Upstream.Input>,
  options: Options,
  resourceCatalog: Option.Option<ResourceCatalog.Service>
): Effect.Effect<Service, Upstream.InvalidUpstream, ToolCatalog.ToolCatalog | Scope.Scope> =>
  Effect.gen(function*() {
    const catalog = yield* ToolCatalog.ToolCatalog
    const configs: Array<Upstream.Config> = []
    for (const input of inputs) {
      const config = yield* Upstream.make(input)
      if (configs.some((c) => c.name === config.name)) {
        return yield* new Upstream.InvalidUpstream({ spec: config.name, reason: "two servers have this name" })
      }
      configs.push(config)
    }

    const statusRef = yield* SubscriptionRef.make<ReadonlyArray<ServerStatus>>(
      configs.map((c): ServerStatus => ({
        name: c.name,
        kind: c.kind,
        state: "starting",
        tools: 0,
        invalidTools: [],
        resources: 0,
        invalidResources: [],
        connections: 0
      }))
    )
    const updateStatus = (server: string, f: (s: ServerStatus) => ServerStatus) =>
      SubscriptionRef.update(statusRef, (all) => all.map((s) => s.name === server ? f(s) : s))
    const statusOf = (server: string) =>
      Effect.map(SubscriptionRef.get(statusRef), (all) => all.find((s) => s.name === server))

    const connections = new Map<string, McpConnection.McpConnection>()
    const origins = new Map<string, McpTool.Origin>()

    /** The open connection of a server, or why there is none (`target`: the tool or resource asked for). */
    const connectionOf = (server: string, target: string) =>
      Effect.suspend((): Effect.Effect<McpConnection.McpConnection, CallError> => {
        if (!configs.some((c) => c.name === server)) return Effect.fail(new UnknownServer({ server }))
        const connection = connections.get(server)
        if (connection !== undefined) return Effect.succeed(connection)
        return Effect.flatMap(SubscriptionRef.get(statusRef), (all) => {
          const status = all.find((s) => s.name === server)
          const reason = status?.state === "stopped"
            ? `it was stopped after repeated failures (${status.error?.message ?? "no error recorded"})`
            : status?.state === "failed"
            ? `it failed (${status.error?.message ?? "no error recorded"})`
            : status?.error === undefined
            ? "it is starting"
            : `it is reconnecting after: ${status.error.message}`
          return Effect.fail(new ServerUnavailable({ server, tool: target, reason }))
        })
      })

    // each server's places: requests beyond `maxCalls` wait, so no caller can flood a server
    const places = new Map(configs.map((c) => [c.name, Semaphore.makeUnsafe(c.maxCalls)]))
    const limited = <A, E>(server: string, effect: Effect.Effect<A, E>): Effect.Effect<A, E> => {
      const gate = places.get(server)
      return gate === undefined ? effect : gate.withPermits(1)(effect)
    }

    const call = (
      server: string,
      tool: string,
      args: Readonly<Record<string, unknown>>,
      callOptions?: McpConnection.CallOptions
    ) =>
      limited(
        server,
        Effect.flatMap(connectionOf(server, tool), (connection) => connection.callTool(tool, args, callOptions))
      )

    const relay = ClientRelay.make()
    const logging = ClientRelay.logLevels(() => connections.values())
    const complete = (server: string, params: Readonly<Record<string, unknown>>) =>
      limited(
        server,
        Effect.flatMap(
          connectionOf(server, "completion/complete"),
          (connection) => connection.request("completion/complete", params, "completion/complete")
        )
      )

    /** The catalog handler of one imported tool: arguments must be an object; the result is the MCP result. */
    const handler = (origin: McpTool.Origin): CatalogTool.Handler => (params) =>
      Effect.gen(function*() {
        const args = params === undefined || params === null ? {} : params
        if (typeof args !== "object" || Array.isArray(args)) {
          return yield* Effect.fail(
            `arguments must be a JSON object, not ${Array.isArray(args) ? "an array" : typeof args}`
          )
        }
        const result = yield* call(origin.server, origin.tool, args as Record<string, unknown>).pipe(
          Effect.mapError((e) => e.message)
        )
        return { isFailure: result.isError === true, result } satisfies CatalogTool.Output
      }).pipe(Effect.mapError((reason) => new ToolExecutionError({ tool: origin.tool, reason })))

    const upstream = yield* Option.match(resourceCatalog, {
      onNone: () => Effect.succeed(undefined),
      onSome: (resources) => UpstreamResources.make(resources, configs.map((c) => c.name), connectionOf)
    })
    const shared = {
      catalog,
      resources: upstream,
      connections,
      origins,
      updateStatus,
      statusOf,
      handler,
      isTransient,
      relay,
      logLevel: logging.current
    }

    const firstAttempts: Array<Deferred.Deferred<void>> = []
    for (const config of configs) {
      const first = yield* Deferred.make<void>()
      firstAttempts.push(first)
      yield* Effect.forkScoped(supervise(shared, config, first))
    }
    if (options.start !== "background") yield* Effect.forEach(firstAttempts, Deferred.await, { discard: true })

    return McpSources.of({
      servers: configs.map((c) => ({
        name: c.name,
        kind: c.kind,
        ...(c.filter?.deny?.includes("*") === true ? { deniesAll: true } : {})
      })),
      status: SubscriptionRef.get(statusRef),
      changes: SubscriptionRef.changes(statusRef),
      call,
      setLogLevel: logging.set,
      complete,
      relay,
      origin: (id) => origins.get(id),
      resources: upstream === undefined ? undefined : (() => {
        const forwarded = UpstreamResources.forwarding(upstream, connectionOf, connections)
        return {
          ...forwarded,
          read: (server, uri) => limited(server, forwarded.read(server, uri)),
          getPrompt: (server, name, args) => limited(server, forwarded.getPrompt(server, name, args))
        } satisfies Resources
      })()
    })
  })
