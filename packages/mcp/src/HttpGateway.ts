/**
 * The gateway over Streamable HTTP: one `Gateway` session per `Mcp-Session-Id`, and what a
 * server reachable over a network needs around it.
 *
 * - **Binding**: loopback by default; a non-loopback address is refused unless authentication
 *   is configured.
 * - **Authentication**: bearer tokens (`Authorization: Bearer <token>`), compared in constant
 *   time. A session belongs to the token that opened it: the same session id with another token
 *   is "session not found", so a leaked session id alone is not enough.
 * - **Origin and Host**: a request with an `Origin` header is refused unless the origin is
 *   allowed (the MCP specification requires it, against DNS rebinding); the `Host` header must be
 *   one of the allowed hosts (by default the bound address, and its names on loopback).
 * - **Sessions**: recorded in the `SessionRegistry` in context (in memory by default): at most
 *   `maxSessions`, the one idle the longest evicted first; idle ones expire. A client of a session
 *   that is gone gets 404 "Session not found", and may initialize a new one.
 * - **Stored sessions**: with a `SessionState` in context, each session is stored before its
 *   `initialize` is answered, and its loaded tools are kept there, bound to the credential that
 *   opened the session. A request for a session this process does not serve (it restarted, or
 *   another instance opened it) resumes it from the store when the store holds it for that
 *   credential, without a new `initialize`; otherwise 404 as above. What another instance changes
 *   in a session served here reaches it (and its client, as `list_changed`). A session its client
 *   deletes, or the registry evicts, is removed from the store; an idle one is left to the store's
 *   own expiry (another instance may be serving it); stopping the gateway leaves every session
 *   stored.
 * - **Stopping** (the scope closes): no new connection is accepted; requests in flight are given
 *   up to `drainTimeout` to finish and be answered, then the rest are cut.
 * - **Principals**: each token belongs to a principal (`Principal`, from the tokens file) with its
 *   own policy (the servers and tools its sessions see and may call), its quotas (sessions: a new
 *   one beyond its quota evicts its own idlest session, never another principal's; requests in
 *   flight across its sessions) and its own search feedback unless shared.
 * - **Bodies** over `maxMessageBytes` are refused with 413 before they are read whole, and a JSON-RPC
 *   batch of more than `maxBatchSize` messages with 400, before any of it runs.
 * - **Operations**: `GET /health` (liveness: always 200 while the process serves) and
 *   `GET /ready` (200 once every upstream finished starting, 503 before; the state of each).
 *
 * @since 0.2.0
 */
import {
  StreamableHTTPServerTransport,
  type StreamableHTTPServerTransportOptions
} from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import type { ToolCatalog } from "@tool-search/core"
import { Duration, Effect, Exit, Fiber, FiberSet, Option, Queue, Redacted, Schedule, Scope, Stream } from "effect"
import { createHash, randomUUID, timingSafeEqual } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import * as Gateway from "./Gateway.js"
import * as GatewayConfig from "./GatewayConfig.js"
import { Sources } from "./internal/GatewaySources.js"
import { readBody } from "./internal/RequestBody.js"
import { resumed } from "./internal/ResumedTransport.js"
import * as SessionTenant from "./internal/SessionTenant.js"
import * as Principal from "./Principal.js"
import { makeMemory, SessionRegistry } from "./SessionRegistry.js"
import { SessionState } from "./SessionState.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * Where and how the HTTP gateway listens.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options extends Partial<Gateway.Options> {
  /** 0 picks a free port. */
  readonly port: number
  /** Default `127.0.0.1`. Any other address needs `tokens`. */
  readonly host?: string
  /** Default `/mcp`. */
  readonly path?: string
  /**
   * The bearer tokens clients may send, one per client or team; none: no authentication
   * (loopback only). A session belongs to the token that opened it.
   */
  readonly tokens?: ReadonlyArray<Redacted.Redacted<string>>
  /** Origins allowed to call (browsers send `Origin`); default none. */
  readonly allowedOrigins?: ReadonlyArray<string>
  /** `Host` headers accepted; default the bound address (its names on loopback). */
  readonly allowedHosts?: ReadonlyArray<string>
  /** The largest request body. */
  readonly maxMessageBytes?: number
  /** Session limits of the in-memory registry, when no `SessionRegistry` is in context. */
  readonly maxSessions?: number
  readonly sessionIdleTimeout?: Duration.Input
  /** On stopping, how long requests in flight may take to finish; default 15 seconds. */
  readonly drainTimeout?: Duration.Input
  /**
   * Principals with their tokens and policies (`Principal.parseFile`), besides `tokens` (each of
   * which is a principal of its own, `token-1`, ...).
   */
  readonly principals?: ReadonlyArray<Principal.Principal>
  /** Sessions of one principal, unless its policy says otherwise. */
  readonly maxPrincipalSessions?: number
  /** Requests in flight of one principal across its sessions, unless its policy says otherwise. */
  readonly maxPrincipalCalls?: number
  /** Messages in one JSON-RPC batch. */
  readonly maxBatchSize?: number
  /** Whether each principal's search feedback improves everyone's ranking (default: kept per principal). */
  readonly shareFeedback?: boolean
}

/**
 * A listening HTTP gateway.
 *
 * @since 0.2.0
 * @category models
 */
export interface Address {
  readonly url: string
  readonly port: number
  readonly host: string
}

// -----------------------------------------------------------------------------
// Policy
// -----------------------------------------------------------------------------

/**
 * Whether `host` is a loopback address or name: only such a bind may go without authentication.
 *
 * @since 0.2.0
 * @category policy
 */
export const isLoopback = (host: string): boolean =>
  host === "localhost" || host === "::1" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host)

/** The hosts accepted when none are configured; `undefined` when any is (a wildcard bind, with authentication). */
const defaultHosts = (host: string, port: number): ReadonlyArray<string> | undefined => {
  if (isLoopback(host)) return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]
  if (host === "0.0.0.0" || host === "::") return undefined
  return [`${host.includes(":") ? `[${host}]` : host}:${port}`]
}

/**
 * The origins of the gateway's own pages on a loopback bind (`http://127.0.0.1:<port>`,
 * `http://localhost:<port>`, `http://[::1]:<port>`): a browser page served from the same loopback
 * address and port is the gateway itself, not a foreign site. None on any other bind.
 */
const ownOrigins = (host: string, port: number): ReadonlyArray<string> =>
  isLoopback(host) ? [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`] : []

/** A digest of a credential: what a session is bound to, never the credential itself. */
const digest = (text: string): Buffer => createHash("sha256").update(text).digest()

/** The bearer token of a request, if any. */
const bearer = (req: IncomingMessage): string | undefined => {
  const header = req.headers.authorization
  const match = typeof header === "string" ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null
  return match?.[1]
}

// -----------------------------------------------------------------------------
// Server
// -----------------------------------------------------------------------------

/**
 * Serves Streamable HTTP on `host:port` at `path` until the scope closes. Fails with a
 * `GatewayError` when the address is not loopback and no token is given, or the port is taken.
 *
 * @since 0.2.0
 * @category constructors
 */
export const serve = (
  options: Options
): Effect.Effect<Address, Gateway.GatewayError, ToolCatalog.ToolCatalog | Scope.Scope> =>
  Effect.gen(function*() {
    const host = options.host ?? "127.0.0.1"
    const path = options.path ?? "/mcp"
    const tenants = SessionTenant.forPrincipals(
      [...(options.tokens ?? []).map((t, i) => Principal.make(`token-${i + 1}`, [t])), ...(options.principals ?? [])],
      {
        maxCalls: options.maxPrincipalCalls ?? GatewayConfig.defaults.maxPrincipalCalls,
        maxSessions: options.maxPrincipalSessions ?? GatewayConfig.defaults.maxPrincipalSessions,
        shareFeedback: options.shareFeedback ?? GatewayConfig.defaults.shareFeedback
      }
    )
    // each token's digest, with its principal's share of the gateway
    const tokens = tenants.byToken.map((t) => ({ ...t, digest: digest(Redacted.value(t.token)) }))
    const maxBatch = options.maxBatchSize ?? GatewayConfig.defaults.maxBatchSize
    const maxBody = options.maxMessageBytes ?? GatewayConfig.defaults.maxMessageBytes
    if (!isLoopback(host) && tokens.length === 0) {
      return yield* new Gateway.GatewayError({
        reason: `refusing to listen on ${host} without authentication: set a bearer token (the variable named by ` +
          `authTokenEnv, TOOL_SEARCH_AUTH_TOKEN by default, or authTokenFile), or bind 127.0.0.1`
      })
    }
    const origins = new Set(options.allowedOrigins ?? [])
    // the default: sessions in this process's memory, with the gateway's limits
    const registry = Option.getOrElse(yield* Effect.serviceOption(SessionRegistry), () =>
      makeMemory({
        maxSessions: options.maxSessions ?? GatewayConfig.defaults.maxSessions,
        idleTimeout: options.sessionIdleTimeout ?? Duration.seconds(GatewayConfig.defaults.sessionIdleTimeout)
      }))
    const sources = Option.getOrUndefined(yield* Sources)
    const state = Option.getOrUndefined(yield* Effect.serviceOption(SessionState))
    const scope = yield* Scope.Scope
    // every session lives in here: it closes after the server stopped and its requests were drained
    const sessions = yield* Scope.fork(scope)
    const run = yield* FiberSet.makeRuntimePromise<ToolCatalog.ToolCatalog>()
    /**
     * The live part of each session: its transport, its scope, the credential it belongs to, and
     * where news of another instance changing it is posted.
     */
    interface Live {
      readonly transport: StreamableHTTPServerTransport
      readonly scope: Scope.Closeable
      readonly principal: string
      readonly changed: Queue.Queue<void>
    }
    /** Who a request comes from: its credential's key, and the principal it belongs to. */
    interface Caller extends SessionTenant.Share {
      readonly key: string
    }
    const ownerOf = (caller: Caller) => ({ name: caller.principal.name, quota: caller.quota })
    const live = new Map<string, Live>()
    /**
     * Sessions being resumed from the store, by credential and id: concurrent requests of one
     * credential for one session wait for the same attempt, and another credential's request for
     * the same id never decides the outcome of the owner's.
     */
    const resuming = new Map<string, Promise<Live | undefined>>()
    // known once the port is: `undefined` accepts any Host (a wildcard bind, behind authentication)
    const hosts: { allowed: ReadonlyArray<string> | undefined } = { allowed: [] }

    /** Ends a live session; with `forget`, its stored copy goes too (evicted, not merely idle here). */
    const end = (id: string, forget = false) =>
      Effect.gen(function*() {
        const session = live.get(id)
        live.delete(id)
        yield* registry.remove(id)
        if (session === undefined) return
        if (forget && state !== undefined) yield* state.remove(id, session.principal)
        yield* Scope.close(session.scope, Exit.void)
      })
    const evict = (id: string) => end(id, true)

    const transportOptions = (principal: string): StreamableHTTPServerTransportOptions => ({
      sessionIdGenerator: randomUUID,
      maxRequestBodySize: options.maxMessageBytes ?? GatewayConfig.defaults.maxMessageBytes,
      // the client deleted its session: it goes from the store too
      onsessionclosed: (id) => state === undefined ? undefined : run(state.remove(id, principal))
    })

    /**
     * Opens a gateway session on `transport` in a new scope; the session closes itself when its
     * client goes away. With a store, the session keeps its loaded tools there.
     */
    const openSession = (transport: StreamableHTTPServerTransport, caller: Caller) =>
      Effect.gen(function*() {
        const principal = caller.key
        const sessionScope = yield* Scope.fork(sessions)
        const changed = yield* Queue.sliding<void>(1)
        const id = () => transport.sessionId
        const persisted: Gateway.Persisted | undefined = state === undefined ? undefined : {
          load: Effect.suspend(() => {
            const sessionId = id()
            return sessionId === undefined ? Effect.succeedNone : state.load(sessionId, principal)
          }),
          change: (change) =>
            Effect.suspend(() => {
              const sessionId = id()
              return sessionId === undefined ? Effect.void : state.change(sessionId, principal, change)
            }),
          changed: Queue.take(changed)
        }
        const closed = yield* Gateway.open(transport, options, persisted, caller.tenant).pipe(
          Scope.provide(sessionScope)
        )
        yield* closed.pipe(
          Effect.andThen(Effect.suspend(() => {
            const sessionId = id()
            return sessionId === undefined ? Effect.void : end(sessionId)
          })),
          Effect.forkIn(sessions)
        )
        return { scope: sessionScope, changed }
      })

    /** Opens a session for an `initialize` request. */
    const startSession = async (req: IncomingMessage, res: ServerResponse, caller: Caller, body: unknown) => {
      const principal = caller.key
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        ...transportOptions(principal),
        // before the `initialize` is answered: stored, so that its next request may go to any instance
        onsessioninitialized: async (id) => {
          live.set(id, { transport, ...opened, principal })
          if (state !== undefined) await run(state.open(id, principal))
        }
      })
      const opened = await run(openSession(transport, caller))
      await transport.handleRequest(req, res, body)
      const id = transport.sessionId
      // Not an `initialize` the transport accepted: no session was created, so nothing is kept.
      if (id === undefined) return run(Scope.close(opened.scope, Exit.void))
      const evicted = await run(registry.open(id, principal, ownerOf(caller)))
      await run(Effect.forEach(evicted, evict, { discard: true }))
    }

    /** Takes over a session the store holds for `principal`, or answers undefined. */
    const resume = (id: string, caller: Caller): Promise<Live | undefined> => {
      const principal = caller.key
      const key = `${principal} ${id}`
      const pending = resuming.get(key)
      if (pending !== undefined) return pending
      const attempt = (async () => {
        if (state === undefined || Option.isNone(await run(state.load(id, principal)))) return undefined
        // another credential's attempt may have failed meanwhile, or the owner's own succeeded
        const served = live.get(id)
        if (served !== undefined) return served.principal === principal ? served : undefined
        const transport = resumed(id, transportOptions(principal))
        const session: Live = { transport, ...await run(openSession(transport, caller)), principal }
        live.set(id, session)
        const evicted = await run(registry.open(id, principal, ownerOf(caller)))
        await run(Effect.forEach(evicted, evict, { discard: true }))
        return session
      })().finally(() => resuming.delete(key))
      resuming.set(key, attempt)
      return attempt
    }

    const ready = async (res: ServerResponse) => {
      const status = sources === undefined ? [] : await run(sources.status)
      const starting = status.some((s) => s.state === "starting")
      json(res, starting ? 503 : 200, {
        ready: !starting,
        servers: status.map((s) => ({
          name: s.name,
          state: s.state,
          tools: s.tools,
          ...(s.error === undefined ? {} : { error: s.error.message })
        }))
      })
    }

    const handle = async (req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? "/", "http://localhost")
      if (url.pathname === "/health" && req.method === "GET") return json(res, 200, { status: "ok" })
      if (url.pathname !== path && url.pathname !== "/ready") return reply(res, 404, "Not found")
      const hostHeader = req.headers.host
      if (hosts.allowed !== undefined && (hostHeader === undefined || !hosts.allowed.includes(hostHeader))) {
        return reply(res, 403, `Host ${JSON.stringify(hostHeader ?? "")} is not allowed (allowedHosts)`)
      }
      const origin = req.headers.origin
      if (origin !== undefined && !origins.has(origin)) {
        return reply(res, 403, `Origin ${JSON.stringify(origin)} is not allowed (allowedOrigins)`)
      }
      let principal = ""
      let caller: Caller = { key: "", ...tenants.anonymous }
      if (tokens.length > 0) {
        const token = bearer(req)
        // every token is compared, in constant time, whatever matched before
        const given = digest(token ?? "")
        const matched = tokens.reduce<typeof tokens[number] | undefined>(
          (found, t) => timingSafeEqual(given, t.digest) && found === undefined ? t : found,
          undefined
        )
        if (token === undefined || matched === undefined) {
          res.setHeader("www-authenticate", "Bearer")
          return reply(res, 401, "Unauthorized: send Authorization: Bearer <token>")
        }
        principal = digest(`session:${token}`).toString("hex")
        caller = { key: principal, ...matched }
      }
      if (url.pathname === "/ready") return ready(res)
      // a POST body is read (bounded) and checked here, before any of it runs
      let body: unknown
      if (req.method === "POST") {
        const read = await readBody(req, maxBody, maxBatch)
        if (read._tag === "Refused") return reply(res, read.status, read.message, read.code)
        body = read.body
      }
      const id = req.headers["mcp-session-id"]
      if (typeof id === "string") {
        const known = await run(registry.touch(id, principal))
        const served = live.get(id)
        // Not served here: the store may hold it (for this credential only).
        const session = served === undefined ? await resume(id, caller) : Option.isSome(known) ? served : undefined
        // Unknown, expired (the sweeper ends it) or opened with another credential: the same answer,
        // and nothing happens to the session itself.
        if (session?.principal !== principal) return reply(res, 404, "Session not found", -32001)
        await session.transport.handleRequest(req, res, body)
        // the end of a request is a use too: a long call does not make its session look idle
        await run(
          Effect.andThen(registry.touch(id, principal), state === undefined ? Effect.void : state.touch(id, principal))
        )
        return
      }
      if (req.method !== "POST") return reply(res, 400, "No valid session id: start with an initialize request")
      return startSession(req, res, caller, body)
    }

    // requests being answered (not the event streams a client keeps open): on stopping, they may finish
    let inFlight = 0
    let drained: (() => void) | undefined
    const server = createServer((req, res) => {
      const counted = req.method !== "GET"
      if (counted) inFlight++
      handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) reply(res, 500, error instanceof Error ? error.message : String(error))
      }).finally(() => {
        if (!counted) return
        inFlight--
        if (inFlight === 0) drained?.()
      })
    })
    const port = yield* Effect.callback<number, Gateway.GatewayError>((resume) => {
      const onError = (error: Error) => resume(Effect.fail(new Gateway.GatewayError({ reason: error.message })))
      server.once("error", onError)
      server.listen(options.port, host, () => {
        server.off("error", onError)
        resume(Effect.succeed((server.address() as AddressInfo).port))
      })
    })
    // Stopping: no new connections; the requests in flight finish (up to the drain timeout), then the rest is cut.
    const drainTimeout = Duration.fromInputUnsafe(options.drainTimeout ?? "15 seconds")
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        const closed = Effect.callback<void>((resume) => {
          server.close(() => resume(Effect.void))
          server.closeIdleConnections()
        })
        const finished = Effect.callback<void>((resume) => {
          drained = () => resume(Effect.void)
          if (inFlight === 0) resume(Effect.void)
        })
        const waited = yield* Effect.forkChild(closed)
        const done = yield* Effect.timeoutOption(finished, drainTimeout)
        if (Option.isNone(done)) {
          yield* Effect.logWarning(
            `gateway: stopping with ${inFlight} request(s) unfinished after ${Duration.format(drainTimeout)}`
          )
        }
        server.closeAllConnections()
        yield* Effect.asVoid(Effect.exit(Fiber.join(waited)))
      })
    )
    hosts.allowed = options.allowedHosts !== undefined && options.allowedHosts.length > 0
      ? options.allowedHosts
      : defaultHosts(host, port)
    for (const own of ownOrigins(host, port)) origins.add(own)
    // Idle sessions expire: swept at a quarter of the timeout (at most every minute).
    const sweepEvery = Duration.min(Duration.divideUnsafe(registry.idleTimeout, 4), Duration.minutes(1))
    yield* registry.expire.pipe(
      Effect.flatMap((ids) => Effect.forEach(ids, (id) => end(id), { discard: true })),
      Effect.repeat(Schedule.spaced(sweepEvery)),
      Effect.forkScoped({ startImmediately: true })
    )
    // What other instances change in the sessions served here: the session follows (or ends, when closed there).
    if (state !== undefined) {
      yield* state.changes.pipe(
        Stream.runForEach((change) => {
          if (change._tag === "Resync") {
            return Effect.forEach(live.values(), (session) => Queue.offer(session.changed, undefined), {
              discard: true
            })
          }
          const session = live.get(change.id)
          if (session === undefined || session.principal !== change.principal) return Effect.void
          return change._tag === "Changed" ? Queue.offer(session.changed, undefined) : end(change.id)
        }),
        Effect.forkScoped({ startImmediately: true })
      )
    }
    const shown = host.includes(":") ? `[${host}]` : host
    return { url: `http://${shown}:${port}${path}`, port, host }
  })

const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify(body))
}

const reply = (res: ServerResponse, status: number, message: string, code = -32000): void =>
  json(res, status, { jsonrpc: "2.0", error: { code, message }, id: null })
