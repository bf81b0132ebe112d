/**
 * The `fetch` of a Streamable HTTP upstream, with the bound a stdio upstream has: no message from
 * the server is held larger than `maxBytes`. A JSON answer is read up to the bound; an SSE stream
 * is passed on event by event, each event held up to the bound. A message over it is dropped as it
 * arrives (its bytes counted, never kept), and the request it answered fails with the same error a
 * stdio server's oversized answer gets (`TOO_LARGE`, naming the size and the limit), so that one
 * huge answer costs at most the bound in memory and never the process.
 *
 * @internal
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js"
import { idOf } from "./LineReader.js"
import { TOO_LARGE, type TooLargeData } from "./StdioClient.js"

/** How much of an oversized message is kept at each end, to find its `id`. */
const EDGE = 256

/** The JSON-RPC error answering request `id`, whose answer was `bytes` long. */
const tooLarge = (id: number | string, bytes: number, maxBytes: number) => {
  const data: TooLargeData = { "tool-search": "message-too-large", bytes, limit: maxBytes }
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: TOO_LARGE,
      message: `the server's answer is at least ${bytes} bytes, over the limit of ${maxBytes} bytes ` +
        "(maxUpstreamMessageBytes)",
      data
    }
  }
}

/** The ids of the requests a POST body carries (one message, or a batch). */
const requestIds = (body: unknown): ReadonlyArray<number | string> => {
  if (typeof body !== "string") return []
  try {
    const parsed: unknown = JSON.parse(body)
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((m: unknown) => {
      const id = typeof m === "object" && m !== null && "method" in m ? (m as { readonly id?: unknown }).id : undefined
      return typeof id === "number" || typeof id === "string" ? [id] : []
    })
  } catch {
    return []
  }
}

/** A JSON body read up to `maxBytes`; over it, an error answer for each request of the POST. */
const boundedJson = async (
  response: Response,
  ids: ReadonlyArray<number | string>,
  maxBytes: number,
  onDropped: (reason: string) => void
): Promise<Response> => {
  const reader = response.body?.getReader()
  if (reader === undefined) return response
  const chunks: Array<Uint8Array> = []
  let bytes = 0
  while (true) {
    const { done, value } = await reader.read()
    if (done) break
    bytes += value.byteLength
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => undefined)
      const answers = ids.map((id) => tooLarge(id, bytes, maxBytes))
      if (answers.length === 0) onDropped(`an answer of at least ${bytes} bytes was dropped (maxUpstreamMessageBytes)`)
      const body = answers.length === 1 ? answers[0] : answers
      return new Response(body === undefined ? "" : JSON.stringify(body), {
        status: response.status,
        headers: { "content-type": "application/json" }
      })
    }
    chunks.push(value)
  }
  return new Response(Buffer.concat(chunks), { status: response.status, headers: response.headers })
}

/**
 * An SSE stream passed on event by event; an event over `maxBytes` is replaced by an error event
 * answering its request (found from the message's ends), or dropped and reported.
 */
const boundedEvents = (
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  onDropped: (reason: string) => void
): ReadableStream<Uint8Array> => {
  const decoder = new TextDecoder()
  const encoder = new TextEncoder()
  // an unfinished line, in pieces, and its size
  let pieces: Array<string> = []
  let pending = 0
  let event: Array<string> = []
  let held = 0
  let dropping: { bytes: number; head: string; tail: string } | undefined
  // whether the last piece handed to `line` was the start of a line, not all of it
  let midLine = false
  const line = (text: string, out: TransformStreamDefaultController<Uint8Array>, whole = true) => {
    const continued = midLine
    midLine = !whole
    if (!continued && (text === "" || text === "\r")) {
      if (dropping !== undefined) {
        const id = idOf(dropping)
        if (id === undefined) {
          onDropped(`an SSE event of ${dropping.bytes} bytes was dropped (maxUpstreamMessageBytes)`)
        } else {
          out.enqueue(
            encoder.encode(`event: message\ndata: ${JSON.stringify(tooLarge(id, dropping.bytes, maxBytes))}\n\n`)
          )
        }
      } else if (event.length > 0) {
        out.enqueue(encoder.encode(`${event.join("\n")}\n\n`))
      }
      event = []
      held = 0
      dropping = undefined
      return
    }
    const size = Buffer.byteLength(text)
    if (dropping === undefined && held + size > maxBytes) {
      const data = event.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("")
      dropping = { bytes: held, head: data.slice(0, EDGE), tail: "" }
      event = []
    }
    if (dropping !== undefined) {
      const data = continued ? text : text.startsWith("data:") ? text.slice(5).trimStart() : ""
      dropping.bytes += size
      if (dropping.head.length < EDGE) dropping.head = (dropping.head + data).slice(0, EDGE)
      dropping.tail = (dropping.tail + data).slice(-EDGE)
      return
    }
    event.push(text)
    held += size + 1
  }
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform: (chunk, out) => {
        const lines = decoder.decode(chunk, { stream: true }).split("\n")
        const last = lines.pop() ?? ""
        for (const l of lines) {
          // the first line of the chunk ends the pieces held before it (joined once: linear work)
          const whole = pieces.length === 0 ? l : [...pieces, l].join("")
          pieces = []
          pending = 0
          line(whole, out)
        }
        if (last === "") return
        if (dropping !== undefined) return line(last, out, false)
        pieces.push(last)
        pending += Buffer.byteLength(last)
        // an endless line is an event too: past the bound it is counted and dropped as it arrives
        if (held + pending > maxBytes) {
          const text = pieces.join("")
          pieces = []
          pending = 0
          line(text, out, false)
        }
      },
      flush: (out) => {
        if (pieces.length > 0) line(pieces.join(""), out)
        line("", out)
      }
    })
  )
}

/** `fetch`, with every answer bounded by `maxBytes`. */
export const boundedFetch =
  (maxBytes: number, onDropped: (reason: string) => void, base: FetchLike = fetch): FetchLike => async (url, init) => {
    const response = await base(url, init)
    if (response.body === null) return response
    const type = response.headers.get("content-type") ?? ""
    if (type.includes("text/event-stream")) {
      return new Response(boundedEvents(response.body, maxBytes, onDropped), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers
      })
    }
    return boundedJson(response, requestIds(init?.body), maxBytes, onDropped)
  }
