/**
 * The gateway's side of MCP over stdio: one JSON-RPC message per line on stdin, answers on stdout.
 *
 * Unlike the SDK's `StdioServerTransport`, whose buffer closes the transport when a client sends
 * more than 10 MB at once (the gateway then exited with 0 and no word) and which answers nothing
 * to a line that is not JSON-RPC, every line gets what the JSON-RPC specification asks for: a line
 * that is not JSON gets -32700, a JSON value that is not a message gets -32600 naming what is
 * wrong, and a line over `maxMessageBytes` gets -32600 naming its size and the limit — and the
 * transport goes on reading.
 *
 * @internal
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js"
import { Predicate } from "effect"
import type { Readable, Writable } from "node:stream"
import { idOf, LineReader, type Oversized } from "./LineReader.js"

/** What the transport reports besides messages: a refused line, for the log. */
export type Refusal = (reason: string) => void

/** A stdio server transport with bounded, answered input. */
export class StdioServer implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: ((message: JSONRPCMessage) => void) | undefined
  private readonly reader: LineReader
  private closed = false

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    readonly maxMessageBytes: number,
    private readonly onRefused: Refusal = () => {}
  ) {
    this.reader = new LineReader(maxMessageBytes, (line) => this.line(line), (line) => this.oversized(line))
  }

  private readonly onData = (chunk: Buffer | string) => {
    this.reader.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk)
  }
  private readonly onEnd = () => {
    void this.close()
  }
  private readonly onError = (error: Error) => {
    this.onerror?.(error)
  }

  async start(): Promise<void> {
    this.stdin.on("data", this.onData)
    this.stdin.on("end", this.onEnd)
    this.stdin.on("close", this.onEnd)
    this.stdin.on("error", this.onError)
    this.stdout.on("error", this.onError)
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.stdin.off("data", this.onData)
    this.stdin.off("end", this.onEnd)
    this.stdin.off("close", this.onEnd)
    this.stdin.off("error", this.onError)
    this.stdout.off("error", this.onError)
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause()
    this.reader.clear()
    this.onclose?.()
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new Error("the stdio transport is closed"))
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve()
      else this.stdout.once("drain", resolve)
    })
  }

  private line(line: string): void {
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      return this.refuse(null, ErrorCode.ParseError, `Parse error: ${reason}`)
    }
    const invalid = invalidReason(value)
    if (invalid !== undefined) return this.refuse(idIn(value), ErrorCode.InvalidRequest, `Invalid Request: ${invalid}`)
    this.onmessage?.(value as JSONRPCMessage)
  }

  private oversized(line: Oversized): void {
    const reason = `Invalid Request: the message is ${line.bytes} bytes, over the limit of ${this.maxMessageBytes} ` +
      `bytes (maxMessageBytes)`
    this.refuse(idOf(line) ?? null, ErrorCode.InvalidRequest, reason)
  }

  private refuse(id: string | number | null, code: number, message: string): void {
    this.onRefused(message)
    // A JSON-RPC error answer; `id: null` when the message's id could not be read.
    this.send({ jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage).catch(() => {})
  }
}

const idIn = (value: unknown): string | number | null => {
  const id = Predicate.isObject(value) ? value["id"] : undefined
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id)) ? id : null
}

/** Why a JSON value is not a JSON-RPC message, in one line; `undefined` when it is one. */
export const invalidReason = (value: unknown): string | undefined => {
  if (Array.isArray(value)) return "batches are not supported: send one message per line"
  if (!Predicate.isObject(value)) return "a message must be a JSON object"
  if (value["jsonrpc"] !== "2.0") return "\"jsonrpc\" must be \"2.0\""
  if ("id" in value && idIn(value) === null) return "\"id\" must be a string or an integer"
  if ("method" in value) {
    if (typeof value["method"] !== "string") return "\"method\" must be a string"
    if ("params" in value && !Predicate.isObject(value["params"])) return "\"params\" must be an object"
  } else if (!("id" in value && ("result" in value || "error" in value))) {
    return "a message needs a \"method\" (a request or a notification), or an \"id\" with a \"result\" or an \"error\""
  }
  const parsed = JSONRPCMessageSchema.safeParse(value)
  if (parsed.success) return undefined
  const issue = parsed.error.issues[0]
  return issue === undefined ? "not a JSON-RPC message" : `${issue.path.join(".") || "message"}: ${issue.message}`
}
