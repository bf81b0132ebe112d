/**
 * Runs a model's program: the body of an async JavaScript function, in QuickJS compiled to
 * WebAssembly, on a worker thread. Inside, `tools` holds one async function per tool the caller
 * names — `await tools["get-sum"]({ a: 2, b: 3 })` — and every call reaches the caller's `call`
 * function on the main thread, which is where a unit's normal call path (permission, argument
 * validation, timeout, result cap, audit) plugs in. `console.log` and its siblings are captured; the
 * returned value, as JSON, is the result.
 *
 * What the sandbox guarantees:
 *
 * - **No host objects.** A program sees the JavaScript language, `tools` and `console`: no
 *   `process`, `require`, `fetch`, module loader, timers, file or network access. Its objects never
 *   leave QuickJS; arguments and results cross as JSON text.
 * - **Nothing carries over.** Each run has its own QuickJS instance, dropped when it ends.
 * - **Limits** (`CodeConfig`): time, memory, stack, tool calls, output and code size. Each ends
 *   the run with a `SandboxError` whose message tells the model what to change, with the line and
 *   column of its code for exceptions.
 * - **The event loop stays free.** QuickJS runs synchronously, so it runs on a bounded pool of
 *   worker threads; a program looping forever blocks its own thread only. Interrupting the run's
 *   fiber stops the program and frees its QuickJS instance; a thread that does not stop within a
 *   grace period is terminated and replaced.
 *
 * @since 0.2.0
 */
import { Tracing } from "@tool-search/core"
import { Context, Duration, Effect, FiberSet, Layer, Option, Pool, Queue, Ref, Result, Schema, Semaphore } from "effect"
import type { Config, Scope } from "effect"
import * as CodeConfig from "./CodeConfig.js"
import * as Protocol from "./internal/protocol.js"
import * as Thread from "./internal/thread.js"
import { type LogLine, type Reason, SandboxError } from "./SandboxError.js"

// why a run failed: `Sandbox.SandboxError`, `Sandbox.Reason`, `Sandbox.explain`, ... (each documented there)
export * from "./SandboxError.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * A tool call of a program failed: the program's `await` rejects with an `Error` named
 * `ToolError` carrying `message`, which it may catch.
 *
 * @since 0.2.0
 * @category models
 */
export class CallFailure extends Schema.TaggedError<CallFailure>()("CallFailure", {
  tool: Schema.String,
  message: Schema.String
}) {}

/**
 * Runs one tool call of a program: the tool's name (one the program was given) and its arguments
 * (JSON, as the program passed them; not yet checked against the tool's schema). Succeeds with the
 * result the program receives (JSON-serializable), or fails with what the program sees. It may
 * require services (`R`): a unit's call path requires the unit, which the run then requires.
 *
 * @since 0.2.0
 * @category models
 */
export type CallTool<R = never> = (tool: string, args: unknown) => Effect.Effect<unknown, CallFailure, R>

/**
 * The limits of one run: every code-mode setting except the pool's size.
 *
 * @since 0.2.0
 * @category models
 */
export type Limits = Omit<CodeConfig.Settings, "codeWorkers">

/**
 * A program to run: its code (the body of an async function), the names of the tools it may call
 * (`tools[name]` exists for these and no others), how a call runs, and limits tighter or looser
 * than the sandbox's (the stack is capped at `CodeConfig.MAX_STACK_KB` whatever is asked).
 *
 * @since 0.2.0
 * @category models
 */
export interface Program<R = never> {
  readonly code: string
  readonly tools: ReadonlyArray<string>
  readonly call: CallTool<R>
  readonly limits?: Partial<Limits>
}

/**
 * What a program produced: its returned value (JSON; `null` when it returned nothing), the lines
 * it wrote, and how many tool calls it made.
 *
 * @since 0.2.0
 * @category models
 */
export interface Outcome {
  readonly result: unknown
  readonly logs: ReadonlyArray<LogLine>
  readonly toolCalls: number
}

// -----------------------------------------------------------------------------
// Service
// -----------------------------------------------------------------------------

/**
 * The sandbox: runs programs.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /**
   * Runs a program to its end: its outcome, or why it did not return. Interrupting the fiber stops
   * the program. Requires what its calls require.
   */
  readonly run: <R = never>(program: Program<R>) => Effect.Effect<Outcome, SandboxError, R>
}

/**
 * The sandbox service.
 *
 * @since 0.2.0
 * @category services
 */
export class Sandbox extends Context.Service<Sandbox, Service>()("@tool-search/code/Sandbox") {}

/** How long a stopped program has to end before its thread is terminated. */
const GRACE = Duration.seconds(2)
/** A thread idle for this long is ended; the next run starts one again (a second or so). */
const IDLE = Duration.minutes(5)

/**
 * A sandbox with `settings` (defaults for the rest), its threads owned by the scope.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (settings: Partial<CodeConfig.Settings> = {}): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.gen(function*() {
    const configured = { ...CodeConfig.defaults, ...settings }
    const pool = yield* Pool.makeWithTTL({
      acquire: Thread.spawn,
      min: 0,
      max: configured.codeWorkers,
      timeToLive: IDLE,
      targetUtilization: 1
    })
    const runs = yield* Ref.make(0)
    const run = Effect.fnUntraced(function*<R>(program: Program<R>) {
      const limits: Limits = { ...configured, ...program.limits }
      if (program.code.length > limits.codeMaxSize) {
        return yield* failure({ _tag: "LimitExceeded", limit: "size", value: limits.codeMaxSize })
      }
      return yield* Effect.scoped(Effect.gen(function*() {
        const thread = yield* Pool.get(pool).pipe(
          Effect.mapError((message) =>
            new SandboxError({ reason: { _tag: "Crashed", message }, logs: [], toolCalls: 0 })
          )
        )
        const discard = Effect.andThen(Thread.terminate(thread), Pool.invalidate(pool, thread))
        return yield* runOn(thread, discard, yield* Ref.updateAndGet(runs, (n) => n + 1), program, limits)
      }))
    }, Tracing.span("tool-search.code.run"))
    return Sandbox.of({ run })
  })

/**
 * A sandbox with `settings` (defaults for the rest).
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (settings: Partial<CodeConfig.Settings> = {}): Layer.Layer<Sandbox> =>
  Layer.effect(Sandbox, make(settings))

/**
 * A sandbox with the settings of the `ConfigProvider` in context (`CodeConfig`).
 *
 * @since 0.2.0
 * @category layers
 */
export const layerConfig: Layer.Layer<Sandbox, Config.ConfigError> = Layer.effect(
  Sandbox,
  Effect.gen(function*() {
    return yield* make(yield* CodeConfig.config)
  })
)

// -----------------------------------------------------------------------------
// For the model
// -----------------------------------------------------------------------------

/**
 * What the model receives for a run (`Effect.result` of `run`): `{ result, logs }` when it returned,
 * `{ error, logs }` when it did not (the error's message, written for the model); `logs` is left out when empty, and lines
 * other than `console.log`'s are marked with their level (`[warn] ...`).
 *
 * @since 0.2.0
 * @category for the model
 */
export const toModel = (
  ended: Result.Result<Outcome, SandboxError>
): { readonly isFailure: boolean; readonly result: Readonly<Record<string, unknown>> } => {
  const logs = (Result.isSuccess(ended) ? ended.success.logs : ended.failure.logs).map((line) =>
    line.level === "log" ? line.text : `[${line.level}] ${line.text}`
  )
  const withLogs = logs.length === 0 ? {} : { logs }
  return Result.isSuccess(ended)
    ? { isFailure: false, result: { result: ended.success.result, ...withLogs } }
    : { isFailure: true, result: { error: ended.failure.message, ...withLogs } }
}

// -----------------------------------------------------------------------------
// Internals
// -----------------------------------------------------------------------------

const failure = (
  reason: Reason,
  logs: ReadonlyArray<LogLine> = [],
  toolCalls = 0
): Effect.Effect<never, SandboxError> => Effect.fail(new SandboxError({ reason, logs, toolCalls }))

/** One run on `thread`; `discard` terminates the thread and takes it out of the pool. */
const runOn = <R>(
  thread: Thread.Thread,
  discard: Effect.Effect<void>,
  run: number,
  program: Program<R>,
  limits: Limits
): Effect.Effect<Outcome, SandboxError, Scope.Scope | R> =>
  Effect.gen(function*() {
    const allowed = new Set(program.tools)
    const memoryBytes = limits.codeMaxMemory * 1024 * 1024
    const send = (message: Protocol.ToWorker) => thread.worker.postMessage(message)
    const stop = Effect.sync(() => {
      Atomics.store(thread.control, 0, Protocol.STOP)
      send({ _tag: "Stop", run })
    })
    /** Whether the thread said how the run ended (or is gone): if not, the run must be stopped before the thread is reused. */
    let settled = false

    Atomics.store(thread.control, 0, Protocol.RUNNING)
    thread.worker.ref()
    yield* Effect.addFinalizer(() => Effect.sync(() => thread.worker.unref()))
    yield* Effect.addFinalizer(() =>
      settled ? Effect.void : stop.pipe(
        Effect.andThen(untilDone(thread, run).pipe(Effect.timeoutOption(GRACE))),
        Effect.flatMap((ended) => Option.isSome(ended) && ended.value ? Effect.void : discard)
      )
    )
    send({
      _tag: "Start",
      run,
      code: program.code,
      tools: [...allowed],
      memoryBytes,
      stackBytes: Math.min(limits.codeMaxStack, CodeConfig.MAX_STACK_KB) * 1024,
      maxToolCalls: limits.codeMaxToolCalls,
      maxOutput: limits.codeMaxOutput
    })

    const semaphore = yield* Semaphore.make(limits.codeToolConcurrency)
    const calls = yield* FiberSet.make()
    const settle = (call: Protocol.Call, ok: boolean, value: string) =>
      Effect.sync(() => send({ _tag: "Settle", run, id: call.id, ok, value }))
    const answer = (call: Protocol.Call): Effect.Effect<void, never, R> => {
      // the program's `tools` only has the allowed names; this holds even if it reached the bridge itself
      if (!allowed.has(call.tool)) return settle(call, false, `Unknown tool '${call.tool}'`)
      const args = parseJson(call.args)
      if (Option.isNone(args)) return settle(call, false, "The arguments are not JSON")
      return program.call(call.tool, args.value).pipe(
        semaphore.withPermits(1),
        Effect.flatMap((result) => {
          const json = toJson(result)
          if (json === undefined) return settle(call, false, `The result of '${call.tool}' is not JSON`)
          if (json.length > memoryBytes) {
            return settle(
              call,
              false,
              `The result of '${call.tool}' (${json.length.toLocaleString("en-US")} characters) does not fit in ` +
                `the program's memory (${limits.codeMaxMemory} MB): ask for less`
            )
          }
          return settle(call, true, json)
        }),
        Effect.catchTag("CallFailure", (f) => settle(call, false, f.message)),
        Effect.catchDefect((defect) =>
          Effect.logError(`tool '${call.tool}' crashed inside a program`, defect).pipe(
            Effect.andThen(settle(call, false, `Tool '${call.tool}' crashed`))
          )
        )
      )
    }

    // the time limit: stop the program; a thread that does not answer then is given up
    yield* Effect.forkScoped(
      Effect.sleep(limits.codeTimeout).pipe(
        Effect.andThen(stop),
        Effect.andThen(Effect.sleep(GRACE)),
        Effect.andThen(Queue.offer(thread.inbox, { _tag: "Unresponsive" }))
      )
    )
    const timeLimit: Reason = { _tag: "LimitExceeded", limit: "time", value: Duration.toMillis(limits.codeTimeout) }

    while (true) {
      const message = yield* Queue.take(thread.inbox)
      switch (message._tag) {
        case "Call":
          if (message.run === run) yield* FiberSet.run(calls, answer(message))
          break
        case "Done": {
          if (message.run !== run) break
          settled = true
          const { end, logs, toolCalls } = message
          if (end._tag === "Stopped") return yield* failure(timeLimit, logs, toolCalls)
          if (end._tag === "Failed") return yield* failure(end.reason, logs, toolCalls)
          const result = parseJson(end.json)
          if (Option.isNone(result)) {
            return yield* failure({ _tag: "Crashed", message: "the returned value could not be read" }, logs, toolCalls)
          }
          return { result: result.value, logs, toolCalls }
        }
        case "Exited":
          settled = true
          yield* discard
          return yield* failure({ _tag: "Crashed", message: message.message })
        case "Unresponsive":
          settled = true
          yield* discard
          return yield* failure(timeLimit)
      }
    }
  })

/** Waits for the end of `run` on `thread`, dropping its calls: whether it ended (false: the thread is gone). */
const untilDone = (thread: Thread.Thread, run: number): Effect.Effect<boolean> =>
  Effect.flatMap(Queue.take(thread.inbox), (message) =>
    message._tag === "Exited"
      ? Effect.succeed(false)
      : message._tag === "Done" && message.run === run
      ? Effect.succeed(true)
      : untilDone(thread, run))

const parseJson = (text: string): Option.Option<unknown> => {
  try {
    return Option.some(JSON.parse(text))
  } catch {
    return Option.none()
  }
}

/** The JSON text of a tool's result (`null` for nothing), or undefined when it is not JSON. */
const toJson = (value: unknown): string | undefined => {
  try {
    return value === undefined ? "null" : JSON.stringify(value)
  } catch {
    return undefined
  }
}
