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
import { Deferred, Effect, Exit, Option, Queue, Schema, type Scope } from "effect"
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
}

/** The native stack of a worker thread: room for the largest QuickJS stack several times over. */
const STACK_MB = 16
/** The worker's own JavaScript heap (logs, messages); QuickJS's memory is WebAssembly memory, limited apart. */
const HEAP_MB = 256

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
    const exited = (message: string) => {
      Deferred.doneUnsafe(ready, Exit.fail(message))
      Queue.offerUnsafe(inbox, { _tag: "Exited", message })
    }
    worker.on("message", (raw: unknown) => {
      const message = decode(raw)
      if (Option.isNone(message)) return exited("the worker thread sent a message outside the protocol")
      if (message.value._tag === "Ready") return Deferred.doneUnsafe(ready, Exit.void)
      Queue.offerUnsafe(inbox, message.value)
    })
    worker.on("error", (error) => exited(`the worker thread failed: ${error.message}`))
    worker.on("exit", (code) => exited(`the worker thread exited with code ${code}`))
    const thread: Thread = { worker, control: new Int32Array(control), inbox }
    yield* Deferred.await(ready).pipe(Effect.onError(() => terminate(thread)))
    worker.unref()
    return thread
  }),
  terminate
)

/** Ends the thread, whatever it is doing (a WebAssembly loop included). */
export function terminate(thread: Thread): Effect.Effect<void> {
  return Effect.promise(() => thread.worker.terminate()).pipe(Effect.asVoid)
}
