// `tool-search search --strategy semantic|hybrid` over the embeddings server TOOL_SEARCH_EMBEDDINGS
// names: a local server answering fixed vectors (this checks the wire, not the quality of a model).
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { writeJsonl } from "./jsonl.js"
import { runCli } from "./runCli.js"

const dir = mkdtempSync(join(tmpdir(), "tool-search-embeddings-"))
// tool vectors are cached on disk: keep this file's cache to itself (and give the variable back:
// the next test file may run in this process, `isolate: false`)
const cacheDirBefore = process.env["TOOL_SEARCH_CACHE_DIR"]
process.env["TOOL_SEARCH_CACHE_DIR"] = join(dir, "cache")
afterAll(() => {
  if (cacheDirBefore === undefined) delete process.env["TOOL_SEARCH_CACHE_DIR"]
  else process.env["TOOL_SEARCH_CACHE_DIR"] = cacheDirBefore
  rmSync(dir, { recursive: true, force: true })
})
const catalog = writeJsonl(join(dir, "tools.jsonl"), [
  { id: "t1", name: "weather_forecast", description: "Get the weather forecast for a city" },
  { id: "t2", name: "chat_send", description: "Send a chat message" },
  { id: "t3", name: "tickets_open", description: "Open a ticket" }
])

/** One axis per topic: the nearest tool is known in advance. */
const vectorOf = (text: string): Array<number> =>
  text.includes("weather") ? [1, 0, 0] : text.includes("chat") ? [0, 1, 0] : [0, 0, 1]

const embeddingsServer = Effect.acquireRelease(
  Effect.callback<{ readonly url: string; readonly inputs: Array<string>; readonly close: () => void }>((resume) => {
    const inputs: Array<string> = []
    const server = createServer((req, res) => {
      let body = ""
      req.on("data", (c: Buffer) => (body += c.toString()))
      req.on("end", () => {
        const input = (JSON.parse(body) as { input: ReadonlyArray<string> }).input
        inputs.push(...input)
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({ data: input.map((t, index) => ({ index, embedding: vectorOf(t) })) }))
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resume(Effect.succeed({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        inputs,
        close: () => server.close()
      })))
  }),
  (s) => Effect.sync(s.close)
)

describe("tool-search search over configured embeddings (checks the wire, not quality)", () => {
  it.effect("--strategy semantic and hybrid embed through TOOL_SEARCH_EMBEDDINGS", () =>
    Effect.gen(function*() {
      const server = yield* embeddingsServer
      const env = { TOOL_SEARCH_EMBEDDINGS: "openai-compatible:fixed", TOOL_SEARCH_EMBEDDINGS_URL: server.url }
      for (const strategy of ["semantic", "hybrid"]) {
        const { exit, out } = yield* runCli(
          ["search", "will it rain? weather", "--catalog", catalog, "--strategy", strategy, "--json"],
          env
        )
        assert.strictEqual(exit._tag, "Success")
        const results = (JSON.parse(out) as { results: ReadonlyArray<{ name: string }> }).results
        assert.strictEqual(results[0]?.name, "weather_forecast", strategy)
      }
      // the tools were embedded once (the second search read the cache), the queries each time
      assert.deepStrictEqual(server.inputs.filter((t) => t.includes("forecast")).length, 1)
      assert.deepStrictEqual(server.inputs.filter((t) => t === "will it rain? weather").length, 2)
    }))

  it.effect("an embeddings setting that cannot work is a usage error naming the variable", () =>
    Effect.gen(function*() {
      const { err, exit } = yield* runCli(["search", "x", "--catalog", catalog, "--strategy", "semantic"], {
        TOOL_SEARCH_EMBEDDINGS: "openai-compatible:fixed"
      })
      assert.strictEqual(exit._tag, "Failure")
      assert.include(err, "TOOL_SEARCH_EMBEDDINGS_URL: is required for openai-compatible:fixed")
    }))
})
