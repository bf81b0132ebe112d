/**
 * The entry point of a sandbox worker thread: compiles QuickJS once, says `Ready`, then runs one
 * program at a time as the main thread asks (`Start`), passing tool results (`Settle`) and stop
 * requests (`Stop`) to the run. The control word, shared with the main thread, is only read here.
 *
 * @internal
 */
import { Option, Schema } from "effect"
import { parentPort, workerData } from "node:worker_threads"
import * as Protocol from "./protocol.js"
import * as Vm from "./vm.js"

const port = parentPort
if (port === null) throw new Error("the sandbox worker runs in a worker thread")
if (
  typeof workerData !== "object" || workerData === null || !("control" in workerData) ||
  !(workerData.control instanceof SharedArrayBuffer)
) {
  throw new Error("the sandbox worker needs its control word")
}
const control = new Int32Array(workerData.control)
const stopRequested = (): boolean => Atomics.load(control, 0) === Protocol.STOP
const decode = Schema.decodeUnknownOption(Protocol.ToWorker)
const post = (message: Protocol.FromWorker): void => port.postMessage(message)

const module = await Vm.compile()

/** The run in progress: its id, and its handle once QuickJS is instantiated. */
let current: { readonly run: number; handle?: Vm.Run } | undefined

const begin = async (start: Protocol.Start): Promise<void> => {
  const run: { readonly run: number; handle?: Vm.Run } = { run: start.run }
  current = run
  try {
    run.handle = await Vm.start(module, start, { post, stopRequested }, () => {
      if (current === run) current = undefined
    })
  } catch (error) {
    if (current === run) current = undefined
    post({
      _tag: "Done",
      run: start.run,
      end: {
        _tag: "Failed",
        reason: { _tag: "Crashed", message: error instanceof Error ? error.message : String(error) }
      },
      logs: [],
      toolCalls: 0
    })
  }
}

port.on("message", (raw: unknown) => {
  const message = decode(raw)
  if (Option.isNone(message)) return
  const m = message.value
  switch (m._tag) {
    case "Start":
      if (current !== undefined) {
        post({
          _tag: "Done",
          run: m.run,
          end: { _tag: "Failed", reason: { _tag: "Crashed", message: "the worker is busy with another run" } },
          logs: [],
          toolCalls: 0
        })
        return
      }
      void begin(m)
      return
    case "Settle":
      if (current?.run === m.run) current.handle?.settle(m)
      return
    case "Stop":
      if (current?.run === m.run) current.handle?.stop()
      return
    case "Shutdown":
      current?.handle?.stop()
      port.close()
      return
  }
})

post({ _tag: "Ready" })
