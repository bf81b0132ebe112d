/**
 * Errors the command reports itself, with exit code 2 (bad input: an unknown flag, a bad value, a
 * missing or malformed file, an unknown strategy): one line on stderr, or with `--json` one JSON
 * object on stdout (`{"error": {"command", "subject", "message", "exitCode"}}`). The runtime
 * neither logs them again nor prints a stack trace; the help is printed only when asked for.
 *
 * @since 0.1.0
 */
import { GatewayFile } from "@tool-search/mcp"
import { Console, Effect, Runtime, Schema } from "effect"
import type { CliError } from "effect/cli"

/**
 * What a failure is about, for scripts (`--json`): the command line (`arguments`), a setting from a
 * flag, a config file or a variable (`settings`), the catalog file, the queries file, serve's
 * config file, the database, the language model, the search strategy, an MCP server, or a file the
 * command writes (`output`).
 *
 * @since 0.2.0
 * @category models
 */
export const Subject = Schema.Literals([
  "arguments",
  "settings",
  "catalog",
  "queries",
  "config",
  "database",
  "model",
  "search",
  "upstream",
  "output"
])

/**
 * What a failure is about.
 *
 * @since 0.2.0
 * @category models
 */
export type Subject = typeof Subject.Type

/**
 * Bad input from the command line or a file it names; `subject` says which.
 *
 * @since 0.1.0
 * @category errors
 */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", {
  reason: Schema.String,
  subject: Subject
}) {
  override readonly [Runtime.errorExitCode] = 2
  override readonly [Runtime.errorReported] = false
  override get message(): string {
    return this.reason
  }
}

/**
 * A failure as the command reports it: its message, what it is about, and the exit code.
 *
 * @since 0.2.0
 * @category models
 */
export interface Failure {
  readonly message: string
  readonly subject: Subject
  readonly exitCode: number
}

/**
 * The `--json` form of a failure of `command` (`tool-search search`).
 *
 * @since 0.2.0
 * @category models
 */
export interface JsonFailure {
  readonly error: {
    readonly command: string
    readonly subject: Subject
    readonly message: string
    readonly exitCode: number
  }
}

/**
 * The `--json` form of a failure of `command`.
 *
 * @since 0.2.0
 * @category formatting
 */
export const toJson = (command: string, failure: Failure): JsonFailure => ({
  error: { command, subject: failure.subject, message: failure.message, exitCode: failure.exitCode }
})

/**
 * Prints a failure of `command`: one line on stderr, or with `json` one JSON object on stdout.
 *
 * @since 0.2.0
 * @category reporting
 */
export const print = (command: string, json: boolean) => (failure: Failure): Effect.Effect<void> =>
  json
    ? Console.log(JSON.stringify(toJson(command, failure)))
    : Console.error(`tool-search: ${failure.message}`)

/**
 * Prints the usage error `effect` fails with as `print` does, and fails with it, so the process
 * exits with 2.
 *
 * @since 0.1.0
 * @category reporting
 */
export const report = (command: string, options: { readonly json: boolean }) =>
<A, R>(
  effect: Effect.Effect<A, UsageError, R>
): Effect.Effect<A, UsageError, R> =>
  Effect.tapError(effect, (e) => print(command, options.json)({ message: e.message, subject: e.subject, exitCode: 2 }))

/**
 * Where to read more about a command: `(try 'tool-search search --help')`.
 *
 * @since 0.2.0
 * @category formatting
 */
export const helpHint = (commandPath: ReadonlyArray<string>): string => `(try '${commandPath.join(" ")} --help')`

/**
 * A bad flag value found by a command itself, with the hint to its help.
 *
 * @since 0.2.0
 * @category constructors
 */
export const badValue = (command: string, reason: string, subject: Subject = "arguments"): UsageError =>
  new UsageError({ reason: `${reason} ${helpHint(["tool-search", command])}`, subject })

/** `Expected an integer` -> `expected an integer`. */
const expectation = (expected: string): string =>
  /^expected\b/i.test(expected) ? `e${expected.slice(1)}` : `expected ${expected}`

const quoted = (values: ReadonlyArray<string>): string => values.map((v) => `'${v}'`).join(" or ")

/**
 * A command-line parsing error in a few words: `unknown flag --colour (did you mean '--color'?)`.
 *
 * @since 0.2.0
 * @category formatting
 */
export const describe = (error: CliError.NonShowHelpErrors): string => {
  switch (error._tag) {
    case "UnrecognizedOption": {
      const old = GatewayFile.retired.find((r) => `--${r.flag}` === error.option)
      if (old !== undefined) return GatewayFile.retiredError(old, "flag")
      return `unknown flag ${error.option}${
        error.suggestions.length > 0 ? ` (did you mean ${quoted(error.suggestions)}?)` : ""
      }`
    }
    case "DuplicateOption":
      return `flag --${error.option} is defined by both '${error.parentCommand}' and '${error.childCommand}'`
    case "MissingOption":
      return `missing required flag --${error.option}`
    case "MissingArgument":
      return `missing argument <${error.argument}>`
    case "UnexpectedArgument":
      return `unexpected argument ${quoted(error.arguments)}`
    case "InvalidValue":
      return `invalid value for ${error.kind === "flag" ? `--${error.option}` : `<${error.option}>`}: '${
        error.value.slice(0, 80)
      }' (${expectation(error.expected)})`
    case "UnknownSubcommand":
      return `unknown command '${error.subcommand}'${
        error.suggestions.length > 0 ? ` (did you mean ${quoted(error.suggestions)}?)` : ""
      }`
    default:
      return error.message
  }
}
