// The gateway in a program: the memory server behind it, served over Streamable HTTP, and an
// official SDK client that searches and calls. `tool-search serve` does the same from the
// command line. Runs in docs/examples.test.ts (npm test).
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Disclosure, Keyword, ToolCatalog } from "@tool-search/core"
import { Gateway, HttpGateway, McpSources, Upstream } from "@tool-search/mcp"
import { Effect, Layer, Logger } from "effect"
import { readFileSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"

const memoryFile = join(tmpdir(), `tool-search-gateway-${process.pid}.jsonl`)
const manifest = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-memory/package.json")
const memoryServer = join(
  dirname(manifest),
  (JSON.parse(readFileSync(manifest, "utf8")) as { bin: Record<string, string> }).bin["mcp-server-memory"] ?? ""
)

const Upstreams = McpSources.layer([{
  name: "memory",
  transport: Upstream.stdio(process.execPath, [memoryServer], {
    env: { MEMORY_FILE_PATH: memoryFile }
  })
}]).pipe(
  Layer.provideMerge(ToolCatalog.layer.pipe(Layer.provide(Keyword.layer))),
  // the memory server has 9 tools, below the default threshold (auto:10) under which all are sent
  Layer.provideMerge(Disclosure.layer({ defer: "always" }))
)

export const program = Effect.gen(function*() {
  // http://127.0.0.1:<port>/mcp until the scope closes; `withSources`: calls go to their server unchanged
  const { url } = yield* HttpGateway.serve({ port: 0 }).pipe(Gateway.withSources)
  const client = new Client({ name: "example", version: "1.0.0" })
  yield* Effect.acquireRelease(
    Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(url)))),
    () => Effect.promise(() => client.close())
  )
  const names = async () => (await client.listTools()).tools.map((t) => t.name)
  return yield* Effect.promise(async () => {
    const first = await names() // [ToolSearch, call_tool]
    await client.callTool({ name: "ToolSearch", arguments: { query: "read graph", max_results: 1 } })
    const after = await names() // + read_graph, for this session only
    const graph = await client.callTool({ name: "read_graph", arguments: {} })
    return { first, after, graphIsError: graph.isError === true }
  })
}).pipe(
  Effect.scoped,
  Effect.provide(Upstreams),
  Effect.provide(Logger.layer([])),
  Effect.ensuring(Effect.sync(() => rmSync(memoryFile, { force: true })))
)
