/**
 * What makes a gateway session a transparent proxy besides tools and resources: its logging level
 * (`logging/setLevel`, which also asks the servers for that level), argument completions
 * (`completion/complete`, forwarded to the server of the prompt or template), and, for each
 * forwarded call, the `Caller` through which the server's log lines, progress, sampling and
 * elicitation requests reach this session's client — on the stream of that call.
 *
 * @internal
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js"
import {
  ErrorCode,
  ResultSchema,
  type ServerNotification,
  type ServerRequest
} from "@modelcontextprotocol/sdk/types.js"
import { Permission, type ResourceCatalog, Visibility } from "@tool-search/core"
import { Effect, Predicate } from "effect"
import { randomUUID } from "node:crypto"
import type { Limits } from "../Gateway.js"
import type { Service as Sources } from "../McpSources.js"
import type { Caller, Level } from "./ClientRelay.js"
import { isLevel, LEVELS } from "./ClientRelay.js"
import * as Completions from "./Completions.js"
import { error, invalid, ok, type Reply } from "./SessionReplies.js"

/** The extra of an SDK request handler. */
export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>

/** What a forwarded call carries besides its arguments. */
export interface CallContext {
  /** How the server reaches the session's client during the call. */
  readonly caller: Caller
  /** Forwards the server's progress of the call, under the client's progress token. */
  readonly onProgress?: (progress: Record<string, unknown>) => void
}

/** The methods a session relay answers. */
export const METHODS: ReadonlySet<string> = new Set(["logging/setLevel", "completion/complete"])

/** One session's relay. */
export interface SessionRelay {
  /** `logging/setLevel` or `completion/complete`. */
  readonly handle: (method: string, params: unknown) => Effect.Effect<Reply>
  /** The context of a forwarded `tools/call` handled with `extra`. */
  readonly context: (params: unknown, extra: Extra) => CallContext
}

/** The relay of a session served by `server`, `session` naming it. */
export const make = (deps: {
  readonly server: Server
  readonly session: () => string
  readonly sources: Sources | undefined
  readonly catalog: ResourceCatalog.Service | undefined
  readonly limits: Limits
}) =>
  Effect.gen(function*() {
    const { server, sources } = deps
    let level: Level | undefined
    // this session, distinct from every other (over stdio or in memory, sessions share an id)
    const key = `${deps.session()} ${randomUUID()}`
    const complete = deps.catalog === undefined ? undefined : Completions.make({
      catalog: deps.catalog,
      upstream: sources?.resources,
      visibility: yield* Visibility.Visibility,
      permission: yield* Permission.Permission,
      complete: (name, params) => sources === undefined ? Effect.die("no sources") : sources.complete(name, params),
      maxArgumentBytes: deps.limits.maxArgumentBytes,
      maxArgumentDepth: deps.limits.maxArgumentDepth
    })

    const setLevel = (params: unknown): Effect.Effect<Reply> => {
      const asked = Predicate.isObject(params) ? params["level"] : undefined
      if (!isLevel(asked)) return Effect.succeed(invalid(`logging/setLevel needs "level": one of ${LEVELS.join(", ")}`))
      level = asked
      return Effect.as(sources === undefined ? Effect.void : sources.setLogLevel(asked), ok({}))
    }

    const handle = (method: string, params: unknown): Effect.Effect<Reply> =>
      method === "logging/setLevel"
        ? setLevel(params)
        : method === "completion/complete" && complete !== undefined
        ? complete(params)
        : Effect.succeed(error(ErrorCode.MethodNotFound, "Method not found"))

    const context = (params: unknown, extra: Extra): CallContext => {
      const meta = Predicate.isObject(params) && Predicate.isObject(params["_meta"]) ? params["_meta"] : {}
      const token = meta["progressToken"]
      const caller: Caller = {
        session: key,
        level: () => level,
        notify: (method, notification) =>
          extra.sendNotification({ method, params: notification } as ServerNotification),
        request: (method, request, signal) =>
          extra.sendRequest({ method, params: request } as ServerRequest, ResultSchema, { signal }),
        accepts: (method) => {
          const capabilities = server.getClientCapabilities()
          return method === "sampling/createMessage"
            ? capabilities?.sampling !== undefined
            : capabilities?.elicitation !== undefined
        }
      }
      return typeof token === "string" || typeof token === "number"
        ? {
          caller,
          onProgress: (progress) =>
            void extra.sendNotification({
              method: "notifications/progress",
              params: { ...progress, progressToken: token }
            } as ServerNotification).catch(() => undefined)
        }
        : { caller }
    }

    return { handle, context } satisfies SessionRelay
  })
