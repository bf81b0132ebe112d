/**
 * `tool-search serve --upstream "<name>=<command line>" [--upstream <name>=<url>] [--http <port>]
 * [--strategy s]`: an MCP gateway in front of many MCP servers. Its client first sees the search
 * tools only; what a search finds is loaded for that client session.
 *
 * Over stdio (the default) the gateway is what an MCP client starts as a command: stdout carries
 * MCP only, and logs and the upstream servers' stderr go to stderr. With `--http` it serves
 * Streamable HTTP at `http://<host>:<port>/mcp`, one activation per client session.
 *
 * @since 0.1.0
 */
import { Strategies, ToolCatalog } from "@tool-search/core"
import { Gateway, McpSources, Upstream } from "@tool-search/mcp"
import { Console, Effect, Layer, Logger, Option, Result } from "effect"
import { Command, Flag } from "effect/cli"
import { report, UsageError } from "../CliError.js"
import * as Flags from "../Flags.js"

/** The options of one `serve` run, after parsing. */
export interface ServeOptions {
  readonly upstreams: ReadonlyArray<string>
  readonly http: Option.Option<number>
  readonly host: string
  readonly strategy: Strategies.Name
  readonly callTimeout: number
  readonly connectTimeout: number
}

/** Turns `--upstream` values into server descriptions; the first bad one is a usage error. */
export const upstreams = (
  specs: ReadonlyArray<string>,
  options: { readonly callTimeout: number; readonly connectTimeout: number }
): Effect.Effect<ReadonlyArray<Upstream.Input>, UsageError> =>
  Effect.forEach(specs, (spec) => {
    const parsed = Upstream.parse(spec)
    if (Result.isFailure(parsed)) {
      return Effect.fail(new UsageError({ reason: `--upstream: ${parsed.failure.message}` }))
    }
    const { name, transport } = parsed.success
    return Effect.succeed<Upstream.Input>({
      name,
      // The gateway's environment is the one its client configured for the servers behind it.
      transport: transport._tag === "Stdio" ? { ...transport, env: environment(), stderr: "inherit" } : transport,
      callTimeout: `${options.callTimeout} seconds`,
      connectTimeout: `${options.connectTimeout} seconds`
    })
  })

const environment = (): Record<string, string> =>
  Object.fromEntries(Object.entries(process.env).flatMap(([k, v]) => v === undefined ? [] : [[k, v]]))

/** Runs the gateway until its stdin ends (stdio) or it is stopped (HTTP). */
export const serve = (options: ServeOptions): Effect.Effect<void, UsageError> =>
  Effect.gen(function*() {
    const inputs = yield* upstreams(options.upstreams, options)
    const Catalog = ToolCatalog.ToolCatalog.layer.pipe(Layer.provide(Strategies.layer(options.strategy)))
    const Sources = McpSources.McpSources.layer(inputs).pipe(Layer.provideMerge(Catalog))
    const gateway = Option.match(options.http, {
      onNone: () => Gateway.serveStdio(),
      onSome: (port) =>
        Effect.gen(function*() {
          const address = yield* Gateway.serveHttp({ port, host: options.host }).pipe(
            Effect.mapError((e) => new UsageError({ reason: e.message }))
          )
          yield* Console.error(`tool-search: MCP gateway listening on ${address.url}`)
          return yield* Effect.never
        }).pipe(Effect.scoped)
    })
    yield* Effect.provide(gateway, Sources).pipe(
      Effect.catchTag("InvalidUpstream", (e) => Effect.fail(new UsageError({ reason: `--upstream: ${e.message}` })))
    )
  }).pipe(
    // stdout belongs to the MCP client in stdio mode: every log line goes to stderr.
    Effect.provide(Layer.succeed(Logger.LogToStderr, true))
  )

/** The `serve` command. */
export const command = Command.make("serve", {
  upstreams: Flag.String("upstream").pipe(
    Flag.withDescription("an upstream MCP server, \"<name>=<command line>\" or \"<name>=<url>\"; repeat for more"),
    Flag.atLeast(1)
  ),
  http: Flag.Int("http").pipe(
    Flag.withDescription("serve Streamable HTTP on this port instead of stdio"),
    Flag.optional
  ),
  host: Flag.String("host").pipe(Flags.withDefault("127.0.0.1", "the address --http binds to")),
  strategy: Flags.strategy,
  callTimeout: Flag.Int("call-timeout").pipe(
    Flags.withDefault(60, "seconds an upstream tool call may take before it fails")
  ),
  connectTimeout: Flag.Int("connect-timeout").pipe(
    Flags.withDefault(30, "seconds an upstream server may take to start")
  )
}, (options) => serve(options).pipe(report)).pipe(
  Command.withDescription("an MCP gateway: progressive tool disclosure in front of many MCP servers")
)
