/**
 * The agent behind `chat` and `run`: the language model the settings name (or a usage error that
 * says how to configure one), a catalog from a file and/or MCP servers, the search strategy (over
 * the configured embeddings for `semantic` and `hybrid`), and the executor configured by the
 * settings. Flags beat the environment, as everywhere (`Setting.read`).
 *
 * The tools are the ones the user handed over, so every one of them exists for the agent unless
 * `TOOL_SEARCH_STRICT` is set explicitly, and the `--upstream` servers are connected sources.
 *
 * With a database (`--database` or `TOOL_SEARCH_DATABASE`; none by default here) and
 * `TOOL_SEARCH_FEEDBACK` on, search feedback is the store's: what this agent's searches found and
 * then called successfully ranks the next searches of every process on that database.
 *
 * @since 0.2.0
 */
import { Executor, SessionStore, TokenCounter, TurnEvent } from "@tool-search/agent"
import {
  type CatalogTool,
  Disclosure,
  Setting,
  Strategies,
  TableOfContents,
  ToolCatalog,
  ToolSearchConfig,
  Unit,
  type UnknownTools,
  Visibility
} from "@tool-search/core"
import { McpSources } from "@tool-search/mcp"
import { ProviderConfig, Providers } from "@tool-search/providers"
import { Database, Feedback, StoreConfig } from "@tool-search/store"
import {
  Console,
  Context,
  Effect,
  type FileSystem,
  Layer,
  Logger,
  Option,
  Runtime,
  Schema,
  type Scope,
  type Stdio,
  Stream
} from "effect"
import type { AiError, Prompt } from "effect/ai"
import { Flag } from "effect/cli"
import { FetchHttpClient } from "effect/http"
import * as Catalogs from "./Catalogs.js"
import { print, type Subject, UsageError } from "./CliError.js"
import * as AuditCommand from "./commands/Audit.js"
import * as Demo from "./commands/Demo.js"
import { upstreams as parseUpstreams } from "./commands/Serve.js"
import * as SharedFlags from "./Flags.js"

// -----------------------------------------------------------------------------
// Flags
// -----------------------------------------------------------------------------

/**
 * The flags `chat` and `run` share.
 *
 * @since 0.2.0
 * @category flags
 */
export const flags = {
  catalog: Flag.String("catalog").pipe(
    Flag.withDescription(
      "catalog file: JSONL, JSON array or MCP tools/list (its tools have no handlers) (optional; the agent needs --catalog and/or --upstream)"
    ),
    Flag.optional
  ),
  upstreams: SharedFlags.repeatable(
    "upstream",
    "an MCP server whose tools the agent uses, \"<name>=<command line>\" or \"<name>=<url>\"",
    "the agent needs --catalog and/or --upstream"
  ),
  strategy: Flag.Literals("strategy", Strategies.names).pipe(
    Flag.withDescription("search strategy (default: TOOL_SEARCH_STRATEGY, else bm25f)"),
    Flag.optional
  ),
  model: Flag.String("model").pipe(
    Flag.withDescription("openai:<model>, anthropic:<model> or openai-compatible:<model> (default: TOOL_SEARCH_MODEL)"),
    Flag.optional
  ),
  modelUrl: Flag.String("model-url").pipe(
    Flag.withDescription("the model server's API root (default: TOOL_SEARCH_MODEL_URL)"),
    Flag.optional
  ),
  maxIterations: Flag.Int("max-iterations").pipe(SharedFlags.withDefault(10, "model calls per turn")),
  json: SharedFlags.toggle("json", "print the event stream, one JSON object per line"),
  sanitizeNames: SharedFlags.sanitizeNames,
  database: AuditCommand.databaseFlag.pipe(
    Flag.withDescription("keep search feedback in this database (default: TOOL_SEARCH_DATABASE, else none)")
  )
}

/**
 * The shared flags, parsed.
 *
 * @since 0.2.0
 * @category flags
 */
export interface Flags {
  readonly catalog: Option.Option<string>
  readonly upstreams: ReadonlyArray<string>
  readonly strategy: Option.Option<Strategies.Name>
  readonly model: Option.Option<string>
  readonly modelUrl: Option.Option<string>
  readonly maxIterations: number
  readonly json: boolean
  readonly sanitizeNames: boolean
  readonly database: Option.Option<string>
}

// -----------------------------------------------------------------------------
// Errors
// -----------------------------------------------------------------------------

/**
 * A turn that could not finish: the model call failed (network, key, rate limit, bad answer).
 * Exits with 1; the message was printed on stderr.
 *
 * @since 0.2.0
 * @category errors
 */
export class TurnFailed extends Schema.TaggedError<TurnFailed>()("TurnFailed", { reason: Schema.String }) {
  override readonly [Runtime.errorExitCode] = 1
  override readonly [Runtime.errorReported] = false
  override get message(): string {
    return this.reason
  }
}

/**
 * A failed model call of `command` as a `TurnFailed`, printed as `CliError.print` prints failures
 * (one line on stderr, or with `json` one JSON object on stdout).
 *
 * @since 0.2.0
 * @category errors
 */
export const turnFailed = (
  error: AiError.AiError | UnknownTools,
  options: { readonly command: string; readonly json: boolean }
): Effect.Effect<never, TurnFailed> => {
  const failure = new TurnFailed({
    reason: error._tag === "UnknownTools" ? error.message : `the model call failed: ${error.message}`
  })
  return Effect.andThen(
    print(options.command, options.json)({
      message: failure.reason,
      subject: error._tag === "UnknownTools" ? "catalog" : "model",
      exitCode: 1
    }),
    Effect.fail(failure)
  )
}

/**
 * Prints a usage error of `command` as `CliError.print` does (a failed turn has printed its own).
 *
 * @since 0.2.0
 * @category errors
 */
export const report =
  (command: string, options: { readonly json: boolean }) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.tapError(
      effect,
      (e) =>
        e instanceof UsageError
          ? print(command, options.json)({ message: e.message, subject: e.subject, exitCode: 2 })
          : Effect.void
    )

// -----------------------------------------------------------------------------
// The agent
// -----------------------------------------------------------------------------

/**
 * What the commands print about the agent they run.
 *
 * @since 0.2.0
 * @category models
 */
export interface Info {
  /** The model and its server. */
  readonly model: string
  readonly strategy: string
  /** Tools in the catalog (file and MCP servers), and how many of them are deferred. */
  readonly tools: number
  readonly deferred: number
  /** Whether they are deferred at all: below the deferral threshold every tool is sent. */
  readonly deferring: boolean
}

const usage = (reason: string, subject: Subject) => new UsageError({ reason, subject })

/** The language model the flags and settings name, or a usage error saying what is missing. */
const modelChoice = (flags: Flags) =>
  Effect.gen(function*() {
    const given = { model: Option.getOrUndefined(flags.model), modelUrl: Option.getOrUndefined(flags.modelUrl) }
    const tables = [ProviderConfig.settings]
    yield* Setting.check(tables, given, (s) => `--${s.flag}`)
    const choice = yield* Setting.read(Providers.languageModelChoice, tables, { flags: given })
    if (Option.isNone(choice)) return yield* usage(Providers.howToConfigure, "model")
    return choice.value
  }).pipe(Effect.mapError((e) => e._tag === "ConfigError" ? usage(Setting.explain(e), "settings") : e))

/**
 * Search feedback in the database `--database` or `TOOL_SEARCH_DATABASE` names, when one does and
 * feedback is on; otherwise none (as without a database).
 */
const feedbackStore = (command: string, database: Option.Option<string>, feedback: boolean) =>
  feedback
    ? Effect.map(AuditCommand.named(command, database), (store) =>
      Option.match(store, {
        onNone: () => Layer.empty,
        onSome: (s) => Feedback.layer().pipe(Layer.provide(Database.layer(s.database, StoreConfig.databaseOptions(s))))
      }))
    : Effect.succeed(Layer.empty)

/** What a failure to build the agent is about. */
const buildFailure = {
  ConfigError: "settings",
  DatabaseUnavailable: "database",
  DuplicateEntry: "catalog",
  InvalidEntry: "catalog",
  InvalidUpstream: "upstream"
} as const satisfies Record<string, Subject>

/**
 * Runs `body` with the agent the flags describe: an `Executor` over the configured model, a
 * catalog from `--catalog` and `--upstream`, the configured search strategy and disclosure.
 * Without a model, or without tools, it fails with a `UsageError` saying what to set.
 *
 * @since 0.2.0
 * @category constructors
 */
export const withAgent = <A, E, R>(
  command: "chat" | "run",
  flags: Flags,
  body: (info: Info) => Effect.Effect<A, E, R>
): Effect.Effect<
  A,
  E | UsageError,
  | FileSystem.FileSystem
  | Stdio.Stdio
  | Exclude<Exclude<R, Executor.Executor | ToolCatalog.ToolCatalog>, Scope.Scope>
> =>
  Effect.gen(function*() {
    const choice = yield* modelChoice(flags)
    if (Option.isNone(flags.catalog) && flags.upstreams.length === 0) {
      return yield* usage(
        "give the agent tools: --catalog <file> and/or --upstream <name>=<command line or URL>",
        "arguments"
      )
    }
    const strategy = Option.getOrUndefined(flags.strategy)
    const settings = yield* Setting.read(ToolSearchConfig.config, [ToolSearchConfig.settings], {
      flags: { strategy }
    }).pipe(Effect.mapError((e) => usage(Setting.explain(e), "settings")))
    const tools: ReadonlyArray<CatalogTool.CatalogTool> = Option.isSome(flags.catalog)
      ? yield* Catalogs.load(flags.catalog.value, { names: flags.sanitizeNames ? "sanitize" : "strict" })
      : []
    const servers = yield* parseUpstreams(flags.upstreams, { callTimeout: 60, connectTimeout: 30 })

    const Catalog = ToolCatalog.layerWithTools(tools).pipe(
      Layer.provide(Providers.searchStrategy(settings.strategy))
    )
    const Feedback_ = yield* feedbackStore(command, flags.database, settings.feedback)
    const Tools = servers.length === 0 ? Catalog : McpSources.layer(servers).pipe(
      Layer.provideMerge(Catalog)
    )
    // The user handed the agent these tools: they all exist unless TOOL_SEARCH_STRICT says otherwise,
    // and the MCP servers are sources the user attached (listed by name in a table of contents).
    const strictSet = Option.isSome(
      yield* ToolSearchConfig.settings.strict.option.pipe(
        Effect.mapError((e) => usage(Setting.explain(e), "settings"))
      )
    )
    const visibility: Visibility.Options = {
      ...settings.visibility,
      strict: strictSet && settings.visibility.strict,
      connected: [...settings.visibility.connected, ...servers.map((s) => s.name)]
    }
    const Policies = Layer.mergeAll(
      Disclosure.layer(settings.disclosure),
      Visibility.layer(visibility),
      TableOfContents.layer(settings.tableOfContents),
      Layer.succeed(ToolSearchConfig.ToolSearchConfig, { ...settings, visibility })
    )
    const Agent = Executor.layerConfig({ maxIterations: Math.max(1, flags.maxIterations) }).pipe(
      Layer.provide(SessionStore.layerConfig),
      Layer.provide(Providers.languageModelOf(choice)),
      Layer.provideMerge(Tools),
      Layer.provide(TokenCounter.o200k),
      Layer.provide(Policies),
      Layer.provide(FetchHttpClient.layer),
      // the catalog ranks with it, the executor's views record into it
      Layer.provideMerge(Feedback_)
    )

    // building the agent starts the MCP servers; a bad one, or a bad setting, is a usage error
    const context = yield* Layer.build(Agent).pipe(
      Effect.mapError((e) => usage(e._tag === "ConfigError" ? Setting.explain(e) : e.message, buildFailure[e._tag]))
    )
    const catalog = Context.get(context, ToolCatalog.ToolCatalog)
    const all = yield* catalog.all
    const eager = yield* catalog.eager
    return yield* body({
      model: Providers.describe(choice),
      strategy: catalog.strategy,
      tools: all.length,
      deferred: all.length - eager.length,
      deferring: yield* Unit.provide(Unit.deferring).pipe(Effect.provide(context), Effect.provide(Policies))
    }).pipe(Effect.provide(context))
  }).pipe(
    Effect.scoped,
    // MCP servers and failing tools log: stdout is for the conversation
    Effect.provideService(Logger.LogToStderr, true)
  )

// -----------------------------------------------------------------------------
// Turns
// -----------------------------------------------------------------------------

/**
 * Runs one turn on `prompt` and prints its events: rendered as the demo renders them, or one
 * JSON object per line. Returns the events; a failed model call is a `TurnFailed`.
 *
 * @since 0.2.0
 * @category turns
 */
export const turn = (
  prompt: ReadonlyArray<Prompt.MessageEncoded>,
  options: { readonly command: string; readonly json: boolean; readonly sessionId: string }
): Effect.Effect<ReadonlyArray<TurnEvent.TurnEvent>, TurnFailed, Executor.Executor> =>
  Effect.gen(function*() {
    const executor = yield* Executor.Executor
    const events: Array<TurnEvent.TurnEvent> = []
    const seen = new Map<string, ReadonlyArray<string>>()
    yield* executor.stream({ sessionId: options.sessionId, prompt }).pipe(
      Stream.runForEach((event) => {
        events.push(event)
        return options.json
          ? Console.log(JSON.stringify(TurnEvent.toJson(event)))
          : Effect.forEach(Demo.render(event, seen), (line) => Console.log(line), { discard: true })
      }),
      Effect.catch((e) => turnFailed(e, options))
    )
    if (!options.json) yield* Console.log(`  ${turnSummary(events)}`)
    return events
  })

/**
 * The answer of a turn, from its events.
 *
 * @since 0.2.0
 * @category turns
 */
export const answerOf = (events: ReadonlyArray<TurnEvent.TurnEvent>): string => {
  const finished = events.find((e) => e._tag === "TurnFinished" && e.path.length === 0)
  return finished?._tag === "TurnFinished" ? finished.text : ""
}

// -----------------------------------------------------------------------------
// Output
// -----------------------------------------------------------------------------

/**
 * One line about the agent, for the top of `chat` and `run`.
 *
 * @since 0.2.0
 * @category output
 */
export const banner = (info: Info): string =>
  `${info.model} · ${info.tools} tools (${
    info.deferring
      ? `${info.deferred} deferred, found through search`
      : `all sent directly: fewer deferrable tools than TOOL_SEARCH_DEFER's threshold`
  }) · strategy ${info.strategy}`

/**
 * A turn's figures, for the line after its answer: requests, tool-definition tokens against the
 * whole catalog, the input tokens the provider reported (and those its cache served), and the
 * share of the input a prefix cache could serve by the executor's own count.
 *
 * @since 0.2.0
 * @category output
 */
export const turnSummary = (events: ReadonlyArray<TurnEvent.TurnEvent>): string => {
  const requests = events.filter((e): e is TurnEvent.ModelRequest => e._tag === "ModelRequest" && e.path.length === 0)
  const responses = events.filter((e): e is TurnEvent.ModelResponse => e._tag === "ModelResponse")
  const tool = requests.reduce((s, r) => s + r.toolTokens, 0)
  const eager = requests.reduce((s, r) => s + r.eagerToolTokens, 0)
  const fmt = (n: number) => n.toLocaleString("en-US")
  const cached = responses.every((r) => r.cachedInputTokens !== null)
    ? `, ${fmt(responses.reduce((s, r) => s + (r.cachedInputTokens ?? 0), 0))} from its cache`
    : ""
  const input = responses.every((r) => r.inputTokens !== null)
    ? `${fmt(responses.reduce((s, r) => s + (r.inputTokens ?? 0), 0))} input tokens${cached}`
    : "input tokens not reported"
  const counted = requests.reduce((s, r) => s + r.inputTokens, 0)
  const prefix = requests.reduce((s, r) => s + r.prefixTokens, 0)
  const share = counted === 0 ? "" : ` · ${((prefix / counted) * 100).toFixed(0)}% of the input cacheable`
  return `${requests.length} requests · ${fmt(tool)} tool-definition tokens (the whole catalog every time: ${
    fmt(eager)
  }) · ${input}${share}`
}
