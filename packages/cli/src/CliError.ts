/**
 * Errors the command reports itself, as one line on stderr, with exit code 2 (bad input: an
 * unknown flag, a bad value, a missing or malformed file, an unknown strategy). The runtime
 * neither logs them again nor prints a stack trace; the help is printed only when asked for.
 *
 * @since 0.1.0
 */
import { GatewayFile } from "@tool-search/mcp"
import { Console, Effect, Runtime, Schema } from "effect"
import type { CliError } from "effect/cli"

/** Bad input from the command line or a file it names. */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", { reason: Schema.String }) {
  override readonly [Runtime.errorExitCode] = 2
  override readonly [Runtime.errorReported] = false
  override get message(): string {
    return this.reason
  }
}

/** Prints a usage error as one line on stderr and fails with it, so the process exits with 2. */
export const report = <A, R>(effect: Effect.Effect<A, UsageError, R>): Effect.Effect<A, UsageError, R> =>
  Effect.tapError(effect, (e) => Console.error(`tool-search: ${e.message}`))

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
export const badValue = (command: string, reason: string): UsageError =>
  new UsageError({ reason: `${reason} ${helpHint(["tool-search", command])}` })

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
