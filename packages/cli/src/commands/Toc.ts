/**
 * `tool-search toc --catalog <file> [--connected s,...] [--allow s,...] [--select n,...]
 * [--strict|--no-strict] [--json]`: prints what a model would get in `staged` mode from a catalog
 * file — the table of contents appended to the system prompt, the tools sent with the first
 * request, and the tools a search may return.
 *
 * Every other setting comes from the `TOOL_SEARCH_*` environment variables (see
 * docs/visibility.md); the flags override the visibility ones, and the mode is always `staged`.
 * Sources are each tool's `source` field.
 *
 * @since 0.1.0
 */
import { TableOfContents, ToolCatalog, ToolSearchConfig, ToolView } from "@tool-search/core"
import { Console, Effect, type FileSystem, Layer, Option, Result } from "effect"
import { Command, Flag } from "effect/cli"
import * as Catalogs from "../Catalogs.js"
import { report, UsageError } from "../CliError.js"
import { sanitizeFlag } from "./Search.js"

/** The `--json` answer. */
export interface JsonOutput {
  /** The system-prompt section holding the table of contents; empty when nothing deferred is visible. */
  readonly toc: string
  /** Tool names sent with the first request. */
  readonly visible: ReadonlyArray<string>
  /** Tool names a search may return. */
  readonly searchable: ReadonlyArray<string>
}

const list = (name: string) => Flag.String(name).pipe(Flag.optional)

/** The `toc` command. */
export const command = Command.make("toc", {
  catalog: Flag.String("catalog").pipe(Flag.withDescription("catalog file: JSONL, JSON array or MCP tools/list")),
  connected: list("connected").pipe(Flag.withDescription("sources the user connected to the agent (comma-separated)")),
  allow: list("allow").pipe(
    Flag.withDescription("platform sources the agent may explore (comma-separated, or '*'); turns exploration on")
  ),
  select: list("select").pipe(Flag.withDescription("tools the agent names explicitly (comma-separated)")),
  strict: Flag.Boolean("strict").pipe(
    Flag.withDescription(
      "nothing outside the selection exists (default; --no-strict makes the whole catalog searchable)"
    ),
    Flag.optional
  ),
  json: Flag.Boolean("json").pipe(Flag.withDescription("print one JSON object"), Flag.withDefault(false)),
  sanitizeNames: sanitizeFlag
}, (flags): Effect.Effect<void, UsageError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const settings = yield* settingsFor(flags)
    const tools = yield* Catalogs.load(flags.catalog, { names: flags.sanitizeNames ? "sanitize" : "strict" })
    const output = yield* Effect.gen(function*() {
      const catalog = yield* ToolCatalog.ToolCatalog
      yield* catalog.register(tools)
      return yield* ToolView.withUnit(Effect.gen(function*() {
        const view = yield* ToolView.ToolView
        return {
          toc: yield* TableOfContents.systemPrompt,
          visible: (yield* view.visible).map((t) => t.name),
          searchable: (yield* view.searchable).map((t) => t.modelName)
        } satisfies JsonOutput
      }))
    }).pipe(
      Effect.provide(ToolCatalog.ToolCatalog.layer.pipe(Layer.provideMerge(ToolSearchConfig.layerFrom(settings)))),
      Effect.mapError((e) => new UsageError({ reason: e.message }))
    )
    if (flags.json) return yield* Console.log(JSON.stringify(output))
    yield* Console.log(
      output.toc === "" ? "(no table of contents: no deferred tool exists for this agent)" : output.toc
    )
    yield* Console.log("")
    yield* Console.log(`tools at the first request (${output.visible.length}): ${output.visible.join(", ")}`)
    yield* Console.log(`searchable (${output.searchable.length}): ${output.searchable.join(", ")}`)
  }).pipe(report)).pipe(
    Command.withDescription("print the table of contents and the tools a model would get (staged mode)")
  )

/** The environment's settings, in `staged` mode, with the visibility flags applied. */
const settingsFor = (flags: {
  readonly connected: Option.Option<string>
  readonly allow: Option.Option<string>
  readonly select: Option.Option<string>
  readonly strict: Option.Option<boolean>
}): Effect.Effect<ToolSearchConfig.Settings, UsageError> =>
  Effect.gen(function*() {
    const env = yield* ToolSearchConfig.config.pipe(
      Effect.mapError((e) => new UsageError({ reason: `invalid configuration: ${ToolSearchConfig.explain(e)}` }))
    )
    const flag = <A>(name: string, value: Option.Option<string>, parse: (raw: string) => Result.Result<A, string>) =>
      Option.match(value, {
        onNone: () => Effect.succeed(Option.none<A>()),
        onSome: (raw) =>
          Result.match(parse(raw), {
            onSuccess: (a) => Effect.succeed(Option.some(a)),
            onFailure: (reason) =>
              Effect.fail(new UsageError({ reason: `--${name} ${JSON.stringify(raw)}: ${reason}` }))
          })
      })
    const connected = yield* flag("connected", flags.connected, ToolSearchConfig.parseList)
    const allow = yield* flag("allow", flags.allow, ToolSearchConfig.parseSources)
    const select = yield* flag("select", flags.select, ToolSearchConfig.parseList)
    const v = env.visibility
    return {
      ...env,
      disclosure: { ...env.disclosure, mode: "staged" },
      visibility: {
        ...v,
        strict: Option.getOrElse(flags.strict, () => v.strict),
        connected: Option.getOrElse(connected, () => v.connected),
        select: Option.getOrElse(select, () => v.select),
        explore: Option.isSome(allow) || v.explore,
        allow: Option.getOrElse(allow, () => v.allow)
      }
    }
  })
