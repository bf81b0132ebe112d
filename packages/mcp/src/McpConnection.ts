/**
 * One live connection to one MCP server, owned by a `Scope`: opening it spawns the process (or
 * opens the HTTP session) and runs `initialize`; closing the scope closes the client and stops the
 * process. A connection never reconnects by itself — `McpSources` decides when to open a new one.
 *
 * The protocol work is done by the official SDK's `Client`, because `effect/ai`'s `McpClient`
 * (effect 4.1.0) drops every server notification — its stdio transport ignores messages that are
 * neither requests nor responses, and its HTTP transport opens no stream for server-initiated
 * messages — so `notifications/tools/list_changed` could not be followed, and its `listTools`
 * validates a whole listing at once, so one malformed tool would hide all the others. Everything
 * around the SDK is Effect: the lifetime is a scope, the deadlines are Effect timeouts (so tests
 * drive them with `TestClock`), every answer is decoded with `Schema`, and every failure is a
 * typed error naming the server and the tool.
 *
 * @since 0.1.0
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Transport as SdkTransport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ResultSchema,
  ToolListChangedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Deferred, Duration, Effect, Exit, Option, Queue, Schema, type Scope, Stream } from "effect"
import { boundedFetch } from "./internal/BoundedFetch.js"
import type { ClientRelay } from "./internal/ClientRelay.js"
import { describeCause, guard, listAll, NO_SDK_TIMEOUT, requestFailure } from "./internal/Requests.js"
import { StdioClient } from "./internal/StdioClient.js"
import {
  type CallError,
  type ConnectError,
  ConnectionLost,
  ServerProtocolError,
  ServerStartFailed,
  ServerTimeout
} from "./McpError.js"
import * as McpTool from "./McpTool.js"
import * as PackageVersion from "./PackageVersion.js"
import type * as Upstream from "./Upstream.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * What a server declared about resources and prompts at `initialize`; absent means not offered.
 *
 * @since 0.2.0
 * @category models
 */
export const Capabilities = Schema.Struct({
  resources: Schema.optionalKey(Schema.Struct({
    subscribe: Schema.optionalKey(Schema.NullOr(Schema.Boolean)),
    listChanged: Schema.optionalKey(Schema.NullOr(Schema.Boolean))
  })),
  prompts: Schema.optionalKey(Schema.Struct({
    listChanged: Schema.optionalKey(Schema.NullOr(Schema.Boolean))
  })),
  logging: Schema.optionalKey(Schema.Struct({})),
  completions: Schema.optionalKey(Schema.Struct({}))
})

/**
 * The requests about resources and prompts a connection forwards.
 *
 * @since 0.2.0
 * @category models
 */
export type ResourceMethod =
  | "resources/read"
  | "resources/subscribe"
  | "resources/unsubscribe"
  | "prompts/get"
  | "completion/complete"
  | "logging/setLevel"

/**
 * Options of one forwarded tool call.
 *
 * @since 0.3.0
 * @category models
 */
export interface CallOptions {
  /** Receives each `notifications/progress` of the call (its params, the server's token removed). */
  readonly onProgress?: (progress: Record<string, unknown>) => void
}

/**
 * An open connection.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpConnection {
  readonly server: string
  /** What the server says it is (`initialize` result). */
  readonly serverInfo: { readonly name: string; readonly version: string } | undefined
  /** What the server offers besides tools (resources, subscriptions, prompts). */
  readonly capabilities: typeof Capabilities.Type
  /** Every tool, all pages, raw (decode each with `McpTool`), within the list timeout. */
  readonly listTools: Effect.Effect<ReadonlyArray<unknown>, ConnectError>
  /**
   * Every entry of `resources/list`, `resources/templates/list` and `prompts/list`, all pages, raw
   * (decode each with `McpResource`), within the list timeout; empty for what the server does not offer.
   */
  readonly listResources: Effect.Effect<
    {
      readonly resources: ReadonlyArray<unknown>
      readonly templates: ReadonlyArray<unknown>
      readonly prompts: ReadonlyArray<unknown>
    },
    ConnectError
  >
  /** Calls a tool by its MCP name; the result as received. Interrupting the effect cancels the call upstream. */
  readonly callTool: (
    tool: string,
    args: Readonly<Record<string, unknown>>,
    options?: CallOptions
  ) => Effect.Effect<McpTool.CallToolResult, CallError>
  /**
   * One request about a resource or prompt (`target`: its URI or name, for errors), within the call
   * timeout; the result raw, for the caller to decode. Interrupting it cancels it upstream.
   */
  readonly request: (
    method: ResourceMethod,
    params: Readonly<Record<string, unknown>>,
    target: string
  ) => Effect.Effect<unknown, CallError>
  /** One element per `notifications/tools/list_changed` (several may be merged). */
  readonly toolsChanged: Stream.Stream<void>
  /** One element per `notifications/resources/list_changed` or `prompts/list_changed` (merged). */
  readonly resourcesChanged: Stream.Stream<void>
  /** The URI of each `notifications/resources/updated` (the latest 256 are kept while nobody reads). */
  readonly resourceUpdated: Stream.Stream<string>
  /** What the connection dropped (an oversized message without an id, a line that is not JSON-RPC), for the log. */
  readonly warnings: Stream.Stream<string>
  /** Fails when the connection is lost; never succeeds while it is open. */
  readonly lost: Effect.Effect<never, ConnectionLost>
}

/**
 * The name and version the client announces in `initialize`.
 *
 * @since 0.1.0
 * @category constants
 */
export const clientInfo = { name: "tool-search", version: PackageVersion.mcp }

/** How much of a server's stderr is kept for error messages. */
const STDERR_TAIL = 2000

/** The longest URI kept from a `notifications/resources/updated`. */
const MAX_UPDATED_URI = 4096

// -----------------------------------------------------------------------------
// Constructors
// -----------------------------------------------------------------------------

/**
 * Opens a connection in the current scope, within `config.connectTimeout`. With a `relay`, the
 * connection accepts the server's log lines, sampling and elicitation requests, and hands them to
 * it (to the client session whose call caused them).
 *
 * @since 0.1.0
 * @category constructors
 */
export const connect = (
  config: Upstream.Config,
  relay?: ClientRelay
): Effect.Effect<McpConnection, ConnectError, Scope.Scope> =>
  Effect.gen(function*() {
    const server = config.name
    const lost = yield* Deferred.make<never, ConnectionLost>()
    const changes = yield* Queue.sliding<void>(1)
    const resourceChanges = yield* Queue.sliding<void>(1)
    const updated = yield* Queue.sliding<string>(256)
    const warnings = yield* Queue.sliding<string>(16)
    let stderrTail = ""
    const tail = () => stderrTail.trim() === "" ? "" : ` (stderr: ${stderrTail.trim().slice(-STDERR_TAIL)})`

    const client = new Client(clientInfo, {
      capabilities: relay === undefined ? {} : { sampling: {}, elicitation: { form: {}, url: {} } }
    })
    if (relay !== undefined) {
      client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
        relay.message(server, { ...notification.params })
      })
      client.setRequestHandler(
        CreateMessageRequestSchema,
        (request, extra) => relay.request(server, request.method, { ...request.params }, extra.signal) as never
      )
      client.setRequestHandler(
        ElicitRequestSchema,
        (request, extra) => relay.request(server, request.method, { ...request.params }, extra.signal) as never
      )
    }
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      Queue.offerUnsafe(changes, undefined)
    })
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      Queue.offerUnsafe(resourceChanges, undefined)
    })
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
      Queue.offerUnsafe(resourceChanges, undefined)
    })
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      const uri: unknown = notification.params.uri
      if (typeof uri === "string" && uri.length <= MAX_UPDATED_URI) Queue.offerUnsafe(updated, uri)
    })
    const markLost = (error: ConnectionLost) => {
      Deferred.doneUnsafe(lost, Exit.fail(error))
    }
    client.onclose = () => markLost(new ConnectionLost({ server, reason: `the connection closed${tail()}` }))
    // Over HTTP nothing closes when the server goes away: a request that cannot reach it is the
    // sign, and it ends the connection too, so that the supervisor reconnects.
    const noteLost = <A, E>(effect: Effect.Effect<A, E>) =>
      Effect.tapError(effect, (e) => Effect.sync(() => e instanceof ConnectionLost && markLost(e)))
    const transport = yield* makeTransport(config, {
      onStderr: (chunk) => {
        stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL)
      },
      onDropped: (reason) => {
        Queue.offerUnsafe(warnings, `MCP server '${server}': ${reason}`)
      }
    })
    // Closing the client closes the transport, which stops the process: registered before
    // connecting, so a start-up that times out leaves nothing running.
    yield* Effect.addFinalizer(() => Effect.promise(() => client.close().catch(() => undefined)))

    const millis = Duration.toMillis(config.connectTimeout)
    yield* Effect.tryPromise({
      try: (signal) => client.connect(transport, { signal, timeout: NO_SDK_TIMEOUT }),
      catch: (cause) => new ServerStartFailed({ server, reason: `${describeCause(cause)}${tail()}` })
    }).pipe(
      Effect.timeoutOrElse({
        duration: config.connectTimeout,
        orElse: () => Effect.fail(new ServerTimeout({ server, operation: "initialize", millis }))
      })
    )
    // what the server declared; anything unreadable counts as not offered
    const capabilities = Option.getOrElse(
      Schema.decodeUnknownOption(Capabilities)(client.getServerCapabilities() ?? {}),
      (): typeof Capabilities.Type => ({})
    )

    const listed = (method: string, field: string, options?: { readonly unimplementedIsEmpty?: boolean }) =>
      listAll(client, server, method, field, options).pipe(
        noteLost,
        Effect.timeoutOrElse({
          duration: config.listTimeout,
          orElse: () =>
            Effect.fail(new ServerTimeout({ server, operation: method, millis: Duration.toMillis(config.listTimeout) }))
        })
      )
    const none = Effect.succeed<ReadonlyArray<unknown>>([])

    const callMillis = Duration.toMillis(config.callTimeout)
    const request = (
      method: string,
      params: Readonly<Record<string, unknown>>,
      target: string,
      options: CallOptions = {}
    ) =>
      Effect.tryPromise({
        try: (signal) =>
          client.request({ method, params: { ...params } }, ResultSchema, {
            signal,
            timeout: NO_SDK_TIMEOUT,
            ...(options.onProgress === undefined ? {} : {
              onprogress: (progress: Record<string, unknown>) => options.onProgress?.({ ...progress })
            })
          }),
        catch: (cause) => requestFailure(server, target, cause, tail)
      }).pipe(
        noteLost,
        Effect.timeoutOrElse({
          duration: config.callTimeout,
          orElse: () => Effect.fail(new ServerTimeout({ server, operation: method, tool: target, millis: callMillis }))
        })
      )

    const callTool = (tool: string, args: Readonly<Record<string, unknown>>, options?: CallOptions) =>
      request("tools/call", { name: tool, arguments: { ...args } }, tool, options).pipe(
        Effect.flatMap((result) =>
          Schema.decodeUnknownEffect(McpTool.CallToolResult)(result).pipe(
            Effect.as(result as McpTool.CallToolResult),
            Effect.mapError((e) => new ServerProtocolError({ server, tool, reason: e.message }))
          )
        )
      )

    const info = client.getServerVersion()
    return {
      server,
      serverInfo: info === undefined ? undefined : { name: info.name, version: info.version },
      capabilities,
      listTools: listed("tools/list", "tools"),
      listResources: Effect.all({
        resources: capabilities.resources === undefined ? none : listed("resources/list", "resources"),
        templates: capabilities.resources === undefined
          ? none
          // declared with resources, but some servers never implemented it: no templates then
          : listed("resources/templates/list", "resourceTemplates", { unimplementedIsEmpty: true }),
        prompts: capabilities.prompts === undefined ? none : listed("prompts/list", "prompts")
      }),
      callTool,
      request: (method, params, target) => request(method, params, target),
      toolsChanged: Stream.fromQueue(changes),
      resourcesChanged: Stream.fromQueue(resourceChanges),
      resourceUpdated: Stream.fromQueue(updated),
      warnings: Stream.fromQueue(warnings),
      lost: Deferred.await(lost)
    } satisfies McpConnection
  })

// -----------------------------------------------------------------------------
// Internal
// -----------------------------------------------------------------------------

const makeTransport = (
  config: Upstream.Config,
  on: { readonly onStderr: (chunk: string) => void; readonly onDropped: (reason: string) => void }
): Effect.Effect<SdkTransport> => {
  const transport = config.transport
  switch (transport._tag) {
    case "Stdio":
      return Effect.sync(() => {
        const stdio = new StdioClient({
          command: transport.command,
          args: transport.args,
          env: transport.env,
          cwd: transport.cwd,
          maxMessageBytes: config.maxMessageBytes,
          onDropped: on.onDropped
        })
        stdio.stderr.on("data", (chunk: Buffer | string) => {
          const text = chunk.toString()
          on.onStderr(text)
          if (transport.stderr === "inherit") process.stderr.write(text)
        })
        return guard(stdio)
      })
    case "Http":
      return Effect.sync(() =>
        guard(
          new StreamableHTTPClientTransport(new URL(transport.url), {
            // every answer bounded as a stdio server's is: a larger message fails its request, named
            fetch: boundedFetch(config.maxMessageBytes, on.onDropped),
            ...(transport.headers === undefined ? {} : { requestInit: { headers: { ...transport.headers } } })
          })
        )
      )
    case "Custom":
      return Effect.map(transport.make, guard)
  }
}

/**
 * The message of a JSON-RPC error as the server sent it (the SDK prefixes `MCP error <code>: `).
 *
 * @since 0.1.0
 */
export { wireMessage } from "./internal/Requests.js"
