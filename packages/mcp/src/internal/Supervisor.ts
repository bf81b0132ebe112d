/**
 * The supervisor of one upstream server, for `McpSources`: connect, list and register its tools
 * (and, with a resource catalog, its resources and prompts), follow its `list_changed`
 * notifications, reconnect on the configured `Schedule` when the connection is lost, and give up
 * — `stopped` when the schedule ends, `failed` after `attempts` deterministic failures in a row —
 * taking its tools and resources out of the catalogs.
 *
 * @internal
 */
import type { CatalogTool, ToolCatalog } from "@tool-search/core"
import { Deferred, Effect, Exit, Metric, Scope, Stream } from "effect"
import * as McpConnection from "../McpConnection.js"
import { type ConnectError, InvalidServerTool, type McpError } from "../McpError.js"
import type { ServerStatus } from "../McpSources.js"
import * as McpTool from "../McpTool.js"
import * as Telemetry from "../Telemetry.js"
import * as Upstream from "../Upstream.js"
import type { ClientRelay, Level } from "./ClientRelay.js"
import type { UpstreamResources } from "./UpstreamResources.js"

/** What every supervisor shares with `McpSources`. */
export interface Shared {
  readonly catalog: ToolCatalog.Service
  /** The upstreams' resources, when a resource catalog imports them. */
  readonly resources: UpstreamResources | undefined
  /** The open connection of each server. */
  readonly connections: Map<string, McpConnection.McpConnection>
  /** The server and MCP name behind each imported tool id. */
  readonly origins: Map<string, McpTool.Origin>
  readonly updateStatus: (server: string, f: (s: ServerStatus) => ServerStatus) => Effect.Effect<void>
  readonly statusOf: (server: string) => Effect.Effect<ServerStatus | undefined>
  /** The catalog handler of an imported tool. */
  readonly handler: (origin: McpTool.Origin) => CatalogTool.Handler
  /** Whether another attempt, after a backoff, may fix this failure. */
  readonly isTransient: (error: McpError, transport: Upstream.Transport) => boolean
  /** Where the servers' log lines, sampling and elicitation requests go. */
  readonly relay: ClientRelay
  /** The logging level clients asked for, sent to each server that logs when it connects. */
  readonly logLevel: () => Level | undefined
}

/** Supervises one server until the scope closes; `firstAttempt` completes after its first attempt. */
export const supervise = (shared: Shared, config: Upstream.Config, firstAttempt: Deferred.Deferred<void>) => {
  const { catalog, connections, origins, resources, statusOf, updateStatus } = shared
  const server = config.name
  const importOptions: McpTool.ImportOptions = {
    server,
    loading: config.loading,
    category: config.category,
    handler: shared.handler,
    alwaysLoad: config.alwaysLoad,
    ...(config.filter === undefined ? {} : { filter: config.filter }),
    ...(config.prefix === undefined ? {} : { prefix: config.prefix })
  }
  const annotate = Effect.annotateLogs({ server })

  // The last listings registered, to skip a re-listing that changed nothing.
  let lastListing: string | undefined
  let lastResources: string | undefined

  /** Warns once per unusable entry, not again at every re-listing. */
  const warnNew = (
    before: ReadonlyArray<{ readonly message: string }>,
    now: ReadonlyArray<McpError | { readonly message: string }>
  ) =>
    Effect.forEach(
      now.filter((e) => !before.some((b) => b.message === e.message)),
      (e) => Effect.logWarning(e.message),
      { discard: true }
    )

  /** Lists and registers the tools of an open connection: one atomic catalog step. */
  const syncTools = (connection: McpConnection.McpConnection) =>
    Effect.gen(function*() {
      const raws = yield* connection.listTools
      const listing = JSON.stringify(raws)
      if (listing === lastListing) return
      lastListing = listing
      const imported = yield* McpTool.importAll(raws, importOptions)
      const { invalid, tools } = yield* register(server, imported)
      for (const [id, origin] of origins) if (origin.server === server) origins.delete(id)
      for (const tool of tools) origins.set(tool.id, { server, tool: tool.aliases[0] ?? tool.name })
      yield* warnNew((yield* statusOf(server))?.invalidTools ?? [], invalid)
      yield* updateStatus(server, (s) => ({ ...s, tools: tools.length, invalidTools: invalid }))
    })

  /**
   * Lists and registers the resources and prompts of an open connection. A failure other than a
   * lost connection keeps what was registered before: the server's tools are not held hostage.
   */
  const syncResources = (connection: McpConnection.McpConnection) =>
    Effect.gen(function*() {
      if (resources === undefined) return
      const listed = yield* connection.listResources
      const listing = JSON.stringify(listed)
      if (listing === lastResources) return
      const invalid = yield* resources.sync(config, listed)
      lastResources = listing
      yield* warnNew((yield* statusOf(server))?.invalidResources ?? [], invalid)
      const count = resources.count(server)
      yield* updateStatus(server, (s) => ({ ...s, resources: count, invalidResources: invalid }))
    }).pipe(
      Effect.catch((error) =>
        error._tag === "ConnectionLost"
          ? Effect.fail(error)
          : Effect.andThen(updateStatus(server, (s) => ({ ...s, error })), Effect.logWarning(error.message))
      )
    )

  const sync = (connection: McpConnection.McpConnection) =>
    Effect.andThen(syncTools(connection), syncResources(connection))

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
          refused._tag === "DuplicateEntry" ? t.id === refused.id : t.name === refused.name
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
    lastResources = undefined
    const scope = yield* Scope.make()
    const connection = yield* Effect.gen(function*() {
      const connection = yield* McpConnection.connect(config, shared.relay)
      // reachable while it lists: the resource index reads bodies through it
      connections.set(server, connection)
      const level = shared.logLevel()
      if (level !== undefined && connection.capabilities.logging !== undefined) {
        yield* connection.request("logging/setLevel", { level }, server).pipe(Effect.ignore)
      }
      yield* sync(connection)
      return connection
    }).pipe(
      Scope.provide(scope),
      Effect.onExit((exit) =>
        Exit.isFailure(exit)
          ? Effect.andThen(Effect.sync(() => connections.delete(server)), Scope.close(scope, exit))
          : Effect.void
      )
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
      const relist = syncTools(connection).pipe(
        Effect.catch((error) =>
          error._tag === "ConnectionLost"
            ? Effect.fail(error)
            : Effect.andThen(updateStatus(server, (s) => ({ ...s, error })), Effect.logWarning(error.message))
        )
      )
      // a burst of notifications waits in the queue during the delay: one re-listing per window
      const follow = <A>(changes: Stream.Stream<A>, effect: Effect.Effect<void, ConnectError>) =>
        changes.pipe(Stream.runForEachArray(() => Effect.andThen(effect, Effect.sleep(config.listChangedDelay))))
      const following = resources === undefined
        ? [follow(connection.toolsChanged, relist)]
        : [
          follow(connection.toolsChanged, relist),
          follow(connection.resourcesChanged, syncResources(connection)),
          connection.resourceUpdated.pipe(Stream.runForEach((uri) => resources.publish({ server, uri }))),
          resources.resubscribe(server, connection)
        ]
      return yield* Effect.raceFirst(
        connection.lost,
        Effect.andThen(Effect.all(following, { concurrency: "unbounded", discard: true }), Effect.never)
      )
    }).pipe(
      Effect.ensuring(Effect.andThen(Effect.sync(() => connections.delete(server)), Scope.close(scope, Exit.void))),
      Effect.catch((error: ConnectError) => recordFailure(error))
    )

  // Failures in a row that another attempt will not fix; a working connection resets the count.
  let deterministic = 0
  const retryable = (error: McpError) =>
    shared.isTransient(error, config.transport) || ++deterministic < config.attempts

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
      // the server can no longer run its tools nor read its resources: they leave the catalogs
      yield* catalog.replaceSource(server, []).pipe(Effect.ignore)
      for (const [id, origin] of origins) if (origin.server === server) origins.delete(id)
      if (resources !== undefined) yield* resources.drop(server)
      yield* updateStatus(server, (s) => ({ ...s, state, tools: 0, resources: 0 }))
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
