/**
 * An MCP server in front of a catalog — usually the tools of many upstream MCP servers imported
 * by `McpSources` — that gives any MCP client progressive disclosure.
 *
 * Each client session is one execution unit (`Unit.session`): its own activation, created when the
 * session opens and closed with it, so what one session finds is never visible to another. A
 * client first sees the search tools only (`ToolSearch`, plus `call_tool`). The session's
 * `ToolSearch` is the library's one `ToolSearch` (the same query language, `select:` rule, weak-hit
 * rule and answer as an agent's): a search loads what it finds for this session — at most
 * `maxLoadedTools` at a time (the least recently used is unloaded) — the gateway then sends
 * `notifications/tools/list_changed` and the next `tools/list` includes the loaded tools. Clients
 * that do not refresh their list call loaded tools through `call_tool`. Catalog changes (an
 * upstream's own `list_changed`, a server that stopped) reach each session whose list they change,
 * coalesced over `listChangedDelay`.
 *
 * Everything a client sends is bounded before anything else happens: `tools/call` params are
 * decoded, and arguments deeper than `maxArgumentDepth` or larger than `maxArgumentBytes` are
 * refused with -32602 naming the limit, so one client's bad request never reaches an upstream or
 * another session. Calls to imported tools (with `withSources`, which puts the `McpSources` that
 * imported them in the requirements) go to their server unchanged and come back unchanged,
 * except that a result longer than `maxResultChars` is cut with a note. When the gateway cannot
 * run a call — the server is down, died during the call, or did not answer in time — the client
 * gets an error result naming the server and the tool, and the other servers keep working.
 *
 * With a `ResourceCatalog` (`withResources`), the session also serves resources and prompts:
 * `resources/list`, `resources/templates/list`, `resources/read`, subscriptions, `prompts/list`
 * and `prompts/get`, through the same visibility and permission policies, forwarded to the upstream
 * each came from, with list changes coalesced like the tools'; `resource_link`s in upstream tool
 * results are readable in the session that received them; and with `resourceTools` the level
 * tools (`sample_resources`, `search_resources`, `read_resource`, `get_prompt`) are offered to
 * clients that prefer tools, over a revealed set of the session's own.
 *
 * In code mode (`withCode`, which puts a `Sandbox` in the requirements), a client sees
 * `ToolSearch` and `execute_code` instead: a search answers with the TypeScript declarations of
 * what it loaded (the list does not change), and `execute_code({ code })` runs a program in the
 * sandbox whose `tools` are the session's callable tools — each call it makes goes through the
 * session's call path (resolution, permission, bounds, forwarding, log, metric, audit with
 * `via: "execute_code"`), and only what the program returns reaches the client. Programs run on the
 * sandbox's worker threads: a program that loops delays no other request or session.
 *
 * The MCP protocol work is the official SDK's `Server` (one per session): `effect/ai`'s
 * `McpServer` registers tools for all clients at once and broadcasts list changes to every client,
 * while here each session has its own list. Streamable HTTP is in `HttpGateway`.
 *
 * @since 0.1.0
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { Transport as SdkTransport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  ErrorCode,
  ListToolsRequestSchema,
  type ListToolsResult as SdkListToolsResult
} from "@modelcontextprotocol/sdk/types.js"
import { CodeMode, Sandbox } from "@tool-search/code"
import { Disclosure, ResourceCatalog, ToolCatalog } from "@tool-search/core"
import { Deferred, Duration, Effect, Exit, FiberSet, Option, Queue, Schema, type Scope, Stream } from "effect"
import type { Readable, Writable } from "node:stream"
import { GatewayAudit } from "./GatewayAudit.js"
import * as GatewayConfig from "./GatewayConfig.js"
import * as Admission from "./internal/Admission.js"
import { checkParams, invalidParams, JsonRpcError } from "./internal/Calls.js"
import { Programs, Resources, Sources } from "./internal/GatewaySources.js"
import * as ResourceAudit from "./internal/ResourceAudit.js"
import * as ResultCap from "./internal/ResultCap.js"
import * as SessionCalls from "./internal/SessionCalls.js"
import * as SessionRelay from "./internal/SessionRelay.js"
import type { Reply } from "./internal/SessionReplies.js"
import * as SessionResources from "./internal/SessionResources.js"
import * as SessionSync from "./internal/SessionSync.js"
import type * as SessionTenant from "./internal/SessionTenant.js"
import * as SessionToolList from "./internal/SessionToolList.js"
import * as SessionView from "./internal/SessionView.js"
import { StdioServer } from "./internal/StdioServer.js"
import { McpSources } from "./McpSources.js"
import * as PackageVersion from "./PackageVersion.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * Bounds on one call.
 *
 * @since 0.2.0
 * @category models
 */
export interface Limits {
  readonly maxArgumentBytes: number
  readonly maxArgumentDepth: number
  readonly maxResultChars: number
  /** The text or base64 of one `resources/read` or `prompts/get` answer sent to the client. */
  readonly maxResourceBytes: number
}

/**
 * The gateway settings.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The server name announced to clients. */
  readonly name: string
  readonly version: string
  /** Offer `call_tool`, for clients that do not refresh their tool list. */
  readonly callTool: boolean
  /** What the client is told at `initialize`; default: how to use the search tools. */
  readonly instructions: string
  readonly limits: Limits
  /** Tools loaded in one session; loading more unloads the least recently used. */
  readonly maxLoadedTools: number
  /** Catalog changes within this window reach a session as one `list_changed`. */
  readonly listChangedDelay: Duration.Input
  /** With resources: offer the level tools (`sample_resources`, ...) besides the resource methods. */
  readonly resourceTools: boolean
  /** With resources: resources one session may subscribe to at once. */
  readonly maxSubscriptions: number
  /** Requests of one session running at once (calls, searches, reads); more wait in its queue. */
  readonly maxSessionCalls: number
  /** Requests of one session waiting for a place; more are refused at once. */
  readonly maxQueuedCalls: number
  /** Search time one session may use per minute, in milliseconds; its searches run one at a time. */
  readonly searchBudget: number
}

/**
 * The gateway could not start (for example, the port is taken).
 *
 * @since 0.1.0
 * @category errors
 */
export class GatewayError extends Schema.TaggedError<GatewayError>()("GatewayError", {
  reason: Schema.String
}) {
  override get message(): string {
    return `The MCP gateway could not start: ${this.reason}`
  }
}

/**
 * Makes the gateway sessions opened by `effect` (`serve`, `serveStdio`, `HttpGateway.serve`) serve
 * the resources and prompts of the `ResourceCatalog` in context, through the visibility and
 * permission policies: the resource and prompt methods of MCP, forwarded to the upstream each came
 * from when `McpSources` imported them (`McpSources.layerWithResources`).
 *
 * @since 0.2.0
 * @category combinators
 */
export const withResources = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R | ResourceCatalog.ResourceCatalog> =>
  Effect.flatMap(
    Effect.service(ResourceCatalog.ResourceCatalog),
    (catalog) => Effect.provideService(effect, Resources, Option.some(catalog))
  )

/**
 * Makes the gateway sessions opened by `effect` (`serve`, `serveStdio`, `HttpGateway.serve`) report
 * and use the upstream servers of the `McpSources` in context: their status in search answers and
 * on the HTTP status page, and the forwarding of the resources and prompts they imported. Without
 * it a gateway serves the `ToolCatalog` alone.
 *
 * @since 0.2.0
 * @category combinators
 */
export const withSources = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R | McpSources> =>
  Effect.flatMap(Effect.service(McpSources), (sources) => Effect.provideService(effect, Sources, Option.some(sources)))

/**
 * Makes the gateway sessions opened by `effect` (`serve`, `serveStdio`, `HttpGateway.serve`) run in
 * code mode, their programs in the `Sandbox` in context (one pool of worker threads for every
 * session): each session lists `ToolSearch` and `execute_code`, searches answer with TypeScript
 * declarations, and the calls of a program go through the session's call path.
 *
 * @since 0.3.0
 * @category combinators
 */
export const withCode = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Sandbox.Sandbox> =>
  Effect.flatMap(
    Effect.service(Sandbox.Sandbox),
    (sandbox) => Effect.provideService(effect, Programs, Option.some(sandbox))
  )

/**
 * The default instructions sent at `initialize`.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultInstructions = [
  `This server fronts many tools. At first only the search tools are listed: call ${Disclosure.toolNames.toolSearch} with a`,
  "few keywords (or 'select:name1,name2') to find and load tools. Loaded tools are added to your tool list",
  `(notifications/tools/list_changed); if your list does not refresh, call them with ${Disclosure.toolNames.callTool}.`
].join(" ")

/**
 * The default instructions sent at `initialize` in code mode (`withCode`).
 *
 * @since 0.3.0
 * @category constants
 */
export const codeInstructions = [
  `This server fronts many tools. Call ${Disclosure.toolNames.toolSearch} with a few keywords (or 'select:name1,name2') to`,
  "find and load tools: it answers their TypeScript declarations. Then call",
  `${Disclosure.toolNames.executeCode} with a program that calls them (await tools.name(args)) and returns only what you`,
  "need: filter and combine large results inside the program."
].join(" ")

/**
 * The default settings (the bounds are `GatewayConfig`'s defaults).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults: Options = optionsFrom(GatewayConfig.defaults)

/**
 * The session options a `GatewayConfig` describes.
 *
 * @since 0.2.0
 * @category constructors
 */
export function optionsFrom(settings: GatewayConfig.Settings): Options {
  return {
    name: "tool-search",
    version: PackageVersion.mcp,
    callTool: true,
    instructions: defaultInstructions,
    limits: {
      maxArgumentBytes: settings.maxArgumentBytes,
      maxArgumentDepth: settings.maxArgumentDepth,
      maxResultChars: settings.maxResultChars,
      maxResourceBytes: settings.maxResourceBytes
    },
    maxLoadedTools: settings.maxLoadedTools,
    listChangedDelay: Duration.millis(settings.listChangedDelay),
    resourceTools: settings.resourceTools,
    maxSubscriptions: settings.maxSubscriptions,
    maxSessionCalls: settings.maxSessionCalls,
    maxQueuedCalls: settings.maxQueuedCalls,
    searchBudget: settings.searchBudget
  }
}

/**
 * The principal a session belongs to (`HttpGateway` makes one per principal of its tokens): its
 * policy, its feedback and its quota on requests in flight apply to the session.
 *
 * @since 0.3.0
 * @category models
 */
export type Tenant = SessionTenant.SessionTenant

/**
 * A session's stored copy (`SessionState`, through `HttpGateway`): what it had loaded, adopted when
 * the session opens here; where what it loads and unloads is written; and news of another
 * instance changing it, which the session follows.
 *
 * @since 0.2.0
 * @category models
 */
export type Persisted = SessionSync.Persisted

// -----------------------------------------------------------------------------
// Sessions
// -----------------------------------------------------------------------------

/**
 * Opens one client session on an SDK transport, in the current scope: a fresh bounded activation,
 * an SDK `Server` connected to the transport, and a subscription to catalog changes. Returns an
 * effect that completes when the client closes the session. Closing the scope ends the session.
 * With `persisted`, the session starts with the tools its stored copy holds, keeps it written, and
 * follows what other instances change in it; its requests are served from its live copy.
 * With `tenant`, the session is its principal's: the principal's policy, feedback and quota apply.
 *
 * Every request that does work (a call, a search, a read, a completion) takes one of the session's
 * `maxSessionCalls` places, waiting in a queue of `maxQueuedCalls` when they are taken; a request
 * beyond that is refused with -32000 naming the limit, and other sessions are not affected.
 *
 * @since 0.1.0
 * @category sessions
 */
export const open = (
  transport: SdkTransport,
  options: Partial<Options> = {},
  persisted?: Persisted,
  tenant?: Tenant
): Effect.Effect<Effect.Effect<void>, never, ToolCatalog.ToolCatalog | Scope.Scope> =>
  Effect.gen(function*() {
    const sandbox = Option.getOrUndefined(yield* Programs)
    const given: Options = { ...defaults, ...options, limits: { ...defaults.limits, ...options.limits } }
    // code mode tells the client how to use it, unless the instructions are someone's own
    const settings: Options = sandbox !== undefined && given.instructions === defaultInstructions
      ? { ...given, instructions: codeInstructions }
      : given
    const session = () => transport.sessionId ?? "stdio"
    const recorder = Option.getOrUndefined(yield* GatewayAudit)
    // every entry of a principal's session names the principal
    const audit = recorder === undefined || tenant === undefined ? recorder : tenant.audited(recorder)
    // Made before the unit: in code mode the unit's programs call through them.
    const calls = SessionCalls.make({
      sources: Option.getOrUndefined(yield* Sources),
      settings: {
        maxResultChars: settings.limits.maxResultChars,
        searchBudget: settings.searchBudget,
        limits: settings.limits
      },
      observed: SessionCalls.observer(session),
      audit,
      session,
      // the session's stored copy, read again when a call names a tool not loaded here (made below)
      refresh: Effect.suspend(() => sync.refresh)
    })
    const code = sandbox === undefined ? undefined : CodeMode.make({ sandbox, call: calls.program })
    // The session's execution unit: its activation (and revealed resources) live exactly as long
    // as the session scope.
    const view = yield* SessionView.make(settings, Option.getOrUndefined(yield* Resources), audit, session, code)
    const { resources, sources } = view
    const links: SessionCalls.Links = (server, result) =>
      resources === undefined ? result : resources.links(server, result)
    const sync = yield* SessionSync.make(view, persisted)
    yield* sync.adopt
    const catalog = yield* ToolCatalog.ToolCatalog
    const run = yield* FiberSet.makeRuntimePromise<never>()
    const closed = yield* Deferred.make<void>()

    const server = new Server(
      { name: settings.name, version: settings.version },
      {
        capabilities: {
          tools: { listChanged: true },
          logging: {},
          ...(resources === undefined
            ? {}
            : {
              resources: { subscribe: true, listChanged: true },
              prompts: { listChanged: true },
              completions: {}
            })
        },
        instructions: settings.instructions
      }
    )

    // the session's level is the relay's (it also asks the servers for it), not the SDK's own record
    server.removeRequestHandler("logging/setLevel")
    const relay = yield* SessionRelay.make({
      server,
      session,
      sources,
      catalog: resources === undefined ? undefined : Option.getOrUndefined(yield* Resources),
      limits: settings.limits
    })
    const toolList = yield* SessionToolList.make(view)
    const announce = toolList.announce

    // this session's places, then its principal's: a flood waits in its own queue, or is refused
    const admission = Admission.make(settings, tenant)
    const admitted = <A>(effect: Effect.Effect<A>, signal: AbortSignal): Promise<A> =>
      run(admission(effect), { signal })
    /** A reply sent as is, or its JSON-RPC error within the result cap (an upstream's error `data` included). */
    const replied = (reply: Reply) => {
      if (reply._tag === "Ok") return reply.value as never
      const capped = ResultCap.capError(reply.message, reply.data, settings.limits.maxResultChars)
      throw new JsonRpcError(reply.code, capped.message, capped.data)
    }

    const call = (name: string, args: Record<string, unknown>, requestId: string, context: SessionRelay.CallContext) =>
      view.inUnit(calls.handle(name, args, requestId, context, links))

    // Served from the session's live copy (kept in step with the store by `sync`): nothing read or written.
    server.setRequestHandler(ListToolsRequestSchema, () =>
      run(
        // Plain JSON built by `McpTool.toListed`: names, descriptions and object schemas.
        Effect.map(toolList.list, (tools) => ({ tools }) as unknown as SdkListToolsResult)
      ))

    // `tools/call` and the resource methods are handled from the raw request: the SDK's own schema
    // check answers bad params with -32603 and a multi-line dump; here they get -32602 and one
    // line, bounds checked first.
    server.fallbackRequestHandler = async (request, extra) => {
      if (resources !== undefined && SessionResources.METHODS.has(request.method)) {
        return replied(
          await admitted(
            ResourceAudit.recorded(audit, {
              sessionId: session(),
              requestId: String(extra.requestId),
              method: request.method,
              params: request.params
            }, resources.handle(request.method, request.params)),
            extra.signal
          )
        )
      }
      if (SessionRelay.METHODS.has(request.method)) {
        return replied(await admitted(relay.handle(request.method, request.params), extra.signal))
      }
      if (request.method !== "tools/call") {
        throw new JsonRpcError(ErrorCode.MethodNotFound, "Method not found", undefined)
      }
      const checked = checkParams(request.params, settings.limits)
      const answer = typeof checked === "string"
        ? invalidParams(checked)
        : await admitted(
          Effect.tap(
            call(checked.name, checked.args, String(extra.requestId), relay.context(request.params, extra)),
            // A search may have changed this session's list: store it, and tell the client before it gets the result.
            () =>
              Effect.andThen(
                sync.store,
                announce(() => extra.sendNotification({ method: "notifications/tools/list_changed" }))
              )
          ),
          extra.signal
        )
      return replied(answer._tag === "Error" ? answer : { _tag: "Ok", value: answer.result })
    }

    server.onclose = () => {
      Deferred.doneUnsafe(closed, Exit.void)
    }
    // Started at once, so every catalog change after the session opened reaches it.
    yield* toolList.follow(catalog, settings.listChangedDelay, () => server.sendToolListChanged())
    // Another instance changed the stored session: follow it, and tell the client when its list changed.
    const changed = persisted?.changed
    if (changed !== undefined) {
      yield* changed.pipe(
        Effect.andThen(sync.refresh),
        Effect.andThen(announce(() => server.sendToolListChanged())),
        Effect.forever,
        Effect.forkScoped({ startImmediately: true })
      )
    }
    if (resources !== undefined) {
      yield* resources.follow({
        resourcesChanged: () => server.sendResourceListChanged(),
        promptsChanged: () => server.sendPromptListChanged(),
        updated: (uri) => server.sendResourceUpdated({ uri }),
        // the resource tools are offered only when they can do something: the tool list may change
        changed: view.resourceTools ? announce(() => server.sendToolListChanged()) : Effect.void
      })
    }
    yield* Effect.addFinalizer(() => Effect.promise(() => server.close().catch(() => undefined)))
    yield* Effect.promise(() => server.connect(transport))
    return Deferred.await(closed)
  }).pipe((opening) => tenant === undefined ? opening : tenant.within(opening))

/**
 * Serves one client session on an SDK transport until the client closes it.
 *
 * @since 0.1.0
 * @category serving
 */
export const serve = (
  transport: SdkTransport,
  options: Partial<Options> = {}
): Effect.Effect<void, never, ToolCatalog.ToolCatalog> => Effect.scoped(Effect.flatten(open(transport, options)))

/**
 * Serves one client over stdin and stdout (what MCP clients start as a command) until stdin
 * ends. Every line gets an answer: a line that is not JSON -32700, a JSON value that is not a
 * message or a line over `maxMessageBytes` -32600, and the gateway goes on. Nothing else may write
 * to stdout: route logs to stderr (`Logger.LogToStderr`).
 *
 * @since 0.1.0
 * @category serving
 */
export const serveStdio = (
  options: Partial<Options> & {
    readonly stdin?: Readable
    readonly stdout?: Writable
    readonly maxMessageBytes?: number
  } = {}
): Effect.Effect<void, never, ToolCatalog.ToolCatalog> =>
  Effect.gen(function*() {
    const refused = yield* Queue.sliding<string>(64)
    const transport = new StdioServer(
      options.stdin ?? process.stdin,
      options.stdout ?? process.stdout,
      options.maxMessageBytes ?? GatewayConfig.defaults.maxMessageBytes,
      (reason) => void Queue.offerUnsafe(refused, reason)
    )
    yield* Stream.fromQueue(refused).pipe(
      Stream.runForEach((reason) => Effect.logWarning(`stdio: ${reason}`)),
      Effect.forkScoped({ startImmediately: true })
    )
    yield* serve(transport, options)
  }).pipe(Effect.scoped)
