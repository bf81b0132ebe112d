/**
 * `tool-search toc --catalog <file|-> [--connected s,...] [--allow s,...] [--select n,...]
 * [--strict|--no-strict] [--json] [--sanitize-names] [--skip-invalid]`: prints what a model would
 * get in `staged` mode from a catalog file — the table of contents appended to the system prompt,
 * the tools sent with the first request, and the tools a search may return. When strict mode
 * hides every tool, the output says so in place of the table and what to pass instead (the sources
 * the file names, or `--no-strict` and `--select` for a plain catalog without sources); with
 * `--json` that note goes to stderr.
 *
 * Every other setting comes from the `TOOL_SEARCH_*` environment variables (see
 * docs/visibility.md); the flags override the visibility ones, and the mode is always `staged`.
 * Sources are each tool's `source` field.
 *
 * @since 0.1.0
 */
import { CatalogFile, type CatalogTool, Setting, ToolCatalog, ToolSearchConfig, Unit } from "@tool-search/core"
import { Console, Effect, type FileSystem, Layer, Option, type Stdio } from "effect"
import { Command, Flag } from "effect/cli"
import * as Catalogs from "../Catalogs.js"
import { helpHint, report, UsageError } from "../CliError.js"
import * as Flags from "../Flags.js"

/**
 * The `--json` answer.
 *
 * @since 0.1.0
 * @category models
 */
export interface JsonOutput {
  /** The system-prompt section holding the table of contents; empty when nothing deferred is visible. */
  readonly toc: string
  /** Tool names sent with the first request. */
  readonly visible: ReadonlyArray<string>
  /** Tool names a search may return. */
  readonly searchable: ReadonlyArray<string>
}

/** A flag whose default comes from the environment (`TOOL_SEARCH_*`), shown in the help. */
const fromEnvironment = <A>(flag: Flag.Flag<A>, description: string, variable: string, otherwise: string) =>
  flag.pipe(Flag.withDescription(`${description} (default: ${variable}, else ${otherwise})`), Flag.optional)

/**
 * The `toc` command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("toc", {
  catalog: Flags.catalog(),
  connected: fromEnvironment(
    Flag.String("connected"),
    "sources the user connected to the agent (comma-separated)",
    ToolSearchConfig.settings.connected.env,
    "none"
  ),
  allow: fromEnvironment(
    Flag.String("allow"),
    "platform sources the agent may explore (comma-separated, or '*'); turns exploration on",
    ToolSearchConfig.settings.platformSources.env,
    "none"
  ),
  select: fromEnvironment(
    Flag.String("select"),
    "tools the agent names explicitly (comma-separated)",
    ToolSearchConfig.settings.select.env,
    "none"
  ),
  strict: fromEnvironment(
    Flag.Boolean("strict"),
    "nothing outside the selection exists; --no-strict makes the whole catalog searchable",
    ToolSearchConfig.settings.strict.env,
    "true"
  ),
  json: Flags.json,
  sanitizeNames: Flags.sanitizeNames,
  skipInvalid: Flags.skipInvalid
}, (flags): Effect.Effect<void, UsageError, FileSystem.FileSystem | Stdio.Stdio> =>
  Effect.gen(function*() {
    const settings = yield* settingsFor(flags)
    const tools = yield* Catalogs.load(flags.catalog, {
      names: flags.sanitizeNames ? "sanitize" : "strict",
      skipInvalid: flags.skipInvalid
    })
    const output = yield* Effect.gen(function*() {
      const catalog = yield* ToolCatalog.ToolCatalog
      yield* catalog.register(tools)
      return yield* Unit.provide(Effect.gen(function*() {
        return {
          toc: yield* Unit.contents,
          visible: (yield* Unit.tools).map((t) => t.name),
          searchable: (yield* Unit.searchable).map((t) => t.modelName)
        } satisfies JsonOutput
      }))
    }).pipe(
      Effect.provide(ToolCatalog.layer.pipe(Layer.provideMerge(ToolSearchConfig.layer(settings)))),
      Effect.mapError((e) => new UsageError({ reason: e.message, subject: "catalog" }))
    )
    const why = emptyBecause(tools, output, settings.visibility.strict)
    // with --json stdout is the object: the reason goes to stderr; otherwise it stands in for the table
    if (flags.json) {
      if (Option.isSome(why)) yield* Console.error(`tool-search: ${why.value} ${helpHint(["tool-search", "toc"])}`)
      return yield* Console.log(JSON.stringify(output))
    }
    yield* Console.log(
      output.toc !== "" ?
        output.toc :
        `(no table of contents: ${Option.getOrElse(why, () => "none of the tools this agent may use is deferred")})`
    )
    yield* Console.log("")
    yield* Console.log(`tools at the first request (${output.visible.length}): ${output.visible.join(", ")}`)
    yield* Console.log(`searchable (${output.searchable.length}): ${output.searchable.join(", ")}`)
  }).pipe(report("tool-search toc", { json: flags.json }))).pipe(
    Command.withDescription("print the table of contents and the tools a model would get (staged mode)")
  )

/**
 * Why strict mode leaves nothing to show, and what to pass instead, when it hides every tool of the
 * catalog: the sources the file names, or, for a plain catalog whose tools name none, `--select`
 * and `--no-strict` (the only ways to reach them).
 */
const emptyBecause = (
  tools: ReadonlyArray<CatalogTool.CatalogTool>,
  output: JsonOutput,
  strict: boolean
): Option.Option<string> => {
  const shown = new Set([...output.visible, ...output.searchable])
  const hidden = tools.filter((t) => !shown.has(t.name))
  if (!strict || output.searchable.length > 0 || hidden.length === 0) return Option.none()
  const all = hidden.length === tools.length
    ? `strict mode hides all ${hidden.length} ${hidden.length === 1 ? "tool" : "tools"} of the catalog`
    : `strict mode hides ${hidden.length} of the catalog's ${tools.length} tools`
  const sources = [...new Set(hidden.flatMap((t) => t.source === undefined ? [] : [t.source]))]
  if (sources.length === 0) {
    return Option.some(
      `${all}, and they name no source (no "source" field) that --connected or --allow could name: ` +
        `pass --no-strict to make the whole catalog searchable, or --select <name,...> for single tools`
    )
  }
  const named = sources.slice(0, 5).map((s) => CatalogFile.printable(s, 40)).join(", ")
  return Option.some(
    `${all}: name the sources the agent is connected to (--connected; this catalog's sources: ${named}${
      sources.length > 5 ? `, and ${sources.length - 5} more` : ""
    }), the platform sources it may explore (--allow) or single tools (--select), ` +
      `or make the whole catalog searchable with --no-strict`
  )
}

/**
 * The settings in `staged` mode: the visibility flags, then the `TOOL_SEARCH_*` environment, then
 * the defaults. A bad flag value is an error naming the flag; a bad variable names the variable.
 */
const settingsFor = (flags: {
  readonly connected: Option.Option<string>
  readonly allow: Option.Option<string>
  readonly select: Option.Option<string>
  readonly strict: Option.Option<boolean>
}): Effect.Effect<ToolSearchConfig.Settings, UsageError> => {
  const tables = [ToolSearchConfig.settings]
  const given = {
    connected: Option.getOrUndefined(flags.connected),
    platformSources: Option.getOrUndefined(flags.allow),
    select: Option.getOrUndefined(flags.select),
    strict: Option.getOrUndefined(flags.strict)
  }
  const labels: Record<string, string> = { platformSources: "allow" }
  return Setting.check(tables, given, (s) => `--${labels[s.key] ?? s.flag}`).pipe(
    Effect.andThen(
      Setting.read(ToolSearchConfig.config, tables, {
        // --allow turns exploration on, whatever the environment says
        flags: { ...given, mode: "staged", ...(given.platformSources === undefined ? {} : { explore: true }) }
      })
    ),
    Effect.mapError((e) =>
      new UsageError({ reason: `invalid configuration: ${Setting.explain(e)}`, subject: "settings" })
    )
  )
}
