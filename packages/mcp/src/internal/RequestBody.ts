/**
 * The body of a POST to the HTTP gateway, read and checked before any of it runs: at most
 * `maxMessageBytes` are read (a larger body is refused with 413 and not read further), it must be
 * JSON, and a JSON-RPC batch may hold at most `maxBatchSize` messages (a larger one is refused
 * whole with 400, so that nothing of it runs).
 *
 * @internal
 */
import type { IncomingMessage } from "node:http"

/** A POST body: parsed, or refused with the status, JSON-RPC code and message to answer. */
export type Body =
  | { readonly _tag: "Body"; readonly body: unknown }
  | { readonly _tag: "Refused"; readonly status: number; readonly code: number; readonly message: string }

/**
 * Reads a request body of at most `maxBytes` (a larger one is not read further) and parses it; a
 * JSON-RPC batch of more than `maxBatch` messages is refused whole.
 */
export const readBody = (req: IncomingMessage, maxBytes: number, maxBatch: number): Promise<Body> =>
  new Promise((resolve) => {
    const tooLarge: Body = {
      _tag: "Refused",
      status: 413,
      code: -32000,
      message: `the request body is larger than ${maxBytes} bytes (maxMessageBytes)`
    }
    if (Number(req.headers["content-length"] ?? 0) > maxBytes) return resolve(tooLarge)
    const chunks: Array<Buffer> = []
    let bytes = 0
    let done = false
    req.on("data", (chunk: Buffer) => {
      if (done) return
      bytes += chunk.length
      if (bytes > maxBytes) {
        done = true
        req.pause()
        return resolve(tooLarge)
      }
      chunks.push(chunk)
    })
    req.on("error", () => {
      if (!done) resolve({ _tag: "Refused", status: 400, code: -32700, message: "the request body could not be read" })
      done = true
    })
    req.on("end", () => {
      if (done) return
      done = true
      let body: unknown
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      } catch {
        return resolve({ _tag: "Refused", status: 400, code: -32700, message: "Parse error: the body is not JSON" })
      }
      if (Array.isArray(body) && body.length > maxBatch) {
        return resolve({
          _tag: "Refused",
          status: 400,
          code: -32600,
          message:
            `a batch of ${body.length} messages is over the limit of ${maxBatch} (maxBatchSize): nothing of it ran`
        })
      }
      resolve({ _tag: "Body", body })
    })
  })
