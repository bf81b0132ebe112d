/**
 * The gateway's settings, declared once as a table of `Setting`s like core's `ToolSearchConfig`:
 * where it listens, who may connect, how long sessions live, and the bounds on everything a client
 * or an upstream sends. `tool-search serve` reads this table and the core one in one precedence
 * (flags, `--config` file, environment, defaults); docs/configuration.md lists both.
 *
 * Every bound has a default sane for one machine serving a few clients; each is a setting so that
 * an operator can tighten it, and each error that a bound causes names its setting.
 *
 * @since 0.2.0
 */
import { Setting } from "@tool-search/core"
import { type Config, Result, Schema } from "effect"

// -----------------------------------------------------------------------------
// Schemas
// -----------------------------------------------------------------------------

/** A TCP port (0 picks a free one), or `off` for stdio. */
const PortOrOff: Schema.Codec<number | "off", string> = Setting.fromString<number | "off">(
  Schema.Union([Schema.Literal("off"), Schema.Int]),
  (raw) => {
    const text = raw.trim().toLowerCase()
    if (text === "off" || text === "") return Result.succeed("off")
    const port = /^\d+$/.test(text) ? Number(text) : Number.NaN
    return port >= 0 && port <= 65535 ? Result.succeed(port) : Result.fail("Expected a port from 0 to 65535, or off")
  },
  String
)

/** Any text (a path, a variable name, a URL), empty meaning none. */
const Text: Schema.Codec<string> = Schema.String

// -----------------------------------------------------------------------------
// The table
// -----------------------------------------------------------------------------

/**
 * Every gateway setting: its variable, flag, values, default and description.
 *
 * @since 0.2.0
 * @category settings
 */
export const settings = {
  http: Setting.make("http", {
    schema: PortOrOff,
    default: "off",
    values: "port 0–65535 (0: any free port), or `off`",
    defaultText: "off (stdio)",
    description: "serve Streamable HTTP on this port instead of stdio"
  }),
  host: Setting.make("host", {
    schema: Text,
    default: "127.0.0.1",
    values: "an address",
    description: "the address HTTP binds to; a non-loopback address needs authentication"
  }),
  authTokenEnv: Setting.make("authTokenEnv", {
    schema: Text,
    default: "TOOL_SEARCH_AUTH_TOKEN",
    values: "a variable name",
    description: "the environment variable holding the HTTP bearer token (authentication is on when it is set)"
  }),
  authTokenFile: Setting.make("authTokenFile", {
    schema: Text,
    default: "",
    values: "a file path",
    defaultText: "(none)",
    description: "a file of HTTP bearer tokens, one per line (one per client or team), besides the variable"
  }),
  allowedOrigins: Setting.make("allowedOrigins", {
    schema: Setting.List,
    default: [],
    values: "comma-separated origins (`https://app.example.com`)",
    defaultText: "(none)",
    description: "browser origins allowed to call over HTTP; a request with any other `Origin` is refused"
  }),
  allowedHosts: Setting.make("allowedHosts", {
    schema: Setting.List,
    default: [],
    values: "comma-separated `host:port`",
    defaultText: "the bound address (loopback: its names)",
    description: "`Host` headers HTTP accepts (DNS rebinding protection)"
  }),
  maxSessions: Setting.make("maxSessions", {
    schema: Setting.Int(1),
    default: 500,
    values: "integer ≥ 1",
    description: "HTTP sessions kept at once; a new one evicts the one idle the longest"
  }),
  sessionIdleTimeout: Setting.make("sessionIdleTimeout", {
    schema: Setting.Int(1),
    default: 1800,
    values: "seconds ≥ 1",
    description: "an HTTP session without a request for this long is closed"
  }),
  maxLoadedTools: Setting.make("maxLoadedTools", {
    schema: Setting.Int(1),
    default: 20,
    values: "integer ≥ 1",
    description: "tools loaded in one session; loading more unloads the least recently used"
  }),
  listChangedDelay: Setting.make("listChangedDelay", {
    schema: Setting.Int(0),
    default: 250,
    values: "milliseconds ≥ 0",
    description: "upstream list changes within this window reach a session as one `list_changed`"
  }),
  maxArgumentBytes: Setting.make("maxArgumentBytes", {
    schema: Setting.Int(2),
    default: 1_048_576,
    values: "bytes ≥ 2",
    description: "the size of one call's arguments (as JSON); larger calls are refused with -32602"
  }),
  maxArgumentDepth: Setting.make("maxArgumentDepth", {
    schema: Setting.Int(1),
    default: 64,
    values: "integer ≥ 1",
    description: "how deep one call's arguments may nest; deeper calls are refused with -32602"
  }),
  maxResultChars: Setting.make("maxResultChars", {
    schema: Setting.Int(100),
    default: 100_000,
    values: "characters ≥ 100",
    description: "text of one tool result sent to the client; the rest is cut, with a note saying how much"
  }),
  maxResourceBytes: Setting.make("maxResourceBytes", {
    schema: Setting.Int(1024),
    default: 8_388_608,
    values: "characters ≥ 1024",
    description:
      "text or base64 of one `resources/read` or `prompts/get` answer sent to a client; a larger one is refused, named"
  }),
  maxSubscriptions: Setting.make("maxSubscriptions", {
    schema: Setting.Int(0),
    default: 100,
    values: "integer ≥ 0",
    description: "resources one session may subscribe to at once (`resources/subscribe`)"
  }),
  resourceTools: Setting.make("resourceTools", {
    schema: Setting.Boolean,
    default: false,
    values: "boolean",
    description:
      "also offer the resource level tools (`sample_resources`, `search_resources`, `read_resource`, `get_prompt`) to clients that prefer tools"
  }),
  maxSessionCalls: Setting.make("maxSessionCalls", {
    schema: Setting.Int(1),
    default: 8,
    values: "integer ≥ 1",
    description: "requests of one session running at once (calls, searches, reads); more wait in its queue"
  }),
  maxQueuedCalls: Setting.make("maxQueuedCalls", {
    schema: Setting.Int(0),
    default: 32,
    values: "integer ≥ 0",
    description: "requests of one session waiting for a place; more are refused at once, named"
  }),
  maxPrincipalCalls: Setting.make("maxPrincipalCalls", {
    schema: Setting.Int(1),
    default: 32,
    values: "integer ≥ 1",
    description:
      "requests of one principal (one token) running at once across its sessions; more wait, then are refused"
  }),
  maxPrincipalSessions: Setting.make("maxPrincipalSessions", {
    schema: Setting.Int(1),
    default: 100,
    values: "integer ≥ 1",
    description: "HTTP sessions of one principal (one token); a new one evicts that principal's own idlest session"
  }),
  maxUpstreamCalls: Setting.make("maxUpstreamCalls", {
    schema: Setting.Int(1),
    default: 16,
    values: "integer ≥ 1",
    description: "requests to one upstream server at once, from every session; more wait for a place"
  }),
  maxBatchSize: Setting.make("maxBatchSize", {
    schema: Setting.Int(1),
    default: 16,
    values: "integer ≥ 1",
    description: "messages in one JSON-RPC batch over HTTP; a larger batch is refused whole"
  }),
  searchBudget: Setting.make("searchBudget", {
    schema: Setting.Int(1),
    default: 20_000,
    values: "milliseconds ≥ 1",
    description:
      "search time one session may use per minute (its searches run one at a time); past it a search is refused until it refills"
  }),
  shareFeedback: Setting.make("shareFeedback", {
    schema: Setting.Boolean,
    default: false,
    values: "boolean",
    description:
      "with several tokens: let every principal's successful calls improve everyone's search ranking (default: kept per principal)"
  }),
  maxMessageBytes: Setting.make("maxMessageBytes", {
    schema: Setting.Int(1024),
    default: 4_194_304,
    values: "bytes ≥ 1024",
    description: "one message from a client (a stdio line, an HTTP body); larger ones are refused"
  }),
  maxUpstreamMessageBytes: Setting.make("maxUpstreamMessageBytes", {
    schema: Setting.Int(1024),
    default: 16_777_216,
    values: "bytes ≥ 1024",
    description: "one message from an upstream over stdio; a larger answer fails its request, named"
  }),
  callTimeout: Setting.make("callTimeout", {
    schema: Setting.Int(1),
    default: 60,
    values: "seconds ≥ 1",
    description: "an upstream tool call that takes longer fails, and is cancelled upstream"
  }),
  connectTimeout: Setting.make("connectTimeout", {
    schema: Setting.Int(1),
    default: 30,
    values: "seconds ≥ 1",
    description: "an upstream that takes longer to start (spawn, initialize, list) has failed this attempt"
  }),
  upstreamAttempts: Setting.make("upstreamAttempts", {
    schema: Setting.Int(1),
    default: 5,
    values: "integer ≥ 1",
    description: "failed start-ups in a row (a crash at start, an invalid answer) before an upstream is marked failed"
  }),
  otlpEndpoint: Setting.make("otlpEndpoint", {
    schema: Text,
    default: "",
    values: "a URL (`http://localhost:4318`)",
    defaultText: "(none: nothing is exported)",
    description: "export traces and metrics over OTLP/HTTP to this collector"
  })
}

/**
 * The gateway settings, typed.
 *
 * @since 0.2.0
 * @category models
 */
export type Settings = Setting.Values<typeof settings>

/**
 * Every gateway setting from the `ConfigProvider` in context, defaults applied.
 *
 * @since 0.2.0
 * @category settings
 */
export const config: Config.Config<Settings> = Setting.values(settings)

/**
 * The settings with nothing set.
 *
 * @since 0.2.0
 * @category settings
 */
export const defaults: Settings = Object.fromEntries(
  Object.entries(settings).map(([key, setting]) => [key, setting.default])
) as unknown as Settings
