/**
 * Newline-delimited messages from a byte stream (MCP's stdio framing), with a bound on one
 * message. A line longer than the bound is not kept: its bytes are counted and dropped up to the
 * next newline, and the reader reports it with its size and its first and last bytes (enough to
 * find a JSON-RPC `id`), then goes on with the next line. Memory stays at most the bound, and the
 * work is linear in the input.
 *
 * @internal
 */

/** A line that was over the bound: its size, and its head and tail. */
export interface Oversized {
  readonly bytes: number
  readonly head: string
  readonly tail: string
}

/** How much of an oversized line is kept at each end. */
const EDGE = 256

/** Splits chunks into lines of at most `maxBytes` bytes (newline excluded). */
export class LineReader {
  private chunks: Array<Buffer> = []
  private buffered = 0
  /** While dropping an oversized line: its size so far, head and tail. */
  private dropping: { bytes: number; head: Buffer; tail: Buffer } | undefined

  constructor(
    readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversized: (line: Oversized) => void
  ) {}

  /** Feeds a chunk; complete lines are delivered before it returns. */
  push(chunk: Buffer): void {
    let start = 0
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start)
      const end = newline < 0 ? chunk.length : newline
      this.take(chunk.subarray(start, end))
      if (newline < 0) return
      this.endLine()
      start = newline + 1
    }
  }

  /** Forgets a partial line (the stream closed). */
  clear(): void {
    this.chunks = []
    this.buffered = 0
    this.dropping = undefined
  }

  private take(part: Buffer): void {
    if (part.length === 0) return
    if (this.dropping !== undefined) {
      this.dropping.bytes += part.length
      this.dropping.tail = keepTail(this.dropping.tail, part)
      return
    }
    if (this.buffered + part.length <= this.maxBytes) {
      this.chunks.push(part)
      this.buffered += part.length
      return
    }
    const kept = Buffer.concat([...this.chunks, part])
    this.dropping = { bytes: kept.length, head: kept.subarray(0, EDGE), tail: keepTail(Buffer.alloc(0), kept) }
    this.chunks = []
    this.buffered = 0
  }

  private endLine(): void {
    const dropped = this.dropping
    if (dropped !== undefined) {
      this.dropping = undefined
      this.onOversized({
        bytes: dropped.bytes,
        head: dropped.head.toString("utf8"),
        tail: dropped.tail.toString("utf8")
      })
      return
    }
    const line = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks)
    this.chunks = []
    this.buffered = 0
    const text = line.toString("utf8").replace(/\r$/, "")
    if (text.trim() !== "") this.onLine(text)
  }
}

const keepTail = (tail: Buffer, part: Buffer): Buffer =>
  part.length >= EDGE ? Buffer.from(part.subarray(part.length - EDGE)) : Buffer.concat([tail, part]).subarray(-EDGE)

/**
 * The JSON-RPC `id` of an oversized message, when its head or tail shows it at the top level: an
 * integer `id` right after `jsonrpc` at the start (`{"jsonrpc":"2.0","id":7,...`), or last before
 * the closing brace (`...,"jsonrpc":"2.0","id":7}`), as the official SDKs write their messages.
 */
export const idOf = (line: Oversized): number | string | undefined => {
  const head = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,100}")\s*[,}]/.exec(
    line.head
  )
  const tail = /[,{]\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,100}")\s*\}\s*$/.exec(line.tail)
  const raw = head?.[1] ?? tail?.[1]
  if (raw === undefined) return undefined
  try {
    const id: unknown = JSON.parse(raw)
    return typeof id === "number" || typeof id === "string" ? id : undefined
  } catch {
    return undefined
  }
}
