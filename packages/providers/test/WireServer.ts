// A local HTTP server that answers in a provider's wire format with hand-written responses and
// records every request, so tests can assert what was sent. It checks the wire, not a model.
// Other packages' tests import it as `@tool-search/providers/test-kit`, an export whose files are
// not published (`files` holds `dist/src` and `src` only).
import { Deferred, Effect } from "effect"
import { Tool } from "effect/ai"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/** The tool the wire tests offer: a city's weather forecast. */
export const weather = Tool.dynamic("weather_forecast", {
  description: "Get the weather forecast for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
})

/** A tool call in a scripted answer; `input` goes on the wire as JSON text. */
export interface ScriptedCall {
  readonly id: string
  readonly name: string
  readonly input: unknown
}

/** A Chat Completions answer (OpenAI's wire format): `answer`'s text, or its tool calls. */
export const chatCompletion = (
  answer: string | ReadonlyArray<ScriptedCall>,
  usage: Record<string, unknown> = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
  id = "chatcmpl"
) => ({
  id,
  object: "chat.completion",
  choices: [{
    index: 0,
    message: typeof answer === "string"
      ? { role: "assistant", content: answer }
      : {
        role: "assistant",
        content: null,
        tool_calls: answer.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: JSON.stringify(c.input) }
        }))
      },
    finish_reason: typeof answer === "string" ? "stop" : "tool_calls"
  }],
  usage
})

/** One request as the server received it. */
export interface Recorded {
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
}

/** An answer: a JSON body (or raw text), a status, headers; or `hang` to never answer. */
export type Reply =
  | {
    readonly status?: number
    readonly json?: unknown
    readonly text?: string
    readonly headers?: Readonly<Record<string, string>>
  }
  | "hang"

/** Starts a server for the scope; `answer` gets each request and its index (0-based). */
export const make = (answer: (request: Recorded, index: number) => Reply) =>
  Effect.gen(function*() {
    const requests: Array<Recorded> = []
    const received = yield* Deferred.make<void>()
    const handle = (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8")
        const recorded: Recorded = {
          method: req.method ?? "",
          path: req.url ?? "",
          headers: Object.fromEntries(
            Object.entries(req.headers).flatMap(([k, v]) => typeof v === "string" ? [[k, v]] : [])
          ),
          body: raw === "" ? undefined : JSON.parse(raw)
        }
        const index = requests.push(recorded) - 1
        Deferred.doneUnsafe(received, Effect.void)
        const reply = answer(recorded, index)
        if (reply === "hang") return
        const body = reply.text ?? JSON.stringify(reply.json ?? {})
        res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers })
        res.end(body)
      })
    }
    const server = yield* Effect.acquireRelease(
      Effect.callback<ReturnType<typeof createServer>>((resume) => {
        const s = createServer(handle)
        s.listen(0, "127.0.0.1", () => resume(Effect.succeed(s)))
      }),
      (s) =>
        Effect.callback<void>((resume) => {
          s.closeAllConnections()
          s.close(() => resume(Effect.void))
        })
    )
    const port = (server.address() as AddressInfo).port
    return {
      /** The server's root, e.g. `http://127.0.0.1:41234`. */
      url: `http://127.0.0.1:${port}`,
      /** Every request so far, in order. */
      requests: Effect.sync((): ReadonlyArray<Recorded> => [...requests]),
      /** Completes when the first request arrived. */
      received: Deferred.await(received)
    }
  })
