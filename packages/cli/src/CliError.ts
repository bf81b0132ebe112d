/**
 * Errors the command reports itself, as one line on stderr, with exit code 2 (bad input: a
 * missing or malformed file, an unknown strategy). The runtime neither logs them again nor prints
 * a stack trace.
 *
 * @since 0.1.0
 */
import { Console, Effect, Runtime, Schema } from "effect"

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
