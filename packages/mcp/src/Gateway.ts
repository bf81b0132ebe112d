/**
 * An MCP server in front of a catalog — usually the tools of many upstream MCP servers imported
 * by `McpSources` — that gives any MCP client progressive disclosure.
 *
 * Each client session is one execution unit: it gets its own `ToolView` with a fresh
 * `Activation`, created when the session opens and closed with it, so what one session finds is
 * never visible to another. A client first sees the search tools only (`ToolSearch`, plus
 * `call_tool`). A search activates what it finds for this session; the gateway then sends
 * `notifications/tools/list_changed` and the next `tools/list` includes the found tools. Clients
 * that do not refresh their list call found tools through `call_tool`. Catalog changes (an
 * upstream's own `list_changed`, a server that stopped) are announced to each session whose list
 * they change.
 *
 * Calls to imported tools go to their server unchanged and come back unchanged: the result as the
 * server sent it, a JSON-RPC error with the server's code, message and data. When the gateway
 * itself cannot run the call — the server is down, died during the call, or did not answer in
 * time — the client gets an error result naming the server and the tool, and the other servers
 * keep working.
 *
 * The MCP protocol work is the official SDK's `Server` (one per session) and its stdio and
 * Streamable HTTP transports: `effect/ai`'s `McpServer` registers tools for all clients at once
 * and broadcasts list changes to every client, while here each session has its own list.
 *
 * @since 0.1.0
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import type { Transport as SdkTransport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  CallToolRequestSchema,
  type CallToolResult as SdkCallToolResult,
  ListToolsRequestSchema,
  type ListToolsResult as SdkListToolsResult
} from "@modelcontextprotocol/sdk/types.js"
import { Disclosure, ToolCatalog, ToolView } from "@tool-search/core"
import { Context, Deferred, Effect, Exit, FiberSet, Layer, Option, Schema, Scope, Semaphore, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type { Readable, Writable } from "node:stream"
import { McpSources } from "./McpSources.js"
import * as McpTool from "./McpTool.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/** The gateway settings. */
export interface Options {
  /** The server name announced to clients. */
  readonly name: string
  readonly version: string
  /** Offer `call_tool`, for clients that do not refresh their tool list. */
  readonly callTool: boolean
  /** What the client is told at `initialize`; default: how to use the search tools. */
  readonly instructions: string
}

/** Where the HTTP gateway listens. */
export interface HttpOptions extends Partial<Options> {
  /** 0 picks a free port. */
  readonly port: number
  /** Default `127.0.0.1`; loopback hosts also get DNS rebinding protection. */
  readonly host?: string
  /** Default `/mcp`. */
  readonly path?: string
}

/** A listening HTTP gateway. */
export interface HttpAddress {
  readonly url: string
  readonly port: number
}

/** The gateway could not start (for example, the port is taken). */
export class GatewayError extends Schema.TaggedError<GatewayError>()("GatewayError", {
  reason: Schema.String
}) {
  override get message(): string {
    return `The MCP gateway could not start: ${this.reason}`
  }
}

/** The name of the meta tool that calls a found tool by name. */
export const CALL_TOOL = "call_tool"

/** The default instructions sent at `initialize`. */
export const defaultInstructions = [
  `This server fronts many tools. At first only the search tools are listed: call ${Disclosure.TOOL_SEARCH} with a`,
  "few keywords (or 'select:name1,name2') to find and load tools. Loaded tools are added to your tool list",
  `(notifications/tools/list_changed); if your list does not refresh, call them with ${CALL_TOOL}.`
].join(" ")

/** The default settings. */
export const defaults: Options = {
  name: "tool-search",
  version: "0.1.0",
  callTool: true,
  instructions: defaultInstructions
}

/** The `tools/list` entry of `call_tool`. */
export const callToolListed: McpTool.ListedTool = {
  name: CALL_TOOL,
  description: [
    `Call a tool that ${Disclosure.TOOL_SEARCH} loaded, by name. Use it when a loaded tool does not appear in`,
    "your tool list; otherwise call the tool directly."
  ].join(" "),
  inputSchema: {
    type: "object",
    properties: {
      name: { type: "string", description: `The tool name, as ${Disclosure.TOOL_SEARCH} returned it` },
      arguments: { type: "object", description: "The tool's arguments, matching its input schema" }
    },
    required: ["name"],
    additionalProperties: false
  }
}

const CallToolInput = Schema.Struct({
  name: Schema.String,
  arguments: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
})

// -----------------------------------------------------------------------------
// Sessions
// -----------------------------------------------------------------------------

/** What a call handler answers: a result, or a JSON-RPC error to send as is. */
type Answer =
  | { readonly _tag: "Result"; readonly result: McpTool.CallToolResult }
  | { readonly _tag: "Error"; readonly code: number; readonly message: string; readonly data?: unknown }

/** A JSON-RPC error with an exact message: the SDK sends `code`, `message` and `data` as they are. */
class JsonRpcError extends Error {
  constructor(readonly code: number, message: string, readonly data: unknown) {
    super(message)
  }
}

const textResult = (text: string, isError: boolean): McpTool.CallToolResult => ({
  content: [{ type: "text", text }],
  ...(isError ? { isError: true } : {})
})

/**
 * Opens one client session on an SDK transport, in the current scope: a fresh activation, an SDK
 * `Server` connected to the transport, and a subscription to catalog changes. Returns an effect
 * that completes when the client closes the session. Closing the scope ends the session.
 */
export const open = (
  transport: SdkTransport,
  options: Partial<Options> = {}
): Effect.Effect<Effect.Effect<void>, never, ToolCatalog.ToolCatalog | Scope.Scope> =>
  Effect.gen(function*() {
    const settings = { ...defaults, ...options }
    const scope = yield* Scope.Scope
    // The session's execution unit: its activation lives exactly as long as the session scope.
    const view = Context.get(yield* Layer.buildWithScope(ToolView.ToolView.unit, scope), ToolView.ToolView)
    const catalog = yield* ToolCatalog.ToolCatalog
    const sources = Option.getOrUndefined(yield* Effect.serviceOption(McpSources))
    const run = yield* FiberSet.makeRuntimePromise<never>()
    const closed = yield* Deferred.make<void>()
    const lock = yield* Semaphore.make(1)

    const server = new Server(
      { name: settings.name, version: settings.version },
      { capabilities: { tools: { listChanged: true } }, instructions: settings.instructions }
    )

    /** The tools this session lists now. */
    const listed = Effect.map(view.visible, (visible) => {
      const tools = visible.filter((t) => !(settings.callTool && t.name === CALL_TOOL)).map(McpTool.toListed)
      if (!settings.callTool) return tools
      // Right after the search tools: the list's stable head stays stable (prompt caches).
      const at = visible.filter((t) => t.kind !== "activated").length
      return [...tools.slice(0, at), callToolListed, ...tools.slice(at)]
    })
    // What the client was last told (by a listing or an announcement); undefined before it listed.
    let known: string | undefined

    /** Sends `list_changed` through `send` if the list differs from what the client knows. */
    const announce = (send: () => Promise<void>) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const now = JSON.stringify(yield* listed)
        if (known === undefined || now === known) return
        known = now
        yield* Effect.promise(() => send().catch(() => undefined))
      }))

    const callNamed = (name: string, args: Record<string, unknown>, requestId: string) =>
      Effect.gen(function*() {
        const resolved = yield* Effect.result(view.resolve(name))
        if (resolved._tag === "Failure") {
          return { _tag: "Result", result: textResult(resolved.failure.message, true) } satisfies Answer
        }
        const tool = resolved.success
        const origin = tool.tool === undefined ? undefined : sources?.origin(tool.tool.id)
        if (origin !== undefined && sources !== undefined) {
          const outcome = yield* Effect.result(sources.call(origin.server, origin.tool, args))
          if (outcome._tag === "Success") return { _tag: "Result", result: outcome.success } satisfies Answer
          const e = outcome.failure
          return e._tag === "UpstreamError"
            ? {
              _tag: "Error",
              code: e.code,
              message: e.reason,
              ...(e.data === undefined ? {} : { data: e.data })
            } satisfies Answer
            : { _tag: "Result", result: textResult(e.message, true) } satisfies Answer
        }
        const output = yield* Effect.result(tool.run(args, { toolCallId: requestId }))
        if (output._tag === "Failure") {
          return { _tag: "Result", result: textResult(output.failure.message, true) } satisfies Answer
        }
        const { isFailure, result } = output.success
        const content = textResult(typeof result === "string" ? result : JSON.stringify(result), isFailure)
        if (tool.kind !== "meta") return { _tag: "Result", result: content } satisfies Answer
        const activated = output.success.activated ?? []
        const hint = activated.length > 0 && settings.callTool
          ? [{
            type: "text",
            text: `Loaded for this session: ${activated.join(", ")}. Call them directly, or with ${CALL_TOOL} ` +
              `({"name": "${activated[0]}", "arguments": {...}}) if they are not in your tool list yet.`
          }]
          : []
        return { _tag: "Result", result: { ...content, content: [...content.content, ...hint] } } satisfies Answer
      })

    const call = (name: string, args: Record<string, unknown>, requestId: string) =>
      Effect.gen(function*() {
        if (!settings.callTool || name !== CALL_TOOL) return yield* callNamed(name, args, requestId)
        const input = Schema.decodeUnknownOption(CallToolInput)(args)
        if (Option.isNone(input) || input.value.name === CALL_TOOL) {
          const usage = `${CALL_TOOL} needs {"name": "<tool name>", "arguments": {...}} naming a tool other than itself`
          return { _tag: "Result", result: textResult(usage, true) } satisfies Answer
        }
        return yield* callNamed(input.value.name, input.value.arguments ?? {}, requestId)
      })

    server.setRequestHandler(ListToolsRequestSchema, () =>
      run(
        lock.withPermits(1)(Effect.map(listed, (tools) => {
          known = JSON.stringify(tools)
          // Plain JSON built by `McpTool.toListed`: names, descriptions and object schemas.
          return { tools } as unknown as SdkListToolsResult
        }))
      ))

    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const answer = await run(
        Effect.tap(
          call(request.params.name, request.params.arguments ?? {}, String(extra.requestId)),
          // A search may have changed this session's list: tell the client before it gets the result.
          () => announce(() => extra.sendNotification({ method: "notifications/tools/list_changed" }))
        ),
        { signal: extra.signal }
      )
      if (answer._tag === "Error") throw new JsonRpcError(answer.code, answer.message, answer.data)
      // An upstream result that passed the shape check, or one built here; the SDK validates it before sending.
      return answer.result as SdkCallToolResult
    })

    server.onclose = () => {
      Deferred.doneUnsafe(closed, Exit.void)
    }
    // Started at once: every catalog change after the session opened reaches it.
    yield* catalog.changes.pipe(
      Stream.runForEach(() => announce(() => server.sendToolListChanged())),
      Effect.forkScoped({ startImmediately: true })
    )
    yield* Effect.addFinalizer(() => Effect.promise(() => server.close().catch(() => undefined)))
    yield* Effect.promise(() => server.connect(transport))
    return Deferred.await(closed)
  })

/** Serves one client session on an SDK transport until the client closes it. */
export const serve = (
  transport: SdkTransport,
  options: Partial<Options> = {}
): Effect.Effect<void, never, ToolCatalog.ToolCatalog> => Effect.scoped(Effect.flatten(open(transport, options)))

/**
 * Serves one client over stdin and stdout (what MCP clients start as a command) until stdin
 * ends. Nothing else may write to stdout: route logs to stderr (`Logger.LogToStderr`).
 */
export const serveStdio = (
  options: Partial<Options> & { readonly stdin?: Readable; readonly stdout?: Writable } = {}
): Effect.Effect<void, never, ToolCatalog.ToolCatalog> =>
  Effect.suspend(() => {
    const stdin = options.stdin ?? process.stdin
    const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout)
    // The SDK's stdio transport does not notice the end of its input: the client went away.
    const end = () => void transport.close()
    stdin.once("end", end)
    stdin.once("close", end)
    return serve(transport, options).pipe(
      Effect.ensuring(Effect.sync(() => {
        stdin.off("end", end)
        stdin.off("close", end)
      }))
    )
  })

/**
 * Serves Streamable HTTP on `host:port` at `path` until the scope closes. Each client session
 * (`Mcp-Session-Id`) is a scope of its own, opened at `initialize` and closed by the client's
 * DELETE or when the gateway stops.
 */
export const serveHttp = (
  options: HttpOptions
): Effect.Effect<HttpAddress, GatewayError, ToolCatalog.ToolCatalog | Scope.Scope> =>
  Effect.gen(function*() {
    const host = options.host ?? "127.0.0.1"
    const path = options.path ?? "/mcp"
    const scope = yield* Scope.Scope
    const run = yield* FiberSet.makeRuntimePromise<ToolCatalog.ToolCatalog>()
    const sessions = new Map<
      string,
      { readonly transport: StreamableHTTPServerTransport; readonly scope: Scope.Closeable }
    >()
    let allowedHosts: Array<string> | undefined

    /** Opens a session for an `initialize` request; the session closes itself when its client goes away. */
    const startSession = async (req: IncomingMessage, res: ServerResponse) => {
      const { sessionScope, transport } = await run(Effect.gen(function*() {
        const sessionScope = yield* Scope.fork(scope)
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: randomUUID,
          onsessioninitialized: (id) => {
            sessions.set(id, { transport, scope: sessionScope })
          },
          ...(allowedHosts === undefined ? {} : { enableDnsRebindingProtection: true, allowedHosts })
        })
        const closed = yield* open(transport, options).pipe(Scope.provide(sessionScope))
        yield* closed.pipe(
          Effect.andThen(Effect.sync(() => {
            if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
          })),
          Effect.andThen(Scope.close(sessionScope, Exit.void)),
          Effect.forkIn(scope)
        )
        return { sessionScope, transport }
      }))
      await transport.handleRequest(req, res)
      // Not an `initialize` the transport accepted: no session was created, so nothing is kept.
      if (transport.sessionId === undefined) await run(Scope.close(sessionScope, Exit.void))
    }

    const handle = async (req: IncomingMessage, res: ServerResponse) => {
      if (new URL(req.url ?? "/", "http://localhost").pathname !== path) return reply(res, 404, "Not found")
      const id = req.headers["mcp-session-id"]
      if (typeof id === "string") {
        const session = sessions.get(id)
        if (session === undefined) return reply(res, 404, "Session not found")
        return session.transport.handleRequest(req, res)
      }
      if (req.method !== "POST") return reply(res, 400, "No valid session id: start with an initialize request")
      return startSession(req, res)
    }

    const server = createServer((req, res) => {
      handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) reply(res, 500, error instanceof Error ? error.message : String(error))
      })
    })
    const port = yield* Effect.callback<number, GatewayError>((resume) => {
      const onError = (error: Error) => resume(Effect.fail(new GatewayError({ reason: error.message })))
      server.once("error", onError)
      server.listen(options.port, host, () => {
        server.off("error", onError)
        resume(Effect.succeed((server.address() as AddressInfo).port))
      })
    })
    yield* Effect.addFinalizer(() =>
      Effect.callback<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
    )
    if (host === "127.0.0.1" || host === "localhost" || host === "::1") {
      allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]
    }
    const shown = host.includes(":") ? `[${host}]` : host
    return { url: `http://${shown}:${port}${path}`, port }
  })

const reply = (res: ServerResponse, status: number, message: string): void => {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }))
}
