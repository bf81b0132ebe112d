/**
 * What an upstream server sends to "its client" while the gateway is that client: log lines
 * (`notifications/message`) and requests (`sampling/createMessage`, `elicitation/create`). The
 * upstream connection is shared by every session, and MCP ties none of these messages to the
 * request that caused them, so they are routed by the calls in flight: each forwarded request
 * registers its session on its server while it runs, and a message from that server goes to the
 * session with calls in flight there — on the stream of one of its requests, so that a Streamable
 * HTTP client receives it during the call.
 *
 * When calls of more than one session are in flight on the server, the message cannot be
 * attributed: a log line is dropped (never shown to a client that might not be its audience), and
 * a request is refused with an error naming why, so that nothing of one session's work reaches
 * another session. With no call in flight, the same.
 *
 * @internal
 */
import { ErrorCode, McpError as SdkMcpError } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import type { McpConnection } from "../McpConnection.js"

/** The MCP logging levels, least severe first. */
export const LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const

/** A logging level. */
export type Level = typeof LEVELS[number]

/** Whether `value` is a logging level. */
export const isLevel = (value: unknown): value is Level => (LEVELS as ReadonlyArray<unknown>).includes(value)

/** The server-to-client requests the gateway relays. */
export type RelayedMethod = "sampling/createMessage" | "elicitation/create"

/** One forwarded request of a session, while it runs upstream: how to reach the session's client. */
export interface Caller {
  /** The session (its id, or a per-session key). */
  readonly session: string
  /** The level the session asked for (`logging/setLevel`); undefined: every message. */
  readonly level: () => Level | undefined
  /** Sends a notification to the session's client, on the stream of this request. */
  readonly notify: (method: string, params: Record<string, unknown>) => Promise<void>
  /** Sends a request to the session's client, on the stream of this request; its result raw. */
  readonly request: (method: RelayedMethod, params: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>
  /** Whether the session's client declared it can answer `method`. */
  readonly accepts: (method: RelayedMethod) => boolean
}

/** The calls in flight per server, and the routing of what a server sends to its client. */
export interface ClientRelay {
  /** Registers `caller` on `server` while `effect` runs. */
  readonly during: <A, E, R>(server: string, caller: Caller, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** A log line of `server`: to the one session with calls in flight there, at or above its level. */
  readonly message: (server: string, params: Record<string, unknown>) => void
  /** A request of `server` to its client: to the one session with calls in flight there, or refused. */
  readonly request: (
    server: string,
    method: RelayedMethod,
    params: Record<string, unknown>,
    signal: AbortSignal
  ) => Promise<unknown>
}

/** A relay with no call in flight. */
export const make = (): ClientRelay => {
  const inFlight = new Map<string, Set<Caller>>()

  /** The one session with calls in flight on `server` (its latest call), or why there is none. */
  const route = (server: string): Caller | string => {
    const callers = [...inFlight.get(server) ?? []]
    const last = callers[callers.length - 1]
    if (last === undefined) return `no call of a client session is in flight on MCP server '${server}'`
    if (callers.some((c) => c.session !== last.session)) {
      return `calls of several client sessions are in flight on MCP server '${server}': the gateway cannot tell ` +
        "which one this is for"
    }
    return last
  }

  return {
    during: (server, caller, effect) =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          let callers = inFlight.get(server)
          if (callers === undefined) inFlight.set(server, callers = new Set())
          callers.add(caller)
          return callers
        }),
        () => effect,
        (callers) =>
          Effect.sync(() => {
            callers.delete(caller)
            if (callers.size === 0) inFlight.delete(server)
          })
      ),
    message: (server, params) => {
      const caller = route(server)
      if (typeof caller === "string") return
      const level = caller.level()
      const severity = LEVELS.indexOf(isLevel(params["level"]) ? params["level"] : "info")
      if (level !== undefined && severity < LEVELS.indexOf(level)) return
      void caller.notify("notifications/message", params).catch(() => undefined)
    },
    request: (server, method, params, signal) => {
      const caller = route(server)
      if (typeof caller === "string") {
        return Promise.reject(new SdkMcpError(ErrorCode.InvalidRequest, `${method} refused by the gateway: ${caller}`))
      }
      if (!caller.accepts(method)) {
        return Promise.reject(
          new SdkMcpError(ErrorCode.InvalidRequest, `${method} refused by the gateway: the client does not support it`)
        )
      }
      return caller.request(method, params, signal)
    }
  }
}

/**
 * The logging level asked of the servers: the most verbose any client session asked for so far,
 * sent to every connected server that logs (and, by the supervisor, to each that connects later).
 */
export const logLevels = (connections: () => Iterable<McpConnection>) => {
  let current: Level | undefined
  return {
    current: (): Level | undefined => current,
    set: (level: Level): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (current !== undefined && LEVELS.indexOf(level) >= LEVELS.indexOf(current)) return Effect.void
        current = level
        return Effect.forEach(
          [...connections()].filter((c) => c.capabilities.logging !== undefined),
          (c) => Effect.ignore(c.request("logging/setLevel", { level }, c.server)),
          { discard: true, concurrency: "unbounded" }
        )
      })
  }
}
