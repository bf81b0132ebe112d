/**
 * tool-search MCP: import the tools of MCP servers into a catalog, and serve a catalog to any MCP
 * client as a gateway with progressive disclosure.
 *
 * The modules, by category, in the order a reader meets them:
 *
 * - **upstreams** — how a server is described (`Upstream`, `CommandLine`) and what can go wrong
 *   (`McpError`)
 * - **wire** — the wire forms of tools (`McpTool`) and of resources and prompts (`McpResource`),
 *   and the gateway's URIs for colliding upstream URIs (`QualifiedUri`)
 * - **import** — one connection (`McpConnection`) and the supervised servers as catalog sources
 *   (`McpSources`)
 * - **gateway** — `Gateway`, `HttpGateway`, `SessionRegistry`, `SessionState`, `GatewayAudit`,
 *   `Telemetry`
 * - **settings** — `GatewayConfig`, `GatewayFile`, and `PackageVersion` (the packages' version)
 * - **errors** — every error class, also at the top level
 *
 * Everything else is in `internal/` and is not part of the API.
 *
 * @since 0.1.0
 */

// -----------------------------------------------------------------------------
// Upstreams
// -----------------------------------------------------------------------------

/**
 * An upstream MCP server: transport, kind, timeouts, reconnection.
 *
 * @since 0.1.0
 * @category upstreams
 */
export * as Upstream from "./Upstream.js"

/**
 * Splitting a command line as a shell would.
 *
 * @since 0.1.0
 * @category upstreams
 */
export * as CommandLine from "./CommandLine.js"

/**
 * Typed errors naming the server and the tool.
 *
 * @since 0.1.0
 * @category upstreams
 */
export * as McpError from "./McpError.js"

// -----------------------------------------------------------------------------
// Wire
// -----------------------------------------------------------------------------

/**
 * MCP tools on the wire and their conversion to and from catalog tools.
 *
 * @since 0.1.0
 * @category wire
 */
export * as McpTool from "./McpTool.js"

/**
 * MCP resources, templates and prompts on the wire, and their import into a resource catalog.
 *
 * @since 0.2.0
 * @category wire
 */
export * as McpResource from "./McpResource.js"

/**
 * The gateway's URIs for upstream resources: `tool-search://<server>/<uri>`.
 *
 * @since 0.2.0
 * @category wire
 */
export * as QualifiedUri from "./QualifiedUri.js"

// -----------------------------------------------------------------------------
// Import
// -----------------------------------------------------------------------------

/**
 * One scoped connection to one MCP server.
 *
 * @since 0.1.0
 * @category import
 */
export * as McpConnection from "./McpConnection.js"

/**
 * Supervised MCP servers as catalog sources.
 *
 * @since 0.1.0
 * @category import
 */
export * as McpSources from "./McpSources.js"

// -----------------------------------------------------------------------------
// Gateway
// -----------------------------------------------------------------------------

/**
 * The MCP gateway: progressive disclosure for any MCP client, one activation per session.
 *
 * @since 0.1.0
 * @category gateway
 */
export * as Gateway from "./Gateway.js"

/**
 * The gateway over Streamable HTTP: authentication, origins, sessions, health and readiness.
 *
 * @since 0.2.0
 * @category gateway
 */
export * as HttpGateway from "./HttpGateway.js"

/**
 * HTTP sessions as records: admission, binding to a credential, expiry.
 *
 * @since 0.2.0
 * @category gateway
 */
export * as SessionRegistry from "./SessionRegistry.js"

/**
 * Who a bearer token belongs to: principals with their own policies and quotas (the tokens file).
 *
 * @since 0.3.0
 * @category gateway
 */
export * as Principal from "./Principal.js"

/**
 * What the gateway keeps to itself: the base environment of the servers it starts, and the
 * credentials of URLs in log lines.
 *
 * @since 0.3.0
 * @category gateway
 */
export * as Secrets from "./Secrets.js"

/**
 * Where HTTP sessions' loaded tools are kept to outlive the process (a database, through the
 * store).
 *
 * @since 0.2.0
 * @category gateway
 */
export * as SessionState from "./SessionState.js"

/**
 * The audit entries the gateway writes: its reveals and calls.
 *
 * @since 0.2.0
 * @category gateway
 */
export * as GatewayAudit from "./GatewayAudit.js"

/**
 * Spans, metrics and their OTLP export.
 *
 * @since 0.2.0
 * @category gateway
 */
export * as Telemetry from "./Telemetry.js"

// -----------------------------------------------------------------------------
// Settings
// -----------------------------------------------------------------------------

/**
 * The gateway's settings: listening, authentication, sessions and the bounds on every input.
 *
 * @since 0.2.0
 * @category settings
 */
export * as GatewayConfig from "./GatewayConfig.js"

/**
 * The config file: MCP clients' `mcpServers`, per-server options and the global settings.
 *
 * @since 0.2.0
 * @category settings
 */
export * as GatewayFile from "./GatewayFile.js"

/**
 * The version of a tool-search package, read from its `package.json`: the one source of every
 * version the packages state.
 *
 * @since 0.2.0
 * @category settings
 */
export * as PackageVersion from "./PackageVersion.js"

// -----------------------------------------------------------------------------
// Errors, also at the top level so that declaration files of dependent code can name them
// -----------------------------------------------------------------------------

export {
  /**
   * A command line that cannot be split; `position` is the 0-based offset of the problem.
   *
   * @since 0.1.0
   * @category errors
   */
  InvalidCommandLine
} from "./CommandLine.js"

export {
  /**
   * The gateway could not start (for example, the port is taken).
   *
   * @since 0.1.0
   * @category errors
   */
  GatewayError
} from "./Gateway.js"

export {
  /**
   * A config file that cannot be used; the message is one line naming the file and the place.
   *
   * @since 0.2.0
   * @category errors
   */
  InvalidGatewayFile
} from "./GatewayFile.js"

export {
  /**
   * The connection to the server was lost while a request was in flight (the process died, the
   * socket closed).
   *
   * @since 0.1.0
   * @category errors
   */
  ConnectionLost,
  /**
   * One tool of a server cannot join the catalog (invalid schema, reserved or duplicate name); the
   * rest do.
   *
   * @since 0.1.0
   * @category errors
   */
  InvalidServerTool,
  /**
   * A request to the server failed without reaching it or without breaking the connection: the
   * gateway could not send it as asked (an HTTP answer such as 413), or failed itself. The server
   * keeps running and is not restarted: only a transport failure restarts a server.
   *
   * @since 0.2.0
   * @category errors
   */
  RequestFailed,
  /**
   * The server answered something that is not MCP (a malformed `tools/list` or call result).
   *
   * @since 0.1.0
   * @category errors
   */
  ServerProtocolError,
  /**
   * The server could not be started or initialized (bad command, crash at start, hang, refused
   * connection).
   *
   * @since 0.1.0
   * @category errors
   */
  ServerStartFailed,
  /**
   * The server did not answer in time.
   *
   * @since 0.1.0
   * @category errors
   */
  ServerTimeout,
  /**
   * The server is not connected right now (it is starting or reconnecting); nothing was sent to it.
   *
   * @since 0.1.0
   * @category errors
   */
  ServerUnavailable,
  /**
   * The server name is not one of the configured upstreams.
   *
   * @since 0.1.0
   * @category errors
   */
  UnknownServer,
  /**
   * The server answered a call with a JSON-RPC error. `code`, `reason` (the wire `message`) and
   * `data` are exactly what the server sent, so a gateway can forward the error unchanged.
   *
   * @since 0.1.0
   * @category errors
   */
  UpstreamError
} from "./McpError.js"

export {
  /**
   * A listing entry that cannot become a catalog resource; names the server, the entry and why.
   *
   * @since 0.2.0
   * @category errors
   */
  InvalidServerResource
} from "./McpResource.js"

export {
  /**
   * An upstream description that cannot be used; names the offending text.
   *
   * @since 0.1.0
   * @category errors
   */
  InvalidUpstream
} from "./Upstream.js"
