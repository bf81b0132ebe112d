/**
 * A sandbox worker thread as the main thread holds it: the `Worker`, the control word shared with
 * it, and an inbox of its decoded messages (plus `Exited` when it dies). Spawned in a `Scope` that
 * terminates it; the `Sandbox` keeps a bounded pool of them.
 *
 * Threads do not keep the process alive while idle: the sandbox refs a thread only for the time
 * of a run.
 *
 * @internal
 */
import { Deferred, Duration, Effect, Exit, Option, Queue, Schema, type Scope } from "effect"
import { Worker } from "node:worker_threads"
import * as Protocol from "./protocol.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/** What reaches a run from its thread. */
export type Inbound =
  | Protocol.Call
  | Protocol.Done
  /** The thread died or broke the protocol; it takes no more runs. */
  | { readonly _tag: "Exited"; readonly message: string }
  /** A run asked to stop did not end within the grace period (the main thread put this here). */
  | { readonly _tag: "Unresponsive" }

export interface Thread {
  readonly worker: Worker
  readonly control: Int32Array
  readonly inbox: Queue.Queue<Inbound>
  /** Done with its exit code when the thread has exited (1 when it was terminated). */
  readonly exited: Deferred.Deferred<number>
}

/** The native stack of a worker thread: room for the largest QuickJS stack several times over. */
const STACK_MB = 16
/** The worker's own JavaScript heap (logs, messages); QuickJS's memory is WebAssembly memory, limited apart. */
const HEAP_MB = 256
/** How long a thread asked to shut down has to exit on its own before it is terminated. */
const SHUTDOWN_GRACE = Duration.seconds(2)

/**
 * The compiled worker. From the sources (tests run them through Vitest), the build output of
 * `tsc -b`: a worker thread runs plain JavaScript.
 */
const workerFile = (): URL =>
  import.meta.url.endsWith(".ts")
    ? new URL("../../dist/src/internal/worker.js", import.meta.url)
    : new URL("./worker.js", import.meta.url)

const decode = Schema.decodeUnknownOption(Protocol.FromWorker)

// -----------------------------------------------------------------------------
// Spawning
// -----------------------------------------------------------------------------

/** Starts a worker thread and waits until it has loaded QuickJS; fails with why it could not start. */
export const spawn: Effect.Effect<Thread, string, Scope.Scope> = Effect.acquireRelease(
  Effect.gen(function*() {
    const inbox = yield* Queue.unbounded<Inbound>()
    const ready = Deferred.makeUnsafe<void, string>()
    const exited = Deferred.makeUnsafe<number>()
    const control = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)
    const workerData: Protocol.WorkerData = { control }
    const worker = yield* Effect.try({
      try: () =>
        new Worker(workerFile(), {
          workerData,
          env: {}, // the thread sees no variable of the process (no program can reach `process` anyway)
          execArgv: [],
          resourceLimits: { stackSizeMb: STACK_MB, maxOldGenerationSizeMb: HEAP_MB }
        }),
      catch: (error) => `the worker thread could not start: ${error instanceof Error ? error.message : String(error)}`
    })
    const failed = (message: string) => {
      Deferred.doneUnsafe(ready, Exit.fail(message))
      Queue.offerUnsafe(inbox, { _tag: "Exited", message })
    }
    worker.on("message", (raw: unknown) => {
      const message = decode(raw)
      if (Option.isNone(message)) return failed("the worker thread sent a message outside the protocol")
      if (message.value._tag === "Ready") return Deferred.doneUnsafe(ready, Exit.void)
      Queue.offerUnsafe(inbox, message.value)
    })
    worker.on("error", (error) => failed(`the worker thread failed: ${error.message}`))
    worker.on("exit", (code) => {
      failed(`the worker thread exited with code ${code}`)
      Deferred.doneUnsafe(exited, Exit.succeed(code))
    })
    const thread: Thread = { worker, control: new Int32Array(control), inbox, exited }
    yield* Deferred.await(ready).pipe(Effect.onError(() => shutdown(thread)))
    worker.unref()
    return thread
  }),
  shutdown
)

/**
 * Ends the thread the quiet way: stops its run, if any, asks it to exit and waits for that; a thread that has not exited
 * within the grace period is terminated. Nothing to do for a thread that has already exited.
 */
export function shutdown(thread: Thread): Effect.Effect<void> {
  return Effect.suspend(() => {
    if (Deferred.isDoneUnsafe(thread.exited)) return Effect.void
    Atomics.store(thread.control, 0, Protocol.STOP) // a program busy computing sees it and ends
    thread.worker.postMessage({ _tag: "Shutdown" } satisfies Protocol.ToWorker)
    return Deferred.await(thread.exited).pipe(
      Effect.timeoutOption(SHUTDOWN_GRACE),
      Effect.flatMap((exited) => Option.isSome(exited) ? Effect.void : terminate(thread))
    )
  })
}

/**
 * Ends the thread, whatever it is doing (a WebAssembly loop included): only for a thread that does
 * not answer, since terminating a thread that has loaded WebAssembly can crash the process.
 */
export function terminate(thread: Thread): Effect.Effect<void> {
  return Effect.promise(() => thread.worker.terminate()).pipe(Effect.asVoid)
}
