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
 * @since 0.1.0
 */
import { CatalogTool, ToolCatalog, type Visibility } from "@tool-search/core"
import { Context, Deferred, Effect, Exit, Layer, Metric, Option, Scope, Stream, SubscriptionRef } from "effect"
import * as McpConnection from "./McpConnection.js"
import {
  type CallError,
  type ConnectError,
  InvalidServerTool,
  type McpError,
  ServerUnavailable,
  UnknownServer
} from "./McpError.js"
import * as McpTool from "./McpTool.js"
import * as Telemetry from "./Telemetry.js"
import * as Upstream from "./Upstream.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * Where a server's supervisor is: starting, serving, waiting to reconnect, given up because its
 * schedule ended (`stopped`) or because it failed the same way too often (`failed`).
 */
export type State = "starting" | "ready" | "reconnecting" | "stopped" | "failed"

/** What is known about one server right now. */
export interface ServerStatus {
  readonly name: string
  readonly kind: Upstream.Kind
  readonly state: State
  /** Tools of this server in the catalog. */
  readonly tools: number
  /** Tools the server declares that could not join the catalog, each with its reason. */
  readonly invalidTools: ReadonlyArray<InvalidServerTool>
  /** The last failure (cleared by nothing: compare `connections` to see a recovery). */
  readonly error?: McpError
  /** Connections opened successfully so far; more than one means the server was restarted. */
  readonly connections: number
  readonly serverInfo?: { readonly name: string; readonly version: string }
}

/** A configured server's name and kind: the data a visibility policy needs. */
export interface Source {
  readonly name: string
  readonly kind: Upstream.Kind
}

/**
 * The visibility settings the servers' kinds imply: `connected` servers are the agent's connected
 * sources (listed by name, never hidden by the platform allow-list), `platform` servers stay behind
 * the allow-list. Merge the result into the agent's `Visibility` options.
 */
export const visibilityOf = (servers: ReadonlyArray<Source>): Pick<Visibility.Options, "connected"> => ({
  connected: servers.filter((s) => s.kind === "connected").map((s) => s.name)
})

// -----------------------------------------------------------------------------
// Service
// -----------------------------------------------------------------------------

/** The upstream MCP servers of this process. */
export class McpSources extends Context.Service<McpSources, {
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
    args: Readonly<Record<string, unknown>>
  ) => Effect.Effect<McpTool.CallToolResult, CallError>
  /** The server and MCP name behind a catalog tool id, if the tool came from one of these servers. */
  readonly origin: (id: string) => McpTool.Origin | undefined
}>()("@tool-search/mcp/McpSources") {
  /**
   * Starts a supervisor per server and, by default, waits for each one's first connection
   * attempt, so the tools of every reachable server are in the catalog when the layer is ready.
   * With `start: "background"` the layer is ready at once and each server's tools join the
   * catalog when it is up (a gateway answers its clients meanwhile, and announces the tools with
   * `list_changed`). Fails only on a bad configuration (an invalid or duplicate server name),
   * never because a server is down.
   */
  static readonly layer = (
    servers: ReadonlyArray<Upstream.Input>,
    options: Options = {}
  ): Layer.Layer<McpSources, Upstream.InvalidUpstream, ToolCatalog.ToolCatalog> =>
    Layer.effect(McpSources, Effect.suspend(() => make(servers, options)))
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

/** Waits until `predicate` holds for the status of `server`, and returns that status. */
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

/** Builds the service in the current scope: the supervisors end with it. */
export const make = Effect.fnUntraced(function*(inputs: ReadonlyArray<Upstream.Input>, options: Options = {}) {
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
    configs.map((c) => ({ name: c.name, kind: c.kind, state: "starting", tools: 0, invalidTools: [], connections: 0 }))
  )
  const updateStatus = (server: string, f: (s: ServerStatus) => ServerStatus) =>
    SubscriptionRef.update(statusRef, (all) => all.map((s) => s.name === server ? f(s) : s))
  const statusOf = (server: string) =>
    Effect.map(SubscriptionRef.get(statusRef), (all) => all.find((s) => s.name === server))

  const connections = new Map<string, McpConnection.McpConnection>()
  const origins = new Map<string, McpTool.Origin>()

  const call = (server: string, tool: string, args: Readonly<Record<string, unknown>>) =>
    Effect.suspend((): Effect.Effect<McpTool.CallToolResult, CallError> => {
      if (!configs.some((c) => c.name === server)) return Effect.fail(new UnknownServer({ server }))
      const connection = connections.get(server)
      if (connection !== undefined) return connection.callTool(tool, args)
      return Effect.flatMap(SubscriptionRef.get(statusRef), (all) => {
        const status = all.find((s) => s.name === server)
        const reason = status?.state === "stopped"
          ? `it was stopped after repeated failures (${status.error?.message ?? "no error recorded"})`
          : status?.state === "failed"
          ? `it failed (${status.error?.message ?? "no error recorded"})`
          : status?.error === undefined
          ? "it is starting"
          : `it is reconnecting after: ${status.error.message}`
        return Effect.fail(new ServerUnavailable({ server, tool, reason }))
      })
    })

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
    }).pipe(Effect.mapError((reason) => new CatalogTool.ToolExecutionError({ tool: origin.tool, reason })))

  const supervise = (config: Upstream.Config, firstAttempt: Deferred.Deferred<void>) => {
    const server = config.name
    const importOptions: McpTool.ImportOptions = {
      server,
      loading: config.loading,
      category: config.category,
      handler,
      alwaysLoad: config.alwaysLoad,
      ...(config.filter === undefined ? {} : { filter: config.filter }),
      ...(config.prefix === undefined ? {} : { prefix: config.prefix })
    }
    const annotate = Effect.annotateLogs({ server })

    // The last listing registered, to skip a re-listing that changed nothing.
    let lastListing: string | undefined

    /** Lists and registers the tools of an open connection: one atomic catalog step. */
    const sync = (connection: McpConnection.McpConnection) =>
      Effect.gen(function*() {
        const raws = yield* connection.listTools
        const listing = JSON.stringify(raws)
        if (listing === lastListing) return
        lastListing = listing
        const imported = yield* McpTool.importAll(raws, importOptions)
        const { invalid, tools } = yield* register(server, imported)
        for (const [id, origin] of origins) if (origin.server === server) origins.delete(id)
        for (const tool of tools) origins.set(tool.id, { server, tool: tool.aliases[0] ?? tool.name })
        // Warn once per unusable tool, not again at every re-listing.
        const before = new Set((yield* statusOf(server))?.invalidTools.map((e) => e.message))
        for (const e of invalid) if (!before.has(e.message)) yield* Effect.logWarning(e.message)
        yield* updateStatus(server, (s) => ({ ...s, tools: tools.length, invalidTools: invalid }))
      })

    /** Registers what can be registered; a tool the catalog refuses is reported, not fatal. */
    const register = (name: string, imported: McpTool.Imported) =>
      Effect.gen(function*() {
        let tools = imported.tools
        const invalid = [...imported.invalid]
        while (true) {
          const refused = yield* catalog.replaceSource(name, tools).pipe(
            Effect.as(undefined),
            Effect.catch((e) => Effect.succeed(e))
          )
          if (refused === undefined) return { tools, invalid }
          const culprit = tools.find((t) =>
            refused._tag === "DuplicateTool" ? t.id === refused.id : t.name === refused.tool
          )
          if (culprit === undefined) {
            // Not attributable to one tool: register nothing rather than a partial, wrong source.
            yield* catalog.replaceSource(name, []).pipe(Effect.ignore)
            invalid.push(new InvalidServerTool({ server: name, tool: "*", reason: refused.message }))
            return { tools: [], invalid }
          }
          tools = tools.filter((t) => t !== culprit)
          invalid.push(
            new InvalidServerTool({ server: name, tool: culprit.aliases[0] ?? culprit.name, reason: refused.message })
          )
        }
      })

    const recordFailure = (error: McpError) =>
      Effect.gen(function*() {
        yield* updateStatus(server, (s) => ({
          ...s,
          state: s.state === "stopped" || s.state === "failed" ? s.state : "reconnecting",
          error
        }))
        yield* Effect.logWarning(error.message)
        yield* Deferred.succeed(firstAttempt, undefined)
      })

    /** One connection attempt, in its own scope: closed at once if the attempt fails. */
    const open = Effect.gen(function*() {
      lastListing = undefined
      const scope = yield* Scope.make()
      const connection = yield* Effect.gen(function*() {
        const connection = yield* McpConnection.connect(config)
        yield* sync(connection)
        return connection
      }).pipe(
        Scope.provide(scope),
        Effect.onExit((exit) => Exit.isFailure(exit) ? Scope.close(scope, exit) : Effect.void)
      )
      return { connection, scope }
    }).pipe(Effect.tapError(recordFailure))

    /** Serves an open connection until it is lost or a re-listing fails. */
    const serve = ({ connection, scope }: { connection: McpConnection.McpConnection; scope: Scope.Closeable }) =>
      Effect.gen(function*() {
        connections.set(server, connection)
        yield* updateStatus(server, (s) => ({
          ...s,
          state: "ready",
          connections: s.connections + 1,
          ...(connection.serverInfo === undefined ? {} : { serverInfo: connection.serverInfo })
        }))
        const now = yield* statusOf(server)
        if ((now?.connections ?? 0) > 1) yield* Metric.update(Telemetry.upstreamRestarts, 1)
        const tools = now?.tools ?? 0
        yield* Effect.logInfo(
          `MCP server '${server}' is ready with ${tools} tools (${Upstream.describe(config.transport)})`
        )
        yield* Deferred.succeed(firstAttempt, undefined)
        yield* connection.warnings.pipe(Stream.runForEach(Effect.logWarning), Effect.forkIn(scope))
        // A re-listing that fails without losing the connection keeps the tools listed before:
        // the server goes on serving them, and its next list_changed tries again.
        const relist = sync(connection).pipe(
          Effect.catch((error) =>
            error._tag === "ConnectionLost"
              ? Effect.fail(error)
              : Effect.andThen(updateStatus(server, (s) => ({ ...s, error })), Effect.logWarning(error.message))
          )
        )
        // a burst of notifications waits in the queue during the delay: one re-listing per window
        const follow = connection.toolsChanged.pipe(
          Stream.runForEachArray(() => Effect.andThen(relist, Effect.sleep(config.listChangedDelay)))
        )
        return yield* Effect.raceFirst(connection.lost, Effect.andThen(follow, Effect.never))
      }).pipe(
        Effect.ensuring(Effect.andThen(Effect.sync(() => connections.delete(server)), Scope.close(scope, Exit.void))),
        Effect.catch((error: ConnectError) => recordFailure(error))
      )

    // Failures in a row that another attempt will not fix; a working connection resets the count.
    let deterministic = 0
    const retryable = (error: McpError) => isTransient(error, config.transport) || ++deterministic < config.attempts

    const loop = Effect.gen(function*() {
      while (true) {
        const opened = yield* open.pipe(Effect.retry({ schedule: config.reconnect, while: retryable }))
        deterministic = 0
        yield* serve(opened)
        yield* Effect.sleep(config.restartDelay)
      }
    })

    const giveUp = (state: "stopped" | "failed", error: McpError | undefined) =>
      Effect.gen(function*() {
        // the server can no longer run its tools: they leave the catalog
        yield* catalog.replaceSource(server, []).pipe(Effect.ignore)
        for (const [id, origin] of origins) if (origin.server === server) origins.delete(id)
        yield* updateStatus(server, (s) => ({ ...s, state, tools: 0 }))
        yield* Effect.logError(
          state === "failed"
            ? `MCP server '${server}' failed ${config.attempts} times in a row and is no longer retried: ${
              error?.message ?? "no error recorded"
            }`
            : `MCP server '${server}' was stopped: its reconnection schedule ended`
        )
        yield* Deferred.succeed(firstAttempt, undefined)
      })

    return loop.pipe(
      Effect.catch((error: McpError) => giveUp(deterministic >= config.attempts ? "failed" : "stopped", error)),
      annotate
    )
  }

  const firstAttempts: Array<Deferred.Deferred<void>> = []
  for (const config of configs) {
    const first = yield* Deferred.make<void>()
    firstAttempts.push(first)
    yield* Effect.forkScoped(supervise(config, first))
  }
  if (options.start !== "background") yield* Effect.forEach(firstAttempts, Deferred.await, { discard: true })

  return McpSources.of({
    servers: configs.map((c) => ({ name: c.name, kind: c.kind })),
    status: SubscriptionRef.get(statusRef),
    changes: SubscriptionRef.changes(statusRef),
    call,
    origin: (id) => origins.get(id)
  })
})
