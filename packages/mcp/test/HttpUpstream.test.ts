// A Streamable HTTP upstream that answers too much, attacked as a stdio one is: its answer over
// `maxMessageBytes` fails that request, named, whether it comes as one JSON body or as an SSE
// event, and the connection goes on serving the next call. The server is the official SDK's, on a
// free loopback port.
import { assert, describe, it } from "@effect/vitest"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { McpSources, Upstream } from "@tool-search/mcp"
import { Context, Effect } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { upstreams } from "./fixtures/Sessions.js"

/** An MCP server over Streamable HTTP whose `big` tool answers `bytes` characters. */
const httpServer = (json: boolean, bytes: number) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ url: string; close: () => void }>((resolve) => {
        const http = createServer(async (req, res) => {
          const server = new Server({ name: "big", version: "1" }, { capabilities: { tools: {} } })
          server.setRequestHandler(ListToolsRequestSchema, () => ({
            tools: ["big", "small"].map((name) => ({ name, inputSchema: { type: "object" } }))
          }))
          server.setRequestHandler(CallToolRequestSchema, (request) => ({
            content: [{ type: "text", text: request.params.name === "big" ? "x".repeat(bytes) : "small answer" }]
          }))
          // stateless: a server and a transport per request
          const transport = new StreamableHTTPServerTransport({
            enableJsonResponse: json
          })
          res.on("close", () => void transport.close())
          await server.connect(transport)
          await transport.handleRequest(req, res)
        })
        http.listen(0, "127.0.0.1", () =>
          resolve({
            url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
            close: () => {
              http.close()
              http.closeAllConnections()
            }
          }))
      })
    ),
    (s) => Effect.sync(s.close)
  )

describe("an HTTP upstream's answers are bounded like a stdio upstream's", () => {
  for (const json of [true, false]) {
    it.live(`${json ? "a JSON body" : "an SSE event"} over maxMessageBytes fails its call, named; the next call is served`, () =>
      Effect.gen(function*() {
        const server = yield* httpServer(json, 300_000)
        const context = yield* upstreams([
          { name: "remote", transport: Upstream.http(server.url), maxMessageBytes: 100_000 }
        ])
        const remote = Context.get(context, McpSources.McpSources)
        const error = yield* Effect.flip(remote.call("remote", "big", {}))
        assert.strictEqual(error._tag, "ServerProtocolError")
        assert.match(error.message, /over the limit of 100000 bytes \(maxUpstreamMessageBytes\)/)
        const small = yield* remote.call("remote", "small", {})
        assert.deepStrictEqual(small.content, [{ type: "text", text: "small answer" }])
        const status = (yield* remote.status).find((s) => s.name === "remote")
        assert.strictEqual(status?.connections, 1)
      }))
  }
})
