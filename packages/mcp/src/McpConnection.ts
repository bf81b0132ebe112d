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
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Transport as SdkTransport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  ErrorCode,
  McpError as SdkMcpError,
  ResultSchema,
  ToolListChangedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Deferred, Duration, Effect, Exit, Queue, Schema, type Scope, Stream } from "effect"
import { isTooLarge, StdioClient } from "./internal/StdioClient.js"
import {
  type CallError,
  type ConnectError,
  ConnectionLost,
  RequestFailed,
  ServerProtocolError,
  ServerStartFailed,
  ServerTimeout,
  UpstreamError
} from "./McpError.js"
import * as McpTool from "./McpTool.js"
import type * as Upstream from "./Upstream.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/** An open connection. */
export interface McpConnection {
  readonly server: string
  /** What the server says it is (`initialize` result). */
  readonly serverInfo: { readonly name: string; readonly version: string } | undefined
  /** Every tool, all pages, raw (decode each with `McpTool`), within the list timeout. */
  readonly listTools: Effect.Effect<ReadonlyArray<unknown>, ConnectError>
  /** Calls a tool by its MCP name; the result as received. Interrupting the effect cancels the call upstream. */
  readonly callTool: (
    tool: string,
    args: Readonly<Record<string, unknown>>
  ) => Effect.Effect<McpTool.CallToolResult, CallError>
  /** One element per `notifications/tools/list_changed` (several may be merged). */
  readonly toolsChanged: Stream.Stream<void>
  /** What the connection dropped (an oversized message without an id, a line that is not JSON-RPC), for the log. */
  readonly warnings: Stream.Stream<string>
  /** Fails when the connection is lost; never succeeds while it is open. */
  readonly lost: Effect.Effect<never, ConnectionLost>
}

/** The name and version the client announces in `initialize`. */
export const clientInfo = { name: "tool-search", version: "0.1.0" }

/** The longest timer Node accepts: SDK deadlines are disabled, the Effect ones apply. */
const NO_SDK_TIMEOUT = 2 ** 31 - 1

/** How many pages a listing may take before the server is considered broken (a cursor loop). */
const MAX_PAGES = 1000

/** How much of a server's stderr is kept for error messages. */
const STDERR_TAIL = 2000

// -----------------------------------------------------------------------------
// Constructors
// -----------------------------------------------------------------------------

/** Opens a connection in the current scope, within `config.connectTimeout`. */
export const connect = (config: Upstream.Config): Effect.Effect<McpConnection, ConnectError, Scope.Scope> =>
  Effect.gen(function*() {
    const server = config.name
    const lost = yield* Deferred.make<never, ConnectionLost>()
    const changes = yield* Queue.sliding<void>(1)
    const warnings = yield* Queue.sliding<string>(16)
    let stderrTail = ""
    const tail = () => stderrTail.trim() === "" ? "" : ` (stderr: ${stderrTail.trim().slice(-STDERR_TAIL)})`

    const client = new Client(clientInfo, { capabilities: {} })
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      Queue.offerUnsafe(changes, undefined)
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

    const listTools = listAll(client, server).pipe(
      noteLost,
      Effect.timeoutOrElse({
        duration: config.listTimeout,
        orElse: () =>
          Effect.fail(
            new ServerTimeout({ server, operation: "tools/list", millis: Duration.toMillis(config.listTimeout) })
          )
      })
    )

    const callMillis = Duration.toMillis(config.callTimeout)
    const callTool = (tool: string, args: Readonly<Record<string, unknown>>) =>
      Effect.tryPromise({
        try: (signal) =>
          client.request({ method: "tools/call", params: { name: tool, arguments: { ...args } } }, ResultSchema, {
            signal,
            timeout: NO_SDK_TIMEOUT
          }),
        catch: (cause) => callFailure(server, tool, cause, tail)
      }).pipe(
        noteLost,
        Effect.timeoutOrElse({
          duration: config.callTimeout,
          orElse: () => Effect.fail(new ServerTimeout({ server, operation: "tools/call", tool, millis: callMillis }))
        }),
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
      listTools,
      callTool,
      toolsChanged: Stream.fromQueue(changes),
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
          new StreamableHTTPClientTransport(
            new URL(transport.url),
            transport.headers === undefined ? {} : { requestInit: { headers: { ...transport.headers } } }
          )
        )
      )
    case "Custom":
      return Effect.map(transport.make, guard)
  }
}

/** A failure of the transport itself while sending: the one kind of error that means the connection is gone. */
class TransportFailure extends Error {
  constructor(readonly failure: unknown) {
    super(describeCause(failure))
  }
}

/** Marks every error of `send` as a `TransportFailure`, so that it is not mistaken for anything else. */
const guard = (transport: SdkTransport): SdkTransport => {
  const send = transport.send.bind(transport)
  transport.send = (message, options) =>
    send(message, options).catch((failure: unknown) => Promise.reject(new TransportFailure(failure)))
  return transport
}

/**
 * Whether a transport failure means the connection is gone: anything but an HTTP answer that
 * refuses this one request (a 4xx other than 404, which means the server forgot the session).
 */
const isLost = (failure: TransportFailure): boolean =>
  !(failure.failure instanceof StreamableHTTPError && failure.failure.code !== undefined &&
    failure.failure.code >= 400 && failure.failure.code < 500 && failure.failure.code !== 404)

/** The SDK's own check of an answer failed: the server sent something that is not MCP. */
const isSchemaError = (cause: unknown): boolean => cause instanceof Error && cause.name === "ZodError"

/** All pages of `tools/list`, raw. A repeated cursor or an endless listing is a protocol error. */
const listAll = (client: Client, server: string): Effect.Effect<ReadonlyArray<unknown>, ConnectError> =>
  Effect.gen(function*() {
    const tools: Array<unknown> = []
    const seen = new Set<string>()
    let cursor: string | undefined
    for (let page = 0; page < MAX_PAGES; page++) {
      const params = cursor === undefined ? {} : { cursor }
      const raw = yield* Effect.tryPromise({
        try: (signal) =>
          client.request({ method: "tools/list", params }, ResultSchema, { signal, timeout: NO_SDK_TIMEOUT }),
        catch: (cause) => listFailure(server, cause)
      })
      const result = yield* Schema.decodeUnknownEffect(McpTool.ListToolsPage)(raw).pipe(
        Effect.mapError((e) => new ServerProtocolError({ server, reason: `tools/list: ${e.message}` }))
      )
      tools.push(...result.tools)
      const next = result.nextCursor
      if (next === undefined || next === null) return tools
      if (seen.has(next)) {
        return yield* new ServerProtocolError({
          server,
          reason: `tools/list repeated the cursor ${JSON.stringify(next)}`
        })
      }
      seen.add(next)
      cursor = next
    }
    return yield* new ServerProtocolError({ server, reason: `tools/list did not end after ${MAX_PAGES} pages` })
  })

/**
 * Sorts a failed listing: only a closed connection or a transport failure means the connection is
 * gone; an error answer, an answer over the size bound or anything else is the server's answer
 * being unusable, which another attempt will not fix by restarting.
 */
const listFailure = (server: string, cause: unknown): ConnectError => {
  if (cause instanceof SdkMcpError && cause.code === ErrorCode.ConnectionClosed) {
    return new ConnectionLost({ server, reason: describeCause(cause) })
  }
  if (cause instanceof TransportFailure) {
    return isLost(cause)
      ? new ConnectionLost({ server, reason: cause.message })
      : new RequestFailed({ server, reason: `tools/list: ${cause.message}` })
  }
  return new ServerProtocolError({ server, reason: `tools/list failed: ${describeCause(cause)}` })
}

/**
 * Sorts a failed call. A JSON-RPC error from the server is kept exactly (code, message, data). A
 * closed connection or a transport failure means the connection is gone. An answer over the size
 * bound or one the SDK could not read is a protocol error of that call; anything else failed in
 * the gateway. Neither restarts the server: its other calls are not affected.
 */
const callFailure = (server: string, tool: string, cause: unknown, tail: () => string): CallError => {
  if (cause instanceof SdkMcpError) {
    if (cause.code === ErrorCode.ConnectionClosed) {
      return new ConnectionLost({ server, tool, reason: `${wireMessage(cause)}${tail()}` })
    }
    if (isTooLarge(cause.data)) return new ServerProtocolError({ server, tool, reason: wireMessage(cause) })
    return new UpstreamError({
      server,
      tool,
      code: cause.code,
      reason: wireMessage(cause),
      ...(cause.data === undefined ? {} : { data: cause.data })
    })
  }
  if (cause instanceof TransportFailure) {
    return isLost(cause)
      ? new ConnectionLost({ server, tool, reason: cause.message })
      : new RequestFailed({ server, tool, reason: cause.message })
  }
  if (isSchemaError(cause)) return new ServerProtocolError({ server, tool, reason: describeCause(cause) })
  return new RequestFailed({ server, tool, reason: describeCause(cause) })
}

/** The SDK prefixes `MCP error <code>: ` to the message it received; this is the message on the wire. */
export const wireMessage = (error: SdkMcpError): string => {
  const prefix = `MCP error ${error.code}: `
  return error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message
}

const describeCause = (cause: unknown): string =>
  cause instanceof SdkMcpError ? wireMessage(cause) : cause instanceof Error ? cause.message : String(cause)
