/**
 * The `tool-search` command line: `search`, `toc`, `serve`, `demo`, `chat`, `run`, `bench`,
 * `bench-executor`, `bench-disclosure`, `audit`,
 * and the conventions every command follows:
 *
 * - a usage error (unknown flag or command, bad value, missing flag or argument) is one short
 *   line on stderr with a hint to `--help`, and exit code 2; the help is printed only when asked;
 * - `--help` marks each flag with its default, `(required)` or `(optional)`;
 * - errors found while running (a missing file, a bad catalog) are one line and exit code 2 too
 *   (`CliError.UsageError`); progress of work over a second goes to stderr (`Progress`).
 *
 * @since 0.1.0
 */
import { VectorCache } from "@tool-search/core"
import { Console, Effect, Option, Stdio } from "effect"
import { CliError, CliOutput, Command, type HelpDoc } from "effect/cli"
import { readFileSync } from "node:fs"
import { describe, helpHint, UsageError } from "./CliError.js"
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

/** The package's own version, read from its `package.json` (from `src/` or `dist/src/`). */
const packageVersion = (): string => {
  for (const path of ["../package.json", "../../package.json"]) {
    try {
      const manifest: unknown = JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8"))
      if (
        typeof manifest === "object" && manifest !== null && "name" in manifest &&
        manifest.name === "@tool-search/cli" &&
        "version" in manifest && typeof manifest.version === "string"
      ) return manifest.version
    } catch {
      // not this one
    }
  }
  return "unknown"
}

/**
 * The version printed by `--version`: the package's.
 *
 * @since 0.1.0
 * @category constants
 */
export const version: string = packageVersion()

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

/** Each flag's help line says whether it has a default, is required, or is optional. */
const markFlags = (doc: HelpDoc.HelpDoc): HelpDoc.HelpDoc => ({
  ...doc,
  flags: doc.flags.map((flag) => {
    const description = Option.getOrElse(flag.description, () => "")
    if (description.includes("(default: ")) return flag
    return { ...flag, description: Option.some(`${description} (${flag.required ? "required" : "optional"})`.trim()) }
  })
})

/**
 * Help and version on stdout; a usage error as one line on stderr with the hint to `--help`.
 *
 * @since 0.2.0
 * @category presenting
 */
export const presenter: CliOutput.Presenter = {
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
          return yield* Console.error(`${event.commandPath.join(" ")}: ${message} ${helpHint(event.commandPath)}`)
        }
      }
    })
}

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
      Effect.fail(new UsageError({ reason: e.errors.map(describe).join("; ") }))),
    Effect.provide(CliOutput.layerPresenter(presenter)),
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
