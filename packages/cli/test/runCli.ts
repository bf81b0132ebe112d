import { NodeServices } from "@effect/platform-node"
import { Cause, ConfigProvider, Effect, Exit, Runtime, Stdio, Stream } from "effect"
import { TestConsole } from "effect/testing"
import { Cli } from "../src/index.js"

/** Options of `runCli`. */
export interface Options {
  /** Standard input, which then ends (default: empty, as `runBinary` closes it). */
  readonly input?: string
}

/**
 * What the binary's runtime (`NodeRuntime.runMain`) makes of an exit: its exit code
 * (`Runtime.defaultTeardown`), and the failure it logs on stderr unless the error says it was
 * reported already (`Runtime.errorReported`).
 */
const teardown = <A, E>(exit: Exit.Exit<A, E>): { readonly status: number; readonly logged: string } => {
  let status = 0
  Runtime.defaultTeardown(exit, (code) => {
    status = code
  })
  const logged = Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause) &&
      Runtime.getErrorReported(Cause.squash(exit.cause))
    ? Cause.pretty(exit.cause)
    : ""
  return { status, logged }
}

/** Everything written to the process's stdout and stderr while `effect` runs, beside the test console. */
const capturingWrites = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const written = { out: "", err: "" }
      const out = process.stdout.write
      const err = process.stderr.write
      const capture = (key: "out" | "err") => (chunk: string | Uint8Array, ...rest: Array<unknown>): boolean => {
        written[key] += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8")
        const done = rest.find((r) => typeof r === "function")
        if (typeof done === "function") done()
        return true
      }
      process.stdout.write = capture("out") as typeof process.stdout.write
      process.stderr.write = capture("err") as typeof process.stderr.write
      const restore = () => {
        process.stdout.write = out
        process.stderr.write = err
      }
      return { written, restore }
    }),
    ({ written }) => Effect.map(effect, (a) => [a, written] as const),
    ({ restore }) => Effect.sync(restore)
  )

/**
 * Runs the command line in this process on `argv` with `env` as the only environment (the ambient
 * one must not leak into expectations) and `input` on standard input, and returns what the binary
 * would have done: its exit, its exit code (`status`), and what it printed on stdout (`out`) and
 * stderr (`err`) — the console's lines of this run (the test console keeps every line of the test,
 * so earlier runs' lines are cut off), what went to the process's streams directly, and the failure
 * the runtime would log — also as the process prints them, each line ending with a newline
 * (`stdout`, `stderr`).
 */
export const runCli = (argv: ReadonlyArray<string>, env: Record<string, string> = {}, options: Options = {}) =>
  Effect.gen(function*() {
    const outBefore = (yield* TestConsole.logLines).length
    const errBefore = (yield* TestConsole.errorLines).length
    const [exit, written] = yield* capturingWrites(Effect.exit(Cli.run(argv)))
    const { logged, status } = teardown(exit)
    const join = (...parts: ReadonlyArray<string>) => parts.filter((p) => p !== "").join("\n")
    const out = join((yield* TestConsole.logLines).slice(outBefore).join("\n"), written.out.trimEnd())
    const err = join((yield* TestConsole.errorLines).slice(errBefore).join("\n"), written.err.trimEnd(), logged)
    // as a process prints them: each line ends with a newline
    const printed = (lines: string) => lines === "" ? "" : `${lines}\n`
    return { exit, status, out, err, stdout: printed(out), stderr: printed(err) }
  }).pipe(
    // the test's standard input in place of the process's (the inner layer wins)
    Effect.provide(Stdio.layerTest({
      args: Effect.succeed(argv),
      stdin: Stream.make(new TextEncoder().encode(options.input ?? ""))
    })),
    Effect.provide(NodeServices.layer),
    Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env }))
  )

/**
 * `runCli` for a test that is not an Effect (`it` with an async function): the same run with a test
 * console of its own, on the real clock.
 */
export const runCliPromise = (argv: ReadonlyArray<string>, env: Record<string, string> = {}, options: Options = {}) =>
  Effect.runPromise(runCli(argv, env, options).pipe(Effect.provide(TestConsole.layer)))
