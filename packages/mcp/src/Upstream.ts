/**
 * An upstream MCP server: how to reach it (a command over stdio, a URL over Streamable HTTP, or
 * any transport of the official SDK), how its tools join the catalog, and how long to wait for it.
 *
 * The server's `name` is the catalog `source` of its tools, so visibility policies, qualified
 * names (`name__tool`) and error messages all use it. `kind` says whether the user attached the
 * server to this agent (`connected`) or it belongs to the wider catalog (`platform`); the import
 * only carries it as data, for the visibility policy to read.
 *
 * @since 0.1.0
 */
import type { Transport as SdkTransport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { CatalogTool } from "@tool-search/core"
import { Duration, Effect, Result, Schedule, Schema } from "effect"
import * as CommandLine from "./CommandLine.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * Start a process and speak MCP over its stdin and stdout.
 *
 * @since 0.1.0
 * @category models
 */
export interface Stdio {
  readonly _tag: "Stdio"
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** Variables given to the process, besides the base ones (`Secrets.baseEnvironment`: `PATH`, `HOME`, ...). */
  readonly env?: Readonly<Record<string, string>>
  readonly cwd?: string
  /** `inherit` copies the server's stderr to ours; `pipe` (default) keeps only its tail for errors. */
  readonly stderr?: "inherit" | "pipe"
}

/**
 * Speak MCP over Streamable HTTP to a URL.
 *
 * @since 0.1.0
 * @category models
 */
export interface Http {
  readonly _tag: "Http"
  readonly url: string
  readonly headers?: Readonly<Record<string, string>>
}

/**
 * Any transport of the official SDK, made fresh for each connection (in-memory servers in tests, embedding).
 *
 * @since 0.1.0
 * @category models
 */
export interface Custom {
  readonly _tag: "Custom"
  readonly make: Effect.Effect<SdkTransport>
}

/**
 * How to reach a server.
 *
 * @since 0.1.0
 * @category models
 */
export type Transport = Stdio | Http | Custom

/**
 * Whether the user attached the server to this agent, or it is part of the wider platform catalog.
 *
 * @since 0.1.0
 * @category models
 */
export type Kind = "connected" | "platform"

/**
 * One upstream server.
 *
 * @since 0.1.0
 * @category models
 */
export interface Config {
  /** The catalog source id of its tools: letters, digits, `_`, `-` and `.`. */
  readonly name: string
  readonly transport: Transport
  readonly kind: Kind
  /** How its tools are loaded; default `deferred` (found through search). */
  readonly loading: CatalogTool.Loading
  /** The category of its tools; default: the server name. */
  readonly category: string
  /** Bounds start-up: spawning, `initialize` and the first `tools/list`. */
  readonly connectTimeout: Duration.Duration
  /** Bounds each `tools/list` scan after start-up. */
  readonly listTimeout: Duration.Duration
  /** Bounds each tool call: a hung call fails with `ServerTimeout`. */
  readonly callTimeout: Duration.Duration
  /** Delays between attempts to (re)connect after a failure; the attempts stop when it ends. */
  readonly reconnect: Schedule.Schedule<unknown>
  /** Wait after a connection that worked is lost, before the first reconnection attempt. */
  readonly restartDelay: Duration.Duration
  /**
   * Failed attempts in a row that another attempt will not fix (a process that exits at start, an
   * answer that is not MCP or too large) before the server is marked `failed`. Transient failures
   * (a timeout, a lost connection, an HTTP server that refuses) follow `reconnect` alone.
   */
  readonly attempts: number
  /** The largest message read from the server over stdio; a larger answer fails its request, named. */
  readonly maxMessageBytes: number
  /** Which of its tools join the catalog, by MCP name (`allow`, then `deny`; `*` is a wildcard). */
  readonly filter?: McpToolFilter
  /** Put before the catalog name of each of its tools. */
  readonly prefix?: string
  /** Its tools loaded eagerly, by MCP name, whatever `loading` says. */
  readonly alwaysLoad: ReadonlyArray<string>
  /** After a re-listing, wait this long before the next: a burst of `list_changed` is one re-listing. */
  readonly listChangedDelay: Duration.Duration
  /** Requests to the server at once (calls, reads, prompts, completions), from every caller; more wait. */
  readonly maxCalls: number
}

/**
 * Which tools of a server join the catalog (see `McpTool.Filter`).
 *
 * @since 0.2.0
 * @category models
 */
export interface McpToolFilter {
  readonly allow?: ReadonlyArray<string>
  readonly deny?: ReadonlyArray<string>
}

/**
 * The fields a caller supplies; everything else has a default.
 *
 * @since 0.1.0
 * @category models
 */
export interface Input {
  readonly name: string
  readonly transport: Transport
  readonly kind?: Kind
  readonly loading?: CatalogTool.Loading
  readonly category?: string
  readonly connectTimeout?: Duration.Input
  readonly listTimeout?: Duration.Input
  readonly callTimeout?: Duration.Input
  readonly reconnect?: Schedule.Schedule<unknown>
  readonly restartDelay?: Duration.Input
  readonly attempts?: number
  readonly maxMessageBytes?: number
  readonly filter?: McpToolFilter
  readonly prefix?: string
  readonly alwaysLoad?: ReadonlyArray<string>
  readonly listChangedDelay?: Duration.Input
  readonly maxCalls?: number
}

/**
 * An upstream description that cannot be used; names the offending text.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidUpstream extends Schema.TaggedError<InvalidUpstream>()("InvalidUpstream", {
  spec: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `Invalid upstream ${JSON.stringify(this.spec)}: ${this.reason}`
  }
}

// -----------------------------------------------------------------------------
// Constructors
// -----------------------------------------------------------------------------

/**
 * Server names: a source id that stays readable inside qualified tool names.
 *
 * @since 0.1.0
 * @category constants
 */
export const NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/

/**
 * The default reconnection schedule: exponential from 500 ms, capped at 30 s, with jitter, for
 * ever. A server that comes back is picked up within 30 s; one that never does costs one
 * attempt per 30 s.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultReconnect: Schedule.Schedule<unknown> = Schedule.exponential("500 millis").pipe(
  Schedule.modifyDelay(({ duration }) => Effect.succeed(Duration.min(duration, Duration.seconds(30)))),
  Schedule.jittered
)

/**
 * Fills in the defaults. Fails on a name that cannot be a source id.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (input: Input): Effect.Effect<Config, InvalidUpstream> =>
  NAME_PATTERN.test(input.name)
    ? Effect.succeed({
      name: input.name,
      transport: input.transport,
      kind: input.kind ?? "connected",
      loading: input.loading ?? "deferred",
      category: input.category ?? input.name,
      connectTimeout: Duration.fromInputUnsafe(input.connectTimeout ?? "30 seconds"),
      listTimeout: Duration.fromInputUnsafe(input.listTimeout ?? "30 seconds"),
      callTimeout: Duration.fromInputUnsafe(input.callTimeout ?? "60 seconds"),
      reconnect: input.reconnect ?? defaultReconnect,
      restartDelay: Duration.fromInputUnsafe(input.restartDelay ?? "500 millis"),
      attempts: input.attempts ?? 5,
      maxMessageBytes: input.maxMessageBytes ?? 16 * 1024 * 1024,
      alwaysLoad: input.alwaysLoad ?? [],
      listChangedDelay: Duration.fromInputUnsafe(input.listChangedDelay ?? "250 millis"),
      maxCalls: Math.max(1, input.maxCalls ?? 16),
      ...(input.filter === undefined ? {} : { filter: input.filter }),
      ...(input.prefix === undefined ? {} : { prefix: input.prefix })
    })
    : Effect.fail(
      new InvalidUpstream({
        spec: input.name,
        reason: `the server name must match ${NAME_PATTERN.source} (it becomes the source id of its tools)`
      })
    )

/**
 * A server started as a command.
 *
 * @since 0.1.0
 * @category constructors
 */
export const stdio = (
  command: string,
  args: ReadonlyArray<string> = [],
  options: Omit<Stdio, "_tag" | "command" | "args"> = {}
): Stdio => ({
  _tag: "Stdio",
  command,
  args,
  ...options
})

/**
 * A server reached over Streamable HTTP.
 *
 * @since 0.1.0
 * @category constructors
 */
export const http = (url: string, headers?: Readonly<Record<string, string>>): Http => ({
  _tag: "Http",
  url,
  ...(headers === undefined ? {} : { headers })
})

/**
 * Parses the command-line form `name=command line` or `name=http(s)://url`: the name is
 * everything before the first `=`, and a command line is split as a shell would split it
 * (see `CommandLine`).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (
  spec: string
): Result.Result<{ readonly name: string; readonly transport: Stdio | Http }, InvalidUpstream> => {
  const at = spec.indexOf("=")
  if (at < 0) {
    return Result.fail(new InvalidUpstream({ spec, reason: "expected <name>=<command line> or <name>=<url>" }))
  }
  const name = spec.slice(0, at).trim()
  const rest = spec.slice(at + 1).trim()
  if (!NAME_PATTERN.test(name)) {
    return Result.fail(new InvalidUpstream({ spec, reason: `the server name must match ${NAME_PATTERN.source}` }))
  }
  if (rest === "") return Result.fail(new InvalidUpstream({ spec, reason: "nothing after '='" }))
  if (/^https?:\/\//i.test(rest)) {
    return URL.canParse(rest)
      ? Result.succeed({ name, transport: http(rest) })
      : Result.fail(new InvalidUpstream({ spec, reason: `not a valid URL: ${rest}` }))
  }
  const words = CommandLine.split(rest)
  if (Result.isFailure(words)) return Result.fail(new InvalidUpstream({ spec, reason: words.failure.message }))
  const [command, ...args] = words.success
  if (command === undefined || command === "") {
    return Result.fail(new InvalidUpstream({ spec, reason: "empty command" }))
  }
  return Result.succeed({ name, transport: stdio(command, args) })
}

/**
 * A short description of where a server is, for logs and errors.
 *
 * @since 0.1.0
 * @category formatting
 */
export const describe = (transport: Transport): string => {
  switch (transport._tag) {
    case "Stdio":
      return CommandLine.join([transport.command, ...transport.args])
    case "Http":
      return transport.url
    case "Custom":
      return "custom transport"
  }
}
