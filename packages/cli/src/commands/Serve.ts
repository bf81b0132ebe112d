/**
 * `tool-search serve [--config gateway.json] [--upstream "<name>=<command line>" ...] [--<setting> v ...] [--check]`:
 * an MCP gateway in front of many MCP servers. Its client first sees the search tools only; what
 * a search finds is loaded for that client session.
 *
 * The servers come from `--config` (the `mcpServers` object of MCP client configs, see
 * `GatewayFile`) and from `--upstream`. Every setting of the core and the gateway
 * (docs/configuration.md) applies, in one precedence: a flag (`--strict false`), then the config
 * file (`"strict": false`), then the environment (`TOOL_SEARCH_STRICT=false`), then the default.
 * Everything is checked before anything starts: a bad value is one line on stderr naming the
 * flag, the file key or the variable, and exit code 2. The effective policy is logged at start.
 * `--check` stops there: it checks everything and logs the policy without starting a server.
 *
 * Over stdio (the default) the gateway is what an MCP client starts as a command: stdout carries
 * MCP only; logs (one logfmt line each) and the upstream servers' stderr go to stderr. With
 * `--http <port>` it serves Streamable HTTP at `http://<host>:<port>/mcp`. Upstreams start in the
 * background: the gateway answers at once and announces their tools as they come.
 *
 * @since 0.1.0
 */
import { AgentConfig } from "@tool-search/agent"
import { CodeConfig, Sandbox } from "@tool-search/code"
import { ResourceCatalog, Setting, ToolCatalog, ToolSearchConfig } from "@tool-search/core"
import {
  Gateway,
  GatewayConfig,
  GatewayFile,
  HttpGateway,
  McpSources,
  Principal,
  Secrets,
  Telemetry,
  Upstream
} from "@tool-search/mcp"
import { Database } from "@tool-search/store"
import { Config, Console, Duration, Effect, FileSystem, Layer, Logger, Option, Redacted, Result } from "effect"
import { Command, Flag } from "effect/cli"
import { badValue, report, type Subject, UsageError } from "../CliError.js"
import * as Flags from "../Flags.js"
import * as GatewayDatabase from "../GatewayDatabase.js"

// -----------------------------------------------------------------------------
// Settings
// -----------------------------------------------------------------------------

/** The delivery setting of the agent, as `serve` reads it: `list` (the default) or `code`. */
const delivery = { delivery: AgentConfig.settings.delivery }

/**
 * Every table `serve` reads, in the order the policy line shows them: the core and gateway
 * settings, the database, the delivery (`TOOL_SEARCH_DELIVERY=code`: code mode) and the sandbox's
 * settings (`TOOL_SEARCH_CODE_*`).
 *
 * @since 0.2.0
 * @category settings
 */
export const tables: ReadonlyArray<Setting.Table> = [
  ...GatewayFile.tables,
  GatewayDatabase.settings,
  delivery,
  CodeConfig.settings
]

const allSettings = tables.flatMap((t) => Object.values(t))

/**
 * One flag per setting: booleans are switches (`--strict`, `--strict=false`), the rest a `value`
 * the setting reads (its help line says what it takes: an integer, seconds, a list). A flag has
 * no default of its own: an absent flag leaves the value to the config file, the environment,
 * then the setting's default, which its help line shows.
 */
const settingFlags = Object.fromEntries(
  allSettings.map((s) => {
    const help = (text: string) => Flag.withDescription(`${text} (default: ${s.defaultText})`)
    return [
      s.key,
      s.schema === Setting.Boolean
        ? Flag.Boolean(s.flag).pipe(help(s.description), Flag.optional)
        // the setting decodes the text: its help says what it takes, not "string"
        : Flag.String(s.flag).pipe(Flag.withMetavar("value"), help(`${s.description}; ${s.values}`), Flag.optional)
    ]
  })
) as Readonly<Record<string, Flag.Flag<Option.Option<string | boolean>>>>

/**
 * What `serve` was given: the servers, the config file, and a value per setting flag.
 *
 * @since 0.2.0
 * @category models
 */
export interface Input {
  readonly upstreams: ReadonlyArray<string>
  readonly config: Option.Option<string>
  readonly settings: Readonly<Record<string, Option.Option<string | boolean>>>
  /** Check everything and print the policy, then stop without starting a server (`--check`). */
  readonly check?: boolean
}

/**
 * The checked configuration a gateway runs with.
 *
 * @since 0.2.0
 * @category models
 */
export interface Plan {
  readonly core: ToolSearchConfig.Settings
  readonly gateway: GatewayConfig.Settings
  readonly store: GatewayDatabase.Settings
  /** `code`: the sessions run in code mode, their programs in a sandbox with the `code` settings. */
  readonly delivery: "list" | "code"
  readonly code: CodeConfig.Settings
  readonly servers: ReadonlyArray<Upstream.Input>
  /** Who may connect over HTTP: the variable's token (principal `default`) and the tokens file's principals. */
  readonly principals: ReadonlyArray<Principal.Principal>
}

/** A usage error of `serve`: one line ending with the hint to its help. */
const usage = (reason: string, subject: Subject = "arguments") => badValue("serve", reason, subject)

const configError = (e: Config.ConfigError, subject: Subject = "settings") =>
  usage(`invalid configuration: ${Setting.explain(e)}`, subject)

/**
 * A flag's bad value in the words of the other commands' parse errors:
 * `invalid value for --http: '-1' (expected a port from 0 to 65535, or off)`.
 */
const flagError = (e: Config.ConfigError) => {
  const explained = Setting.explain(e)
  const match = /^(--[a-z-]+)=("(?:[^"\\]|\\.)*"|[^:]*): (.*)$/.exec(explained)
  if (match === null) return configError(e)
  const [, flag, raw, expected] = match as unknown as [string, string, string, string]
  const value = raw.startsWith("\"") ? String(JSON.parse(raw)) : raw
  return usage(
    `invalid value for ${flag}: '${value.slice(0, 80)}' (${expected.charAt(0).toLowerCase()}${expected.slice(1)})`
  )
}

/** Reads the config file: the servers and the global settings, each checked with its own spelling. */
const readFile = (path: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(path).pipe(
      Effect.mapError((e) =>
        usage(
          `${path}: cannot read the config file (${e.reason._tag === "NotFound" ? "not found" : e.message})`,
          "config"
        )
      )
    )
    const parsed = GatewayFile.parse(path, text, tables)
    if (Result.isFailure(parsed)) return yield* usage(parsed.failure.message, "config")
    yield* Setting.check(tables, parsed.success.settings, (s) => `${path}: ${s.key}`).pipe(
      Effect.mapError((e) => configError(e, "config"))
    )
    return parsed.success
  })

/**
 * Who may connect: the token of the variable named by `authTokenEnv` (principal `default`), and the
 * principals of `authTokenFile` (one token per line, or principals with their policies).
 */
const readPrincipals = (gateway: GatewayConfig.Settings) =>
  Effect.gen(function*() {
    const fromEnv: Option.Option<Redacted.Redacted<string>> = gateway.authTokenEnv === ""
      ? Option.none()
      : yield* Config.option(Config.Redacted(gateway.authTokenEnv)).pipe(Effect.mapError((e) => configError(e)))
    const tokens = Option.toArray(fromEnv).filter((t) => Redacted.value(t).trim() !== "")
    const principals = tokens.length === 0 ? [] : [Principal.make("default", tokens)]
    if (gateway.authTokenFile === "") return principals
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(gateway.authTokenFile).pipe(
      Effect.mapError(() => usage(`authTokenFile: cannot read ${gateway.authTokenFile}`, "config"))
    )
    const parsed = Principal.parseFile(gateway.authTokenFile, text)
    if (Result.isFailure(parsed)) return yield* usage(`authTokenFile: ${parsed.failure}`, "config")
    return [...principals, ...parsed.success]
  })

/** Parses `--upstream` values as given; the first bad one is a usage error. */
const parseSpecs = (specs: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<Upstream.Input>, UsageError> =>
  Effect.forEach(specs, (spec) => {
    const parsed = Upstream.parse(spec)
    return Result.isFailure(parsed)
      ? Effect.fail(usage(`--upstream: ${parsed.failure.message}`))
      : Effect.succeed<Upstream.Input>(parsed.success)
  })

/**
 * Turns `--upstream` values into server descriptions for a command that starts them (`chat`,
 * `run`): the servers get this process's environment without tool-search's own settings and keys
 * (`Secrets.inheritedEnvironment`) and its stderr, and the given timeouts in seconds.
 *
 * @since 0.1.0
 * @category settings
 */
export const upstreams = (
  specs: ReadonlyArray<string>,
  options: { readonly callTimeout: number; readonly connectTimeout: number }
): Effect.Effect<ReadonlyArray<Upstream.Input>, UsageError> =>
  Effect.map(parseSpecs(specs), (inputs) =>
    inputs.map((s) => ({
      ...s,
      transport: s.transport._tag === "Stdio"
        ? { ...s.transport, env: Secrets.inheritedEnvironment(), stderr: "inherit" as const }
        : s.transport,
      callTimeout: `${options.callTimeout} seconds`,
      connectTimeout: `${options.connectTimeout} seconds`
    })))

/**
 * Checks everything `serve` was given, in the one precedence, before anything starts.
 *
 * @since 0.2.0
 * @category running
 */
export const plan = (input: Input): Effect.Effect<Plan, UsageError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const flags = Object.fromEntries(
      Object.entries(input.settings).flatMap(([key, value]) => Option.isSome(value) ? [[key, value.value]] : [])
    )
    yield* Setting.check(tables, flags, (s) => `--${s.flag}`).pipe(Effect.mapError(flagError))
    for (const r of GatewayFile.retired) {
      const set = yield* Config.option(Config.String(r.env)).pipe(Effect.orElseSucceed(() => Option.none()))
      if (Option.isSome(set)) return yield* usage(GatewayFile.retiredError(r, "env"), "settings")
    }
    const file = Option.isSome(input.config) ? yield* readFile(input.config.value) : undefined
    const sources = { flags, ...(file === undefined ? {} : { file: file.settings }) }
    const core = yield* Setting.read(ToolSearchConfig.config, tables, sources).pipe(
      Effect.mapError((e) => configError(e))
    )
    const gateway = yield* Setting.read(GatewayConfig.config, tables, sources).pipe(
      Effect.mapError((e) => configError(e))
    )
    const store = yield* Setting.read(Setting.values(GatewayDatabase.settings), tables, sources).pipe(
      Effect.mapError((e) => configError(e))
    )
    const delivered = (yield* Setting.read(Setting.values(delivery), tables, sources).pipe(
      Effect.mapError((e) => configError(e))
    )).delivery
    if (delivered !== "list" && delivered !== "code") {
      return yield* usage(
        `delivery '${delivered}' is an agent's: a gateway session delivers 'list' (loaded tools join its list, ` +
          "call_tool for clients that do not refresh it) or 'code' (ToolSearch answers declarations, execute_code runs " +
          "programs)",
        "settings"
      )
    }
    const code = yield* Setting.read(CodeConfig.config, tables, sources).pipe(Effect.mapError((e) => configError(e)))
    const given = [...(file?.servers ?? []), ...(yield* parseSpecs(input.upstreams))]
    if (given.length === 0) {
      return yield* usage("no upstream server: give --upstream <name>=<command line>, or --config with \"mcpServers\"")
    }
    const twice = given.find((s, i) => given.findIndex((o) => o.name === s.name) !== i)
    if (twice !== undefined) return yield* usage(`two upstream servers are named '${twice.name}'`)
    const servers = given.map((s): Upstream.Input => ({
      callTimeout: `${gateway.callTimeout} seconds`,
      connectTimeout: `${gateway.connectTimeout} seconds`,
      ...s,
      attempts: gateway.upstreamAttempts,
      maxMessageBytes: gateway.maxUpstreamMessageBytes,
      listChangedDelay: `${gateway.listChangedDelay} millis`,
      maxCalls: gateway.maxUpstreamCalls,
      // a server gets the base environment and its own `env`, never the gateway's settings or keys
      transport: s.transport._tag === "Stdio" ? { ...s.transport, stderr: "inherit" } : s.transport
    }))
    const principals = yield* readPrincipals(gateway)
    if (gateway.http !== "off" && !HttpGateway.isLoopback(gateway.host) && principals.length === 0) {
      return yield* usage(
        `refusing to listen on ${gateway.host} without authentication: set ${gateway.authTokenEnv} or ` +
          `--auth-token-file, or bind 127.0.0.1`,
        "settings"
      )
    }
    return { core, gateway, store, delivery: delivered, code, servers, principals }
  })

/** The policy in effect, as log annotations: what an operator checks first. */
const policy = (p: Plan, connected: ReadonlyArray<string>) => ({
  transport: p.gateway.http === "off" ? "stdio" : `http ${p.gateway.host}:${p.gateway.http}`,
  auth: p.principals.length === 0
    ? "none"
    : `${p.principals.flatMap((x) => x.tokens).length} bearer token(s) of ${p.principals.length} principal(s)`,
  servers: p.servers.map((s) => `${s.name}(${s.kind ?? "connected"})`).join(","),
  mode: p.core.disclosure.mode,
  strategy: p.core.strategy,
  strict: p.core.visibility.strict,
  select: p.core.visibility.select.join(",") || "-",
  connected: connected.join(",") || "-",
  explore: p.core.visibility.explore
    ? p.core.visibility.allow === "*" ? "*" : p.core.visibility.allow.join(",")
    : "off",
  maxResults: `${p.core.disclosure.defaultMaxResults}/${p.core.disclosure.maxResultsLimit}`,
  maxLoadedTools: p.gateway.maxLoadedTools,
  delivery: p.delivery === "code"
    ? `code (programs: ${
      Duration.format(p.code.codeTimeout)
    }, ${p.code.codeMaxMemory} MB, ${p.code.codeMaxToolCalls} calls, ${p.code.codeWorkers} threads)`
    : "list",
  resourceTools: p.gateway.resourceTools,
  minScore: `${p.core.disclosure.minScore}/${p.core.disclosure.minScoreRatio}`,
  limits:
    `args ${p.gateway.maxArgumentBytes}B depth ${p.gateway.maxArgumentDepth}, result ${p.gateway.maxResultChars} chars`,
  otlp: p.gateway.otlpEndpoint || "off",
  database: Option.match(GatewayDatabase.location(p.store), { onNone: () => "off", onSome: Database.describe })
})

// -----------------------------------------------------------------------------
// Running
// -----------------------------------------------------------------------------

/**
 * Runs the gateway until its stdin ends (stdio) or it is stopped (HTTP).
 *
 * @since 0.1.0
 * @category running
 */
export const serve = (input: Input): Effect.Effect<void, UsageError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const p = yield* plan(input)
    // connected servers are the user's own: their tools bypass the platform gate
    const connected = [
      ...new Set([...p.core.visibility.connected, ...McpSources.visibilityOf(p.servers.map(source)).connected])
    ]
    const core: ToolSearchConfig.Settings = { ...p.core, visibility: { ...p.core.visibility, connected } }
    // the upstreams' resources and prompts join a resource catalog; their bodies are read and split
    // for search only when the level tools (search_resources) are offered
    // with a database: sessions, audit and search feedback there (feedback from the store, not memory)
    const database = GatewayDatabase.location(p.store)
    const Store = Option.match(database, {
      onNone: () => Layer.empty,
      onSome: (where) => GatewayDatabase.layer(where, p.store, p.gateway, { feedback: core.feedback })
    })
    const Catalogs = Layer.mergeAll(
      ToolCatalog.layer,
      p.gateway.resourceTools
        ? ResourceCatalog.layer
        : ResourceCatalog.layerWith({ indexBodies: false })
    ).pipe(
      Layer.provideMerge(ToolSearchConfig.layer(Option.isSome(database) ? { ...core, feedback: false } : core))
    )
    const Sources = McpSources.layerWithResources(p.servers, { start: "background" }).pipe(
      Layer.provideMerge(Catalogs),
      Layer.provideMerge(Store)
    )
    const options = Gateway.optionsFrom(p.gateway)
    yield* Effect.logInfo("gateway policy").pipe(Effect.annotateLogs(policy(p, connected)))
    if (input.check === true) {
      return yield* Console.log(
        `tool-search serve: the configuration is valid (${p.servers.length} ${
          p.servers.length === 1 ? "server" : "servers"
        }: ${p.servers.map((s) => s.name).join(", ")}); --check starts nothing`
      )
    }
    const gateway = p.gateway.http === "off"
      ? Gateway.serveStdio({ ...options, maxMessageBytes: p.gateway.maxMessageBytes }).pipe(
        Gateway.withResources,
        Gateway.withSources,
        Effect.andThen(Effect.logInfo("stdin closed: the client went away; stopping"))
      )
      : Effect.gen(function*() {
        const address = yield* HttpGateway.serve({
          ...options,
          port: p.gateway.http === "off" ? 0 : p.gateway.http,
          host: p.gateway.host,
          principals: p.principals,
          maxPrincipalSessions: p.gateway.maxPrincipalSessions,
          maxPrincipalCalls: p.gateway.maxPrincipalCalls,
          maxBatchSize: p.gateway.maxBatchSize,
          shareFeedback: p.gateway.shareFeedback,
          allowedOrigins: p.gateway.allowedOrigins,
          allowedHosts: p.gateway.allowedHosts,
          maxMessageBytes: p.gateway.maxMessageBytes,
          maxSessions: p.gateway.maxSessions,
          sessionIdleTimeout: `${p.gateway.sessionIdleTimeout} seconds`
        }).pipe(Gateway.withResources, Gateway.withSources, Effect.mapError((e) => usage(e.message, "settings")))
        yield* Console.error(`tool-search: MCP gateway listening on ${address.url}`)
        return yield* Effect.never
      }).pipe(Effect.scoped)
    const Telemetry_ = p.gateway.otlpEndpoint === "" ? Layer.empty : Telemetry.layerOtlp(p.gateway.otlpEndpoint)
    // code mode: one sandbox (a pool of worker threads) for every session's programs
    const served = p.delivery === "code"
      ? gateway.pipe(Gateway.withCode, Effect.provide(Sandbox.layer(p.code)))
      : gateway
    yield* Effect.provide(served, Layer.merge(Sources, Telemetry_)).pipe(
      Effect.catchTag("InvalidUpstream", (e) => Effect.fail(usage(e.message, "upstream"))),
      // one line naming the database and what to do, exit 2
      Effect.catchTag("DatabaseUnavailable", (e) =>
        Effect.fail(new UsageError({ reason: e.message, subject: "database" })))
    )
  }).pipe(
    // stdout belongs to the MCP client in stdio mode: every log line goes to stderr, one logfmt line
    // each, with the credentials of any URL in it hidden
    Effect.provide(
      Layer.mergeAll(
        Layer.succeed(Logger.LogToStderr, true),
        Logger.layer([Logger.withConsoleError(Logger.map(Logger.formatLogFmt, Secrets.redact))])
      )
    )
  )

const source = (s: Upstream.Input): McpSources.Source => ({ name: s.name, kind: s.kind ?? "connected" })

/**
 * The `serve` command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("serve", {
  upstreams: Flags.repeatable(
    "upstream",
    "an upstream MCP server, \"<name>=<command line>\" or \"<name>=<url>\"",
    "serve needs at least one server, from --upstream or --config"
  ),
  config: Flag.String("config").pipe(
    Flag.withDescription("a config file: MCP clients' \"mcpServers\" object, per-server options, settings"),
    Flag.optional
  ),
  check: Flags.toggle(
    "check",
    "check the flags, the config file, the environment and the token file, print the policy, and exit without starting anything"
  ),
  settings: settingFlags
}, (input) => serve(input).pipe(report("tool-search serve", { json: false }))).pipe(
  Command.withDescription("an MCP gateway: progressive tool disclosure in front of many MCP servers")
)
