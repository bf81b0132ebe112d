/**
 * One program run inside QuickJS, on a sandbox worker thread.
 *
 * Every run gets a fresh instance of the QuickJS WebAssembly module (compiled once per worker,
 * instantiated per run in a few milliseconds): nothing a program does — globals it changes,
 * prototypes it pollutes, memory it leaves behind, a runtime it corrupts — can reach the next run.
 * The instance is dropped when the run ends.
 *
 * Inside, the program is the body of an async function. `tools` holds one async function per tool
 * the run was given; each call posts a `Call` to the main thread and returns a QuickJS promise,
 * settled when the main thread answers, so `Promise.all` runs tool calls concurrently. `console`
 * is captured. The host functions behind them are reachable only through the prelude's closures,
 * never from a global.
 *
 * Limits: the instance's WebAssembly memory has a maximum (its initial 16 MB plus the program's
 * limit), so no allocation of any kind — objects, strings, array buffers — can take more; a failed
 * growth marks the run as out of memory. QuickJS's stack limit bounds recursion. The interrupt
 * handler, polled by QuickJS while code runs, stops the program when the main thread sets the
 * control word (its time ran out) or when the run reached a limit of its own (tool calls, output);
 * an interrupt cannot be caught.
 *
 * @internal
 */
import * as ReleaseSync from "@jitl/quickjs-wasmfile-release-sync"
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSDeferredPromise,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSSyncVariant
} from "quickjs-emscripten-core"
import type { LogLine, Reason } from "../SandboxError.js"
import type * as Protocol from "./protocol.js"

/** The file name QuickJS gives the program's code in stack traces. */
const FILENAME = "program.js"

/** The program is wrapped in `(async () => {` on a line of its own: its line 1 is line 2. */
const OPENING = "(async () => {\n"
const CLOSING = "\n})()"

/** The WebAssembly memory QuickJS starts with (its static data and C stack are in it): 16 MB. */
const INITIAL_PAGES = 256
const PAGE_BYTES = 65536

/** An exception's message and frames are cut to these sizes (they may quote the program's data). */
const MAX_MESSAGE = 1000
const MAX_FRAMES = 5
const MAX_FRAME = 200

/**
 * Installs `tools` and `console`, and returns the helpers the host uses once the program has run.
 * Runs before the program, so the built-ins it captures are the pristine ones; it never reads a
 * property through a getter of the program's objects when describing an error.
 */
const PRELUDE = `(function (call, log, names) {
  "use strict"
  const stringify = JSON.stringify
  const parse = JSON.parse
  const define = Object.defineProperty
  const freeze = Object.freeze
  const own = Object.getOwnPropertyDescriptor
  const prototypeOf = Object.getPrototypeOf
  const show = (value) => {
    if (typeof value === "string") return value
    try {
      const json = stringify(value)
      if (typeof json === "string") return json
    } catch {}
    try {
      return String(value)
    } catch {
      return "[a value that cannot be shown]"
    }
  }
  const tools = Object.create(null)
  for (const name of parse(names)) {
    const tool = async (args) => {
      const json = stringify(args === undefined ? {} : args)
      if (typeof json !== "string") throw new TypeError("tools[" + stringify(name) + "] takes an object of arguments")
      return parse(await call(name, json))
    }
    define(tool, "name", { value: name })
    tools[name] = tool
  }
  define(globalThis, "tools", { value: freeze(tools) })
  const console = Object.create(null)
  for (const level of ["log", "info", "warn", "error", "debug"]) {
    console[level] = (...args) => {
      let text = ""
      for (let i = 0; i < args.length; i++) text += (i === 0 ? "" : " ") + show(args[i])
      log(level, text)
    }
  }
  define(globalThis, "console", { value: freeze(console), writable: true, configurable: true })
  const text = (object, key) => {
    const property = own(object, key)
    return property !== undefined && typeof property.value === "string" ? property.value : undefined
  }
  return {
    result: (value) => {
      if (value === undefined) return "null"
      const json = stringify(value)
      if (typeof json !== "string") throw new TypeError("it is " + (typeof value === "function" ? "a function" : "a " + typeof value))
      return json
    },
    describe: (error) => {
      if (error === null || (typeof error !== "object" && typeof error !== "function")) {
        return stringify({ name: "", message: show(error), stack: "" })
      }
      let name
      for (let o = error, i = 0; name === undefined && o !== null && i < 16; o = prototypeOf(o), i++) name = text(o, "name")
      const message = text(error, "message")
      return stringify({ name: name ?? "", message: message ?? show(error), stack: text(error, "stack") ?? "" })
    }
  }
})`

// -----------------------------------------------------------------------------
// Loading
// -----------------------------------------------------------------------------

/**
 * The part of Node's WebAssembly API used here. TypeScript describes WebAssembly only in its DOM
 * library, which this package does not load.
 */
declare const WebAssembly: {
  compile(bytes: Uint8Array): Promise<CompiledModule>
  Memory: new(descriptor: { initial: number; maximum: number }) => Memory
}

/** A `WebAssembly.Memory`. */
interface Memory {
  grow(pages: number): number
  readonly buffer: ArrayBuffer
}

/** A compiled WebAssembly module (`WebAssembly.Module`), instantiated once per run. */
export interface CompiledModule {
  readonly compiled: unique symbol
}

const isSyncVariant = (value: unknown): value is QuickJSSyncVariant =>
  typeof value === "object" && value !== null && "type" in value && value.type === "sync" &&
  "importFFI" in value && typeof value.importFFI === "function" &&
  "importModuleLoader" in value && typeof value.importModuleLoader === "function"

/**
 * The QuickJS build: its package's types read as CommonJS (`default` is the whole module) while Node
 * loads its ES module (`default` is the variant), so both shapes are accepted.
 */
const variant = ((loaded: unknown): QuickJSSyncVariant => {
  if (isSyncVariant(loaded)) return loaded
  if (typeof loaded === "object" && loaded !== null && "default" in loaded && isSyncVariant(loaded.default)) {
    return loaded.default
  }
  throw new Error("@jitl/quickjs-wasmfile-release-sync did not load as a QuickJS build")
})(ReleaseSync.default)

/** QuickJS's WebAssembly module, compiled once per worker. */
export const compile = async (): Promise<CompiledModule> => {
  const path = createRequire(import.meta.url).resolve("@jitl/quickjs-wasmfile-release-sync/wasm")
  return WebAssembly.compile(await readFile(path))
}

// -----------------------------------------------------------------------------
// Running
// -----------------------------------------------------------------------------

/** What a run needs from its worker. */
export interface Host {
  readonly post: (message: Protocol.Call | Protocol.Done) => void
  /** Whether the main thread asked the run to stop. */
  readonly stopRequested: () => boolean
}

/** A run in progress: the worker hands it the main thread's answers. */
export interface Run {
  readonly settle: (message: Protocol.Settle) => void
  readonly stop: () => void
}

type End = Protocol.Done["end"]

/** A limit the run reached on its own. */
type OwnLimit = { readonly limit: "tool-calls" | "output"; readonly value: number }

/**
 * Starts `start` on a fresh QuickJS instance. `onEnd` runs once, after `Done` was posted.
 */
export const start = async (
  module: CompiledModule,
  start: Protocol.Start,
  host: Host,
  onEnd: () => void
): Promise<Run> => {
  const logs: Array<LogLine> = []
  const pending = new Map<number, QuickJSDeferredPromise>()
  let output = 0
  let toolCalls = 0
  let nextId = 0
  let ownLimit: OwnLimit | undefined
  let ended = false

  // QuickJS's own memory limit does not count array buffers: the memory's maximum bounds everything
  const memory = new WebAssembly.Memory({
    initial: INITIAL_PAGES,
    maximum: INITIAL_PAGES + Math.ceil(start.memoryBytes / PAGE_BYTES)
  })
  let outOfMemory = false
  const grow = memory.grow.bind(memory)
  memory.grow = (pages) => {
    try {
      return grow(pages)
    } catch (error) {
      outOfMemory = true
      throw error
    }
  }
  const quickjs = await newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmModule: module, wasmMemory: memory }))
  const runtime: QuickJSRuntime = quickjs.newRuntime()
  runtime.setMaxStackSize(start.stackBytes)
  runtime.setInterruptHandler(() => ownLimit !== undefined || host.stopRequested())
  const vm: QuickJSContext = runtime.newContext()

  const end = (result: End): void => {
    if (ended) return
    ended = true
    for (const deferred of pending.values()) deferred.dispose()
    pending.clear()
    host.post({ _tag: "Done", run: start.run, end: result, logs, toolCalls })
    onEnd()
  }
  const failed = (reason: Reason): End => ({ _tag: "Failed", reason })
  const limitEnd = (limit: OwnLimit): End => failed({ _tag: "LimitExceeded", ...limit })
  /** The end a stop request or a limit of the run's own imposes, if any: these win over everything else. */
  const imposed = (): End | undefined =>
    host.stopRequested() ? { _tag: "Stopped" } : ownLimit === undefined ? undefined : limitEnd(ownLimit)

  // ---------------------------------------------------------------------------
  // The bridge
  // ---------------------------------------------------------------------------

  const call = vm.newFunction("call", (nameHandle, argsHandle) => {
    const tool = vm.getString(nameHandle)
    const args = vm.getString(argsHandle)
    if (ownLimit !== undefined) return { error: vm.newError({ name: "LimitExceeded", message: "the run is over" }) }
    toolCalls++
    if (toolCalls > start.maxToolCalls) {
      ownLimit = { limit: "tool-calls", value: start.maxToolCalls }
      return { error: vm.newError({ name: "LimitExceeded", message: "too many tool calls" }) }
    }
    const id = nextId++
    const deferred = vm.newPromise()
    pending.set(id, deferred)
    host.post({ _tag: "Call", run: start.run, id, tool, args })
    return deferred.handle
  })
  const log = vm.newFunction("log", (levelHandle, textHandle) => {
    const level = vm.getString(levelHandle)
    const text = vm.getString(textHandle)
    if (ownLimit !== undefined || !isLevel(level)) return
    if (output + text.length > start.maxOutput) {
      ownLimit = { limit: "output", value: start.maxOutput }
      return { error: vm.newError({ name: "LimitExceeded", message: "too much output" }) }
    }
    output += text.length
    logs.push({ level, text })
  })
  const names = vm.newString(JSON.stringify(start.tools))
  const install = vm.unwrapResult(vm.evalCode(PRELUDE, "prelude.js"))
  const helpers = vm.unwrapResult(vm.callFunction(install, vm.undefined, call, log, names))
  const resultOf = vm.getProp(helpers, "result")
  const describeOf = vm.getProp(helpers, "describe")
  for (const handle of [call, log, names, install, helpers]) handle.dispose()

  // ---------------------------------------------------------------------------
  // Reading the outcome
  // ---------------------------------------------------------------------------

  /** What the program threw, read through the prelude (undefined when that fails, out of memory for one). */
  const describe = (error: QuickJSHandle): { name: string; message: string; stack: string } | undefined => {
    const described = vm.callFunction(describeOf, vm.undefined, error)
    if (described.error !== undefined) {
      described.error.dispose()
      return undefined
    }
    const json = vm.getString(described.value)
    described.value.dispose()
    const value: unknown = JSON.parse(json)
    return isDescription(value) ? value : undefined
  }

  const memoryLimit = (where: { line?: number; column?: number }): End =>
    failed({ _tag: "LimitExceeded", limit: "memory", value: start.memoryBytes / 1024 / 1024, ...where })

  const thrown = (error: QuickJSHandle, syntax: boolean): End => {
    const stop = imposed()
    if (stop !== undefined) return stop
    const d = describe(error)
    const where = d === undefined ? {} : positionOf(d.stack, start.code)
    // out of memory, QuickJS throws an InternalError, or null when even that cannot be allocated
    if (outOfMemory || (d?.name === "InternalError" && d.message === "out of memory")) return memoryLimit(where)
    if (d === undefined) {
      return failed({ _tag: "Exception", name: "", message: "a value that cannot be read", frames: [] })
    }
    const message = cut(d.message, MAX_MESSAGE)
    // the interpreter's is an InternalError, the parser's (JSON.parse, eval) a SyntaxError
    if (d.message === "stack overflow" && (d.name === "InternalError" || d.name === "SyntaxError")) {
      return failed({ _tag: "LimitExceeded", limit: "stack", value: start.stackBytes / 1024, ...where })
    }
    if (syntax && d.name === "SyntaxError") return failed({ _tag: "InvalidSyntax", message, ...where })
    return failed({
      _tag: "Exception",
      name: cut(d.name, 100),
      message,
      ...where,
      frames: framesOf(d.stack, start.code)
    })
  }

  const returned = (value: QuickJSHandle): End => {
    const json = vm.callFunction(resultOf, vm.undefined, value)
    const stop = imposed()
    if (stop !== undefined) {
      if (json.error !== undefined) json.error.dispose()
      else json.value.dispose()
      return stop
    }
    if (json.error !== undefined) {
      const d = describe(json.error)
      json.error.dispose()
      if (outOfMemory || (d?.name === "InternalError" && d.message === "out of memory")) return memoryLimit({})
      return failed({ _tag: "InvalidResult", message: cut(d?.message ?? "it cannot be serialized", MAX_MESSAGE) })
    }
    const text = vm.getString(json.value)
    json.value.dispose()
    if (output + text.length > start.maxOutput) return limitEnd({ limit: "output", value: start.maxOutput })
    return { _tag: "Returned", json: text }
  }

  // ---------------------------------------------------------------------------
  // Driving
  // ---------------------------------------------------------------------------

  let program: QuickJSHandle | undefined

  /** Runs what can run now, then ends the run if it is over. */
  const drive = (): void => {
    if (ended || program === undefined) return
    while (runtime.hasPendingJob() && imposed() === undefined) {
      const jobs = runtime.executePendingJobs()
      if (jobs.error !== undefined) jobs.error.dispose()
    }
    const stop = imposed()
    if (stop !== undefined) return end(stop)
    const state = vm.getPromiseState(program)
    if (state.type === "fulfilled") {
      const result = returned(state.value)
      state.value.dispose()
      return end(result)
    }
    if (state.type === "rejected") {
      const result = thrown(state.error, false)
      state.error.dispose()
      return end(result)
    }
    if (pending.size === 0) end(failed({ _tag: "Stalled" }))
  }

  /** Any failure of the host side ends the run as a crash, never the worker. */
  const guarded = (f: () => void): void => {
    try {
      f()
    } catch (error) {
      end(failed({ _tag: "Crashed", message: cut(error instanceof Error ? error.message : String(error), 500) }))
    }
  }

  guarded(() => {
    const evaluated = vm.evalCode(OPENING + start.code + CLOSING, FILENAME)
    if (evaluated.error !== undefined) {
      const result = thrown(evaluated.error, true)
      evaluated.error.dispose()
      return end(result)
    }
    program = evaluated.value
    drive()
  })

  return {
    settle: (message) =>
      guarded(() => {
        const deferred = pending.get(message.id)
        if (ended || deferred === undefined) return
        pending.delete(message.id)
        if (message.ok) {
          const value = vm.newString(message.value)
          deferred.resolve(value)
          value.dispose()
        } else {
          const error = vm.newError({ name: "ToolError", message: message.value })
          deferred.reject(error)
          error.dispose()
        }
        deferred.dispose()
        drive()
      }),
    stop: () => guarded(drive)
  }
}

// -----------------------------------------------------------------------------
// Positions
// -----------------------------------------------------------------------------

const LEVELS: ReadonlyArray<string> = ["log", "info", "warn", "error", "debug"] satisfies ReadonlyArray<
  LogLine["level"]
>
const isLevel = (level: string): level is LogLine["level"] => LEVELS.includes(level)

const isDescription = (value: unknown): value is { name: string; message: string; stack: string } =>
  typeof value === "object" && value !== null && "name" in value && typeof value.name === "string" &&
  "message" in value && typeof value.message === "string" && "stack" in value && typeof value.stack === "string"

const FRAME = /program\.js:(\d+):(\d+)/

/** The line and column, in the program's own code, of the first frame of `stack` in it. */
const positionOf = (stack: string, code: string): { line?: number; column?: number } => {
  const match = FRAME.exec(stack)
  if (match === null) return {}
  return toProgram(Number(match[1]), Number(match[2]), code)
}

/** The number of lines of the program's code. */
const linesOf = (code: string): number => code.split("\n").length

/**
 * A wrapped position in the program's terms. A position on the wrapper's own lines (an unclosed
 * block is reported at the closing line) is clamped to the program's first or last line.
 */
const toProgram = (line: number, column: number, code: string): { line: number; column: number } => {
  const lines = linesOf(code)
  if (line - 1 < 1) return { line: 1, column: 1 }
  if (line - 1 > lines) return { line: lines, column: (code.split("\n")[lines - 1]?.length ?? 0) + 1 }
  return { line: line - 1, column }
}

/**
 * The frames of `stack` in the program's code, innermost first, as `name (line L, column C)`;
 * the wrapper's frames are left out, and a single frame (the position already says it) too.
 */
const framesOf = (stack: string, code: string): Array<string> => {
  const lines = linesOf(code)
  const frames = stack.split("\n").flatMap((frame) => {
    const match = /^\s*at (.*?) ?\(?program\.js:(\d+):(\d+)\)?$/.exec(frame)
    if (match === null) return []
    const line = Number(match[2]) - 1
    if (line < 1 || line > lines) return []
    const name = match[1] === undefined || match[1] === "" || match[1] === "<anonymous>" || match[1] === "<eval>"
      ? ""
      : `${cut(match[1], MAX_FRAME)} `
    return [`${name}(line ${line}, column ${match[3]})`]
  })
  return frames.length < 2 ? [] : frames.slice(0, MAX_FRAMES)
}

const cut = (text: string, max: number): string => text.length > max ? `${text.slice(0, max - 1)}…` : text
