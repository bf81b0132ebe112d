/**
 * The `tool-search` command line: `search`, `toc`, `serve`, `demo`, `chat`, `run`, `bench`,
 * `bench-executor`, `bench-disclosure`, `audit`,
 * and the conventions every command follows:
 *
 * - a usage error (unknown flag or command, bad value, missing flag or argument) is one short
 *   line on stderr with a hint to `--help`, and exit code 2; the help is printed only when asked;
 * - `--help` marks each flag with its default, `(required)` or `(optional)`; a flag whose
 *   description already says when it is needed (`--upstream`, needed unless `--config` names
 *   servers) keeps its own words;
 * - errors found while running (a missing file, a bad catalog) are one message and exit code 2 too
 *   (`CliError.UsageError`; a catalog tool's decoding error keeps the decoder's line breaks);
 *   progress of work over a second goes to stderr (`Progress`);
 * - with `--json`, every failure is one JSON object on stdout instead,
 *   `{"error": {"command", "subject", "message", "exitCode"}}`, with the same exit code
 *   (`CliError.print`).
 *
 * @since 0.1.0
 */
import { VectorCache } from "@tool-search/core"
import { PackageVersion } from "@tool-search/mcp"
import { Console, Effect, Option, Stdio } from "effect"
import { CliError, CliOutput, Command, type HelpDoc } from "effect/cli"
import { describe, helpHint, print, UsageError } from "./CliError.js"
import * as Audit from "./commands/Audit.js"
import * as Bench from "./commands/Bench.js"
import * as BenchDisclosure from "./commands/BenchDisclosure.js"
import * as BenchExecutor from "./commands/BenchExecutor.js"
import * as Chat from "./commands/Chat.js"
import * as Demo from "./commands/Demo.js"
import * as Run from "./commands/Run.js"
import * as Search from "./commands/Search.js"
import * as Serve from "./commands/Serve.js"
import * as Toc from "./commands/Toc.js"

/**
 * The version printed by `--version`: the one in this package's `package.json`.
 *
 * @since 0.1.0
 * @category constants
 */
export const version: string = PackageVersion.read("@tool-search/cli", import.meta.url)

/**
 * The root command with its subcommands.
 *
 * @since 0.1.0
 * @category commands
 */
export const cli = Command.make("tool-search").pipe(
  Command.withDescription("progressive tool disclosure for LLM agents"),
  Command.withSubcommands([
    Search.command,
    Toc.command,
    Serve.command,
    Demo.command,
    Chat.command,
    Run.command,
    Bench.command,
    BenchExecutor.command,
    BenchDisclosure.command,
    Audit.command
  ])
)

/**
 * Each flag's help line says whether it has a default, is required, or is optional; a description
 * that already says so (`Flags.withDefault`, `Flags.repeatable`) is kept as written.
 */
const markFlags = (doc: HelpDoc.HelpDoc): HelpDoc.HelpDoc => ({
  ...doc,
  flags: doc.flags.map((flag) => {
    const description = Option.getOrElse(flag.description, () => "")
    if (/\((default: |required|optional)/.test(description)) return flag
    return { ...flag, description: Option.some(`${description} (${flag.required ? "required" : "optional"})`.trim()) }
  })
})

/**
 * Whether the command line asks for `--json` (before a `--` that ends the flags): its usage errors
 * are then one JSON object too.
 *
 * @since 0.2.0
 * @category presenting
 */
export const wantsJson = (argv: ReadonlyArray<string>): boolean => {
  const end = argv.indexOf("--")
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === "--json" || a === "--json=true")
}

/**
 * Help and version on stdout; a usage error as one line on stderr with the hint to `--help`, or
 * with `json` as one JSON object on stdout (`CliError.print`).
 *
 * @since 0.2.0
 * @category presenting
 */
export const presenter = (options: { readonly json: boolean }): CliOutput.Presenter => ({
  present: (event) =>
    Effect.gen(function*() {
      const formatter = yield* CliOutput.Formatter
      switch (event._tag) {
        case "Help":
          return yield* Console.log(formatter.formatHelpDoc(markFlags(event.helpDoc)))
        case "Version":
          return yield* Console.log(formatter.formatVersion(event.name, event.version))
        case "InvalidInvocation": {
          const [first] = event.errors
          const message = first === undefined ? "invalid command line" : describe(first)
          const command = event.commandPath.join(" ")
          return yield* options.json
            ? print(command, true)({ message, subject: "arguments", exitCode: 2 })
            : Console.error(`${command}: ${message} ${helpHint(event.commandPath)}`)
        }
      }
    })
})

const isInvalidInvocation = (error: unknown): error is CliError.ShowHelp =>
  CliError.isCliError(error) && error._tag === "ShowHelp" && error.errors.length > 0

/**
 * Runs the command line on explicit arguments (tests use this); a usage error exits with 2. Tool
 * vectors are cached in files (`VectorCache.layerFile`).
 *
 * @since 0.1.0
 * @category running
 */
export const run = (argv: ReadonlyArray<string>) =>
  Command.runWith(cli, { version })(argv).pipe(
    // the presenter printed it: fail with exit code 2, and nothing more on the terminal
    Effect.catchIf(isInvalidInvocation, (e) =>
      Effect.fail(new UsageError({ reason: e.errors.map(describe).join("; "), subject: "arguments" }))),
    Effect.provide(CliOutput.layerPresenter(presenter({ json: wantsJson(argv) }))),
    // the semantic strategies keep tool vectors in files: a second run embeds nothing
    Effect.provide(VectorCache.layerFile)
  )

/**
 * The command line on the process's arguments (`Stdio`), as the binary runs it.
 *
 * @since 0.2.0
 * @category running
 */
export const main = Effect.flatMap(Stdio.Stdio, (stdio) => Effect.flatMap(stdio.args, run))
