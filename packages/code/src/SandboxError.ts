/**
 * Why a program run in the `Sandbox` did not return a value: one error, `SandboxError`, whose
 * `reason` says which case it was. Part of the `Sandbox` module (`Sandbox.SandboxError`,
 * `Sandbox.Reason`, ...), and `SandboxError` is also exported at the top level of the package. Every message is written for the model that wrote the program:
 * what went wrong, where (line and column of its code, for exceptions and for the limits a line
 * can be blamed for), and what to change. The console output up to the failure travels with the
 * error, so the model sees how far its program got.
 *
 * @since 0.2.0
 */
import { Duration, Schema } from "effect"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * One line a program wrote with `console.log`, `console.error`, ...
 *
 * @since 0.2.0
 * @category models
 */
export const LogLine = Schema.Struct({
  level: Schema.Literals(["log", "info", "warn", "error", "debug"]),
  text: Schema.String
})

/**
 * One line a program wrote.
 *
 * @since 0.2.0
 * @category models
 */
export type LogLine = typeof LogLine.Type

/**
 * The limits that end a run: its time, memory, stack, number of tool calls, output (console
 * output plus the returned value), and the size of its code.
 *
 * @since 0.2.0
 * @category models
 */
export const Limit = Schema.Literals(["time", "memory", "stack", "tool-calls", "output", "size"])

/**
 * A limit that ends a run.
 *
 * @since 0.2.0
 * @category models
 */
export type Limit = typeof Limit.Type

const position = {
  /** 1-based line in the program's code. */
  line: Schema.optionalKey(Schema.Int),
  /** 1-based column in that line. */
  column: Schema.optionalKey(Schema.Int)
}

/**
 * The program does not parse.
 *
 * @since 0.2.0
 * @category reasons
 */
export const InvalidSyntax = Schema.TaggedStruct("InvalidSyntax", { message: Schema.String, ...position })

/**
 * The program threw and did not catch: the error's name and message, where it was thrown, and the
 * frames of the program's own code that led there (innermost first).
 *
 * @since 0.2.0
 * @category reasons
 */
export const Exception = Schema.TaggedStruct("Exception", {
  name: Schema.String,
  message: Schema.String,
  ...position,
  frames: Schema.Array(Schema.String)
})

/**
 * The program reached a limit and was stopped. `value` is the limit in its unit (milliseconds,
 * megabytes, kilobytes, calls, characters); a position is given where a line is to blame (memory,
 * stack).
 *
 * @since 0.2.0
 * @category reasons
 */
export const LimitExceeded = Schema.TaggedStruct("LimitExceeded", {
  limit: Limit,
  value: Schema.Number,
  ...position
})

/**
 * The program returned a value that is not JSON (a function, a `BigInt`, a cycle, ...).
 *
 * @since 0.2.0
 * @category reasons
 */
export const InvalidResult = Schema.TaggedStruct("InvalidResult", { message: Schema.String })

/**
 * The program waits for a promise that nothing can settle: no tool call is in flight and the
 * sandbox has no timers, so it could never go on.
 *
 * @since 0.2.0
 * @category reasons
 */
export const Stalled = Schema.TaggedStruct("Stalled", {})

/**
 * The sandbox itself failed (its worker thread could not start or died): not the program's fault;
 * running it again may work.
 *
 * @since 0.2.0
 * @category reasons
 */
export const Crashed = Schema.TaggedStruct("Crashed", { message: Schema.String })

/**
 * Every reason a run can fail.
 *
 * @since 0.2.0
 * @category reasons
 */
export const Reason = Schema.Union([InvalidSyntax, Exception, LimitExceeded, InvalidResult, Stalled, Crashed])

/**
 * Every reason a run can fail.
 *
 * @since 0.2.0
 * @category reasons
 */
export type Reason = typeof Reason.Type

// -----------------------------------------------------------------------------
// Errors
// -----------------------------------------------------------------------------

/**
 * A program run did not return a value. `reason` says why; `logs` are the lines the program wrote
 * before it ended; `toolCalls` how many tool calls it made.
 *
 * @since 0.2.0
 * @category errors
 */
export class SandboxError extends Schema.TaggedError<SandboxError>()("SandboxError", {
  reason: Reason,
  logs: Schema.Array(LogLine),
  toolCalls: Schema.Int
}) {
  override get message(): string {
    return explain(this.reason)
  }
}

// -----------------------------------------------------------------------------
// Messages
// -----------------------------------------------------------------------------

const at = (reason: { readonly line?: number; readonly column?: number }): string =>
  reason.line === undefined
    ? ""
    : reason.column === undefined
    ? ` (line ${reason.line})`
    : ` (line ${reason.line}, column ${reason.column})`

const count = (n: number): string => n.toLocaleString("en-US")

/**
 * The message of a reason, for the model: what happened, where, and what to change.
 *
 * @since 0.2.0
 * @category messages
 */
export const explain = (reason: Reason): string => {
  switch (reason._tag) {
    case "InvalidSyntax":
      return `SyntaxError: ${reason.message}${at(reason)}. ` +
        "The code is the body of an async function: fix the syntax and run it again."
    case "Exception": {
      const head = `Uncaught ${reason.name === "" ? "exception" : reason.name}: ${reason.message}${at(reason)}`
      return reason.frames.length === 0 ? head : `${head}\n${reason.frames.map((f) => `    at ${f}`).join("\n")}`
    }
    case "LimitExceeded":
      return limitMessage(reason)
    case "InvalidResult":
      return `The returned value is not JSON: ${reason.message}. Return plain data (objects, arrays, strings, ` +
        "numbers, booleans, null)."
    case "Stalled":
      return "The program waits for a promise that never settles (no tool call is in flight, and there are no " +
        "timers). Await only tool calls and promises they settle."
    case "Crashed":
      return `The sandbox failed while running the program: ${reason.message}. Running it again may work.`
  }
}

const limitMessage = (reason: typeof LimitExceeded.Type): string => {
  switch (reason.limit) {
    case "time":
      return `The program ran longer than ${Duration.format(Duration.millis(reason.value))} and was stopped. ` +
        "Do less in one run: fewer or smaller steps, or split the work into several runs."
    case "memory":
      return `The program used more than ${count(reason.value)} MB of memory and was stopped${at(reason)}. ` +
        "Keep less data at once: process it in pieces and keep only what you need."
    case "stack":
      return `The program nested calls deeper than its ${count(reason.value)} KB stack allows and was stopped${
        at(reason)
      }. Use a loop instead of deep recursion.`
    case "tool-calls":
      return `The program made more than ${count(reason.value)} tool calls and was stopped. ` +
        "Make fewer calls in one run, or split the work into several runs."
    case "output":
      return `The program's output (console output and returned value) went over ${
        count(reason.value)
      } characters and the program was stopped. Log and return less: filter or summarize inside the program.`
    case "size":
      return `The program is longer than ${count(reason.value)} characters and was not run. Write a shorter program.`
  }
}
