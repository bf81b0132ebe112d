// The bound on an HTTP upstream's SSE answers, as a parser: however the stream is cut into chunks,
// events within the bound pass unchanged, and an event over it becomes exactly one error answering
// its request (its id read from the message's end, as the SDK writes it) — its bytes counted,
// never kept — while the events after it pass unchanged too.
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { boundedFetch } from "../src/internal/BoundedFetch.js"

const MAX = 2_000

const event = (id: number, text: string) =>
  `event: message\ndata: ${JSON.stringify({ result: { content: [{ type: "text", text }] }, jsonrpc: "2.0", id })}\n\n`

/** `body` served as an SSE stream cut at `cuts` (fractions of its length). */
const served = (body: string, cuts: ReadonlyArray<number>) => {
  const bytes = new TextEncoder().encode(body)
  const at = [...new Set(cuts.map((c) => Math.floor(c * bytes.length)))].sort((a, b) => a - b)
  const chunks = [0, ...at, bytes.length].flatMap((start, i, all) =>
    i + 1 < all.length && all[i + 1] !== start ? [bytes.slice(start, all[i + 1])] : []
  )
  return async () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start: (controller) => {
          for (const chunk of chunks) controller.enqueue(chunk)
          controller.close()
        }
      }),
      { headers: { "content-type": "text/event-stream" } }
    )
}

const read = async (response: Response) => await response.text()

describe("boundedFetch: SSE", () => {
  it("however the stream is cut, small events pass unchanged and an oversized one becomes its error", () =>
    fc.assert(
      fc.asyncProperty(
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 40 }),
        fc.integer({ min: MAX, max: 20 * MAX }),
        fc.string({ unit: "grapheme", maxLength: 50 }),
        async (cuts, size, small) => {
          const body = event(1, small) + event(2, "é".repeat(size)) + event(3, "after")
          const dropped: Array<string> = []
          const fetch = boundedFetch(MAX, (reason) => void dropped.push(reason), served(body, cuts))
          const text = await read(await fetch("http://upstream/mcp"))
          const events = text.split("\n\n").filter((e) => e !== "")
          assert.strictEqual(events.length, 3)
          assert.strictEqual(`${events[0]}\n\n`, event(1, small))
          assert.strictEqual(`${events[2]}\n\n`, event(3, "after"))
          const error = JSON.parse((events[1] ?? "").replace(/^event: message\ndata: /, "")) as {
            id: number
            error: { code: number; message: string; data: { bytes: number; limit: number } }
          }
          assert.strictEqual(error.id, 2)
          assert.strictEqual(error.error.code, -32099)
          assert.strictEqual(error.error.data.limit, MAX)
          assert.isAbove(error.error.data.bytes, 2 * size)
          assert.deepStrictEqual(dropped, [])
        }
      ),
      { numRuns: 200 }
    ))

  it("an oversized event whose id cannot be found is dropped and reported; the stream goes on", async () => {
    const body = `data: ${"x".repeat(5 * MAX)}\n\n${event(3, "after")}`
    const dropped: Array<string> = []
    const text = await read(await boundedFetch(MAX, (r) => void dropped.push(r), served(body, [0.1, 0.5]))("u"))
    assert.strictEqual(text, event(3, "after"))
    assert.match(dropped[0] ?? "", /an SSE event of \d+ bytes was dropped \(maxUpstreamMessageBytes\)/)
  })
})
