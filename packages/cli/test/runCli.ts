import { NodeServices } from "@effect/platform-node"
import { ConfigProvider, Effect } from "effect"
import { TestConsole } from "effect/testing"
import { Cli } from "../src/index.js"

/**
 * Runs the command line on `argv` with `env` as the only environment (the ambient one must not leak
 * into expectations) and returns its exit and what this run printed (the test console keeps every
 * line of the test, so earlier runs' lines are cut off).
 */
export const runCli = (argv: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const outBefore = (yield* TestConsole.logLines).length
    const errBefore = (yield* TestConsole.errorLines).length
    const exit = yield* Effect.exit(Cli.run(argv))
    return {
      exit,
      out: (yield* TestConsole.logLines).slice(outBefore).join("\n"),
      err: (yield* TestConsole.errorLines).slice(errBefore).join("\n")
    }
  }).pipe(
    Effect.provide(NodeServices.layer),
    Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env }))
  )
