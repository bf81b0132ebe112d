/**
 * tool-search MCP: import the tools of MCP servers into a catalog, and serve a catalog to any MCP
 * client as a gateway with progressive disclosure.
 *
 * Read top to bottom: how a server is described (`Upstream`, `CommandLine`), what can go wrong
 * (`McpError`), the wire forms of tools (`McpTool`) and of resources and prompts (`McpResource`),
 * how upstream URIs are qualified when they collide (`QualifiedUri`), one connection (`McpConnection`), the supervised servers as catalog sources (`McpSources`), and
 * the gateway (`Gateway`).
 *
 * @since 0.1.0
 */

/** Splitting a command line as a shell would. */
export * as CommandLine from "./CommandLine.js"
/** An upstream MCP server: transport, kind, timeouts, reconnection. */
export * as Upstream from "./Upstream.js"
/** Typed errors naming the server and the tool. */
export * as McpError from "./McpError.js"
/** MCP tools on the wire and their conversion to and from catalog tools. */
export * as McpTool from "./McpTool.js"
/** MCP resources, templates and prompts on the wire, and their import into a resource catalog. */
export * as McpResource from "./McpResource.js"
/** The gateway's URIs for upstream resources: `tool-search://<server>/<uri>`. */
export * as QualifiedUri from "./QualifiedUri.js"
/** One scoped connection to one MCP server. */
export * as McpConnection from "./McpConnection.js"
/** Supervised MCP servers as catalog sources. */
export * as McpSources from "./McpSources.js"
/** The gateway's settings: listening, authentication, sessions and the bounds on every input. */
export * as GatewayConfig from "./GatewayConfig.js"
/** The config file: MCP clients' `mcpServers`, per-server options and the global settings. */
export * as GatewayFile from "./GatewayFile.js"
/** The MCP gateway: progressive disclosure for any MCP client, one activation per session. */
export * as Gateway from "./Gateway.js"
/** HTTP sessions as records: admission, binding to a credential, expiry. */
export * as SessionRegistry from "./SessionRegistry.js"
/** Where HTTP sessions' loaded tools are kept to outlive the process (a database, through the store). */
export * as SessionState from "./SessionState.js"
/** The audit entries the gateway writes: its reveals and calls. */
export * as GatewayAudit from "./GatewayAudit.js"
/** The gateway over Streamable HTTP: authentication, origins, sessions, health and readiness. */
export * as HttpGateway from "./HttpGateway.js"
/** Spans, metrics and their OTLP export. */
export * as Telemetry from "./Telemetry.js"

// Errors, also at the top level so declaration files of dependent code can name them.
export { InvalidCommandLine } from "./CommandLine.js"
export { GatewayError } from "./Gateway.js"
export { InvalidGatewayFile } from "./GatewayFile.js"
export {
  ConnectionLost,
  InvalidServerTool,
  RequestFailed,
  ServerProtocolError,
  ServerStartFailed,
  ServerTimeout,
  ServerUnavailable,
  UnknownServer,
  UpstreamError
} from "./McpError.js"
export { InvalidServerResource } from "./McpResource.js"
export { InvalidUpstream } from "./Upstream.js"
