/**
 * Requests to one upstream through the SDK `Client`, and how their failures are sorted: every
 * page of a listing (a repeated cursor or an endless listing is a protocol error), and the typed
 * error of a failed request — only a closed connection or a transport failure means the connection
 * is gone; a JSON-RPC error answer is kept exactly; anything else is the answer being unusable or
 * the gateway failing, and never restarts the server.
 *
 * @internal
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Transport as SdkTransport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { ErrorCode, McpError as SdkMcpError, ResultSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Schema } from "effect"
import {
  type CallError,
  type ConnectError,
  ConnectionLost,
  RequestFailed,
  ServerProtocolError,
  UpstreamError
} from "../McpError.js"
import { isTooLarge } from "./StdioClient.js"

/** The longest timer Node accepts: SDK deadlines are disabled, the Effect ones apply. */
export const NO_SDK_TIMEOUT = 2 ** 31 - 1

/** How many pages a listing may take before the server is considered broken (a cursor loop). */
const MAX_PAGES = 1000

/** A failure of the transport itself while sending: the one kind of error that means the connection is gone. */
export class TransportFailure extends Error {
  constructor(readonly failure: unknown) {
    super(describeCause(failure))
  }
}

/** Marks every error of `send` as a `TransportFailure`, so that it is not mistaken for anything else. */
export const guard = (transport: SdkTransport): SdkTransport => {
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

/** One listing page: its entries raw (each decoded on its own later), and the next cursor. */
const pageOf = (field: string) =>
  Schema.Struct({
    [field]: Schema.Array(Schema.Unknown),
    nextCursor: Schema.optionalKey(Schema.NullOr(Schema.String))
  })

/**
 * All pages of a listing (`tools/list` → `tools`, `resources/list` → `resources`, ...), entries
 * raw. A repeated cursor or an endless listing is a protocol error. With `unimplementedIsEmpty`, a
 * server answering the first page with "Method not found" lists nothing (servers that declare
 * resources but never implemented `resources/templates/list`).
 */
export const listAll = (
  client: Client,
  server: string,
  method: string,
  field: string,
  options: { readonly unimplementedIsEmpty?: boolean } = {}
): Effect.Effect<ReadonlyArray<unknown>, ConnectError> => {
  const page = pageOf(field)
  return Effect.gen(function*() {
    const entries: Array<unknown> = []
    const seen = new Set<string>()
    let cursor: string | undefined
    for (let n = 0; n < MAX_PAGES; n++) {
      const params = cursor === undefined ? {} : { cursor }
      const first = n === 0
      const raw = yield* Effect.tryPromise({
        try: (signal) =>
          client.request({ method, params }, ResultSchema, { signal, timeout: NO_SDK_TIMEOUT }).catch(
            (cause: unknown) => {
              if (
                first && options.unimplementedIsEmpty === true && cause instanceof SdkMcpError &&
                cause.code === ErrorCode.MethodNotFound
              ) return undefined
              throw cause
            }
          ),
        catch: (cause) => listFailure(server, method, cause)
      })
      if (raw === undefined) return entries
      const result = yield* Schema.decodeUnknownEffect(page)(raw).pipe(
        Effect.mapError((e) => new ServerProtocolError({ server, reason: `${method}: ${e.message}` }))
      )
      entries.push(...(result[field] as ReadonlyArray<unknown>))
      const next = result.nextCursor
      if (next === undefined || next === null) return entries
      if (seen.has(next)) {
        return yield* new ServerProtocolError({
          server,
          reason: `${method} repeated the cursor ${JSON.stringify(next)}`
        })
      }
      seen.add(next)
      cursor = next
    }
    return yield* new ServerProtocolError({ server, reason: `${method} did not end after ${MAX_PAGES} pages` })
  })
}

/**
 * Sorts a failed listing: only a closed connection or a transport failure means the connection is
 * gone; an error answer, an answer over the size bound or anything else is the server's answer
 * being unusable, which another attempt will not fix by restarting.
 */
const listFailure = (server: string, method: string, cause: unknown): ConnectError => {
  if (cause instanceof SdkMcpError && cause.code === ErrorCode.ConnectionClosed) {
    return new ConnectionLost({ server, reason: describeCause(cause) })
  }
  if (cause instanceof TransportFailure) {
    return isLost(cause)
      ? new ConnectionLost({ server, reason: cause.message })
      : new RequestFailed({ server, reason: `${method}: ${cause.message}` })
  }
  return new ServerProtocolError({ server, reason: `${method} failed: ${describeCause(cause)}` })
}

/**
 * Sorts a failed request about `target` (a tool, a resource URI, a prompt name). A JSON-RPC error
 * from the server is kept exactly (code, message, data). A closed connection or a transport
 * failure means the connection is gone. An answer over the size bound or one the SDK could not
 * read is a protocol error of that request; anything else failed in the gateway. Neither restarts
 * the server: its other requests are not affected.
 */
export const requestFailure = (server: string, target: string, cause: unknown, tail: () => string): CallError => {
  if (cause instanceof SdkMcpError) {
    if (cause.code === ErrorCode.ConnectionClosed) {
      return new ConnectionLost({ server, tool: target, reason: `${wireMessage(cause)}${tail()}` })
    }
    if (isTooLarge(cause.data)) return new ServerProtocolError({ server, tool: target, reason: wireMessage(cause) })
    return new UpstreamError({
      server,
      tool: target,
      code: cause.code,
      reason: wireMessage(cause),
      ...(cause.data === undefined ? {} : { data: cause.data })
    })
  }
  if (cause instanceof TransportFailure) {
    return isLost(cause)
      ? new ConnectionLost({ server, tool: target, reason: cause.message })
      : new RequestFailed({ server, tool: target, reason: cause.message })
  }
  if (isSchemaError(cause)) return new ServerProtocolError({ server, tool: target, reason: describeCause(cause) })
  return new RequestFailed({ server, tool: target, reason: describeCause(cause) })
}

/** The SDK prefixes `MCP error <code>: ` to the message it received; this is the message on the wire. */
export const wireMessage = (error: SdkMcpError): string => {
  const prefix = `MCP error ${error.code}: `
  return error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message
}

/** A failure in words. */
export const describeCause = (cause: unknown): string =>
  cause instanceof SdkMcpError ? wireMessage(cause) : cause instanceof Error ? cause.message : String(cause)
