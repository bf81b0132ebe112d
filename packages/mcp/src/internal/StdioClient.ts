/**
 * The client side of MCP over stdio: starts a server process and exchanges one JSON-RPC message
 * per line with it.
 *
 * It does what the SDK's `StdioClientTransport` does (a base environment plus the given one —
 * `Secrets.baseEnvironment`, never the gateway's settings or keys — stderr piped, stdin closed then SIGTERM then SIGKILL on close) with one difference: the
 * SDK's buffer closes the connection when a server writes more than 10 MB at once, so a large tool
 * result or `tools/list` killed and restarted the server again and again. Here a message over the
 * bound is dropped up to its newline, the connection goes on, and the request it answered (its
 * `id`, read from the message's ends) fails with an error naming the size and the limit.
 *
 * @internal
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { type ChildProcess, spawn } from "node:child_process"
import { PassThrough } from "node:stream"
import { baseEnvironment } from "../Secrets.js"
import { idOf, LineReader, type Oversized } from "./LineReader.js"
import { invalidReason } from "./StdioServer.js"

/** The JSON-RPC error code of an answer that was over the size bound (in the implementation-defined range). */
export const TOO_LARGE = -32099

/** The `data` of a `TOO_LARGE` error: how large the message was, and the bound. */
export interface TooLargeData {
  readonly "tool-search": "message-too-large"
  readonly bytes: number
  readonly limit: number
}

/** Whether an error's `data` says the answer was over the bound. */
export const isTooLarge = (data: unknown): data is TooLargeData =>
  typeof data === "object" && data !== null && (data as Record<string, unknown>)["tool-search"] === "message-too-large"

/** How to start the server. */
export interface Options {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly cwd?: string | undefined
  readonly maxMessageBytes: number
  /** A message from the server that could not be used (too large without an id, not JSON-RPC). */
  readonly onDropped?: (reason: string) => void
}

/** A stdio client transport with a bounded, recoverable input. */
export class StdioClient implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: ((message: JSONRPCMessage) => void) | undefined
  /** The server's stderr; exists before `start`, so nothing it prints is lost. */
  readonly stderr = new PassThrough()
  private process: ChildProcess | undefined
  private readonly reader: LineReader

  constructor(private readonly options: Options) {
    this.reader = new LineReader(options.maxMessageBytes, (line) => this.line(line), (line) => this.oversized(line))
  }

  start(): Promise<void> {
    if (this.process !== undefined) return Promise.reject(new Error("the stdio transport was already started"))
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.command, [...this.options.args], {
        // what a process needs to run, and what its configuration gives it: nothing of the gateway's own
        env: { ...baseEnvironment(), ...this.options.env },
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
        windowsHide: true,
        ...(this.options.cwd === undefined ? {} : { cwd: this.options.cwd })
      })
      this.process = child
      child.on("error", (error) => {
        reject(error)
        this.onerror?.(error)
      })
      child.on("spawn", () => resolve())
      child.on("close", () => {
        this.process = undefined
        this.reader.clear()
        this.onclose?.()
      })
      child.stdin?.on("error", (error) => this.onerror?.(error))
      child.stdout?.on("data", (chunk: Buffer) => this.reader.push(chunk))
      child.stdout?.on("error", (error) => this.onerror?.(error))
      child.stderr?.pipe(this.stderr)
    })
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.process?.stdin
      if (stdin === undefined || stdin === null) return reject(new Error("Not connected"))
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve()
      else stdin.once("drain", resolve)
    })
  }

  async close(): Promise<void> {
    const child = this.process
    if (child === undefined) return
    this.process = undefined
    const closed = new Promise<void>((resolve) => child.once("close", () => resolve()))
    const within = (millis: number) =>
      Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, millis).unref())])
    try {
      child.stdin?.end()
    } catch {
      // already closed
    }
    await within(2000)
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM")
      await within(2000)
    }
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  }

  private line(line: string): void {
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      // servers that print logs on stdout: not a message, nothing to answer
      return this.options.onDropped?.(`a line on stdout is not JSON: ${line.slice(0, 200)}`)
    }
    const invalid = invalidReason(value)
    if (invalid !== undefined) return this.options.onDropped?.(`a message is not JSON-RPC: ${invalid}`)
    this.onmessage?.(value as JSONRPCMessage)
  }

  private oversized(line: Oversized): void {
    const id = idOf(line)
    const limit = this.options.maxMessageBytes
    const reason =
      `the server's answer is ${line.bytes} bytes, over the limit of ${limit} bytes (maxUpstreamMessageBytes)`
    if (id === undefined) return this.options.onDropped?.(`a message was dropped: ${reason}`)
    const data: TooLargeData = { "tool-search": "message-too-large", bytes: line.bytes, limit }
    this.onmessage?.({ jsonrpc: "2.0", id, error: { code: TOO_LARGE, message: reason, data } } as JSONRPCMessage)
  }
}
