/**
 * The messages between the main thread and a sandbox worker thread. Both sides decode what they
 * receive: the worker runs hostile programs, and what a program controls (tool names, arguments,
 * log text) reaches the main thread inside these messages.
 *
 * Values that cross as JSON (a tool call's arguments, a tool's result, the returned value) cross as
 * JSON text, parsed on the receiving side, so a program's objects are never structured-cloned.
 *
 * @internal
 */
import { Schema } from "effect"
import { LogLine, Reason } from "../SandboxError.js"

// -----------------------------------------------------------------------------
// Main thread → worker
// -----------------------------------------------------------------------------

/** Run a program. Limits in bytes, calls and characters; time is the main thread's to enforce. */
export const Start = Schema.TaggedStruct("Start", {
  run: Schema.Int,
  code: Schema.String,
  tools: Schema.Array(Schema.String),
  memoryBytes: Schema.Int,
  stackBytes: Schema.Int,
  maxToolCalls: Schema.Int,
  maxOutput: Schema.Int
})
export type Start = typeof Start.Type

/** The answer to a tool call: its result as JSON text, or the failure message the program sees. */
export const Settle = Schema.TaggedStruct("Settle", {
  run: Schema.Int,
  id: Schema.Int,
  ok: Schema.Boolean,
  value: Schema.String
})
export type Settle = typeof Settle.Type

/**
 * Stop the run now. The control word is set first, so a program busy computing sees it at the
 * next interrupt check; this message reaches a program that is waiting.
 */
export const Stop = Schema.TaggedStruct("Stop", { run: Schema.Int })
export type Stop = typeof Stop.Type

/**
 * End the thread: it stops its run, if any, and closes its port; with nothing left to do, the thread
 * exits on its own. (`Worker.terminate` is kept for a thread that does not answer: terminating a thread
 * that has loaded WebAssembly can crash the whole process, nodejs/node#56312.)
 */
export const Shutdown = Schema.TaggedStruct("Shutdown", {})
export type Shutdown = typeof Shutdown.Type

export const ToWorker = Schema.Union([Start, Settle, Stop, Shutdown])
export type ToWorker = typeof ToWorker.Type

// -----------------------------------------------------------------------------
// Worker → main thread
// -----------------------------------------------------------------------------

/** The worker has loaded QuickJS and takes runs. */
export const Ready = Schema.TaggedStruct("Ready", {})

/** The program calls a tool: its name and its arguments as JSON text. */
export const Call = Schema.TaggedStruct("Call", {
  run: Schema.Int,
  id: Schema.Int,
  tool: Schema.String,
  args: Schema.String
})
export type Call = typeof Call.Type

/** The program returned: its value as JSON text. */
export const Returned = Schema.TaggedStruct("Returned", { json: Schema.String })

/** The run was stopped by the main thread (its time ran out, or its caller went away). */
export const Stopped = Schema.TaggedStruct("Stopped", {})

/** The program failed. */
export const Failed = Schema.TaggedStruct("Failed", { reason: Reason })

/** The run is over; the worker takes the next one. */
export const Done = Schema.TaggedStruct("Done", {
  run: Schema.Int,
  end: Schema.Union([Returned, Stopped, Failed]),
  logs: Schema.Array(LogLine),
  toolCalls: Schema.Int
})
export type Done = typeof Done.Type

export const FromWorker = Schema.Union([Ready, Call, Done])
export type FromWorker = typeof FromWorker.Type

// -----------------------------------------------------------------------------
// The control word
// -----------------------------------------------------------------------------

/** The control word's values: a shared `Int32Array` of one element per worker. */
export const RUNNING = 0
export const STOP = 1

/** What a worker is started with. */
export interface WorkerData {
  readonly control: SharedArrayBuffer
}
