/**
 * What can go wrong with an upstream MCP server. Every error names the server, and the tool when
 * there is one, so an operator reading a log line or a model reading a tool result knows which
 * server to look at. One server's errors never stop the others.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * The server could not be started or initialized (bad command, crash at start, hang, refused connection).
 *
 * @since 0.1.0
 * @category errors
 */
export class ServerStartFailed extends Schema.TaggedError<ServerStartFailed>()("ServerStartFailed", {
  server: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `MCP server '${this.server}' failed to start: ${this.reason}`
  }
}

/**
 * The server is not connected right now (it is starting or reconnecting); nothing was sent to it.
 *
 * @since 0.1.0
 * @category errors
 */
export class ServerUnavailable extends Schema.TaggedError<ServerUnavailable>()("ServerUnavailable", {
  server: Schema.String,
  tool: Schema.optionalKey(Schema.String),
  reason: Schema.String
}) {
  override get message(): string {
    const what = this.tool === undefined ? "" : ` to call '${this.tool}'`
    return `MCP server '${this.server}' is not available${what}: ${this.reason}`
  }
}

/**
 * The connection to the server was lost while a request was in flight (the process died, the socket closed).
 *
 * @since 0.1.0
 * @category errors
 */
export class ConnectionLost extends Schema.TaggedError<ConnectionLost>()("ConnectionLost", {
  server: Schema.String,
  tool: Schema.optionalKey(Schema.String),
  reason: Schema.String
}) {
  override get message(): string {
    const during = this.tool === undefined ? "" : ` during the call to '${this.tool}'`
    return `MCP server '${this.server}' lost its connection${during}: ${this.reason}; it is being restarted`
  }
}

/**
 * The server did not answer in time.
 *
 * @since 0.1.0
 * @category errors
 */
export class ServerTimeout extends Schema.TaggedError<ServerTimeout>()("ServerTimeout", {
  server: Schema.String,
  operation: Schema.String,
  tool: Schema.optionalKey(Schema.String),
  millis: Schema.Number
}) {
  override get message(): string {
    const what = this.tool === undefined ? this.operation : `${this.operation} '${this.tool}'`
    return `MCP server '${this.server}' did not answer ${what} within ${this.millis} ms`
  }
}

/**
 * The server answered something that is not MCP (a malformed `tools/list` or call result).
 *
 * @since 0.1.0
 * @category errors
 */
export class ServerProtocolError extends Schema.TaggedError<ServerProtocolError>()("ServerProtocolError", {
  server: Schema.String,
  tool: Schema.optionalKey(Schema.String),
  reason: Schema.String
}) {
  override get message(): string {
    const what = this.tool === undefined ? "" : ` for '${this.tool}'`
    return `MCP server '${this.server}' sent an invalid answer${what}: ${this.reason}`
  }
}

/**
 * One tool of a server cannot join the catalog (invalid schema, reserved or duplicate name); the rest do.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidServerTool extends Schema.TaggedError<InvalidServerTool>()("InvalidServerTool", {
  server: Schema.String,
  tool: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `MCP server '${this.server}' declares an unusable tool '${this.tool}': ${this.reason}`
  }
}

/**
 * The server answered a call with a JSON-RPC error. `code`, `reason` (the wire `message`) and
 * `data` are exactly what the server sent, so a gateway can forward the error unchanged.
 *
 * @since 0.1.0
 * @category errors
 */
export class UpstreamError extends Schema.TaggedError<UpstreamError>()("UpstreamError", {
  server: Schema.String,
  tool: Schema.String,
  code: Schema.Number,
  reason: Schema.String,
  data: Schema.optionalKey(Schema.Unknown)
}) {
  override get message(): string {
    return `MCP server '${this.server}' answered the call to '${this.tool}' with error ${this.code}: ${this.reason}`
  }
}

/**
 * A request to the server failed without reaching it or without breaking the connection: the
 * gateway could not send it as asked (an HTTP answer such as 413), or failed itself. The server
 * keeps running and is not restarted: only a transport failure restarts a server.
 *
 * @since 0.2.0
 * @category errors
 */
export class RequestFailed extends Schema.TaggedError<RequestFailed>()("RequestFailed", {
  server: Schema.String,
  tool: Schema.optionalKey(Schema.String),
  reason: Schema.String
}) {
  override get message(): string {
    const what = this.tool === undefined ? "A request" : `The call to '${this.tool}'`
    return `${what} on MCP server '${this.server}' failed: ${this.reason}`
  }
}

/**
 * The server name is not one of the configured upstreams.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnknownServer extends Schema.TaggedError<UnknownServer>()("UnknownServer", {
  server: Schema.String
}) {
  override get message(): string {
    return `No MCP server named '${this.server}' is configured`
  }
}

/**
 * Why a connection attempt failed.
 *
 * @since 0.1.0
 * @category models
 */
export type ConnectError = ServerStartFailed | ServerTimeout | ServerProtocolError | ConnectionLost | RequestFailed

/**
 * Why a tool call failed without a result from the tool.
 *
 * @since 0.1.0
 * @category models
 */
export type CallError =
  | ServerUnavailable
  | ConnectionLost
  | RequestFailed
  | ServerTimeout
  | ServerProtocolError
  | UpstreamError
  | UnknownServer

/**
 * Anything the import reports about a server.
 *
 * @since 0.1.0
 * @category models
 */
export type McpError = ConnectError | CallError | InvalidServerTool
