// Import the tools of an MCP server (the reference memory server, started over stdio) into a
// catalog, find one with a search, and run it. Runs in docs/examples.test.ts (npm test).
import { Keyword, ToolCatalog, Unit } from "@tool-search/core"
import { McpSources, Upstream } from "@tool-search/mcp"
import { Effect, Layer, Logger } from "effect"
import { readFileSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"

// Where npm installed the server (a devDependency here; `npx -y @modelcontextprotocol/server-memory` elsewhere).
const memoryFile = join(tmpdir(), `tool-search-example-${process.pid}.jsonl`)
const manifest = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-memory/package.json")
const memoryServer = join(
  dirname(manifest),
  (JSON.parse(readFileSync(manifest, "utf8")) as { bin: Record<string, string> }).bin["mcp-server-memory"] ?? ""
)

const servers: ReadonlyArray<Upstream.Input> = [{
  name: "memory", // the catalog source of its tools
  transport: Upstream.stdio(process.execPath, [memoryServer], {
    env: { MEMORY_FILE_PATH: memoryFile }
  }),
  callTimeout: "30 seconds"
}]

export const program = Effect.gen(function*() {
  const catalog = yield* ToolCatalog.ToolCatalog
  const imported = (yield* catalog.all).map((t) => t.modelName) // create_entities, read_graph, ...
  // One turn: search, then call what the search loaded.
  const result = yield* Effect.gen(function*() {
    yield* Unit.search("create entities in the knowledge graph", { maxResults: 1 })
    const create = yield* Unit.resolve("create_entities")
    const output = yield* create.run({
      entities: [{ name: "tool-search", entityType: "library", observations: ["imports MCP servers"] }]
    }, { toolCallId: "example" })
    return output.result // the MCP CallToolResult, as the server sent it
  }).pipe(Unit.provide)
  const status = yield* (yield* McpSources.McpSources).status
  return { imported, result, status: status.map((s) => `${s.name}: ${s.state}, ${s.tools} tools`) }
}).pipe(
  Effect.provide(
    McpSources.layer(servers).pipe(
      Layer.provideMerge(ToolCatalog.layer.pipe(Layer.provide(Keyword.layer)))
    )
  ),
  Effect.provide(Logger.layer([])), // the supervisors log to the console; silent here
  Effect.ensuring(Effect.sync(() => rmSync(memoryFile, { force: true })))
)
