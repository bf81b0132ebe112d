// `tool-search serve` as an MCP client starts it: the built binary over stdio, driven by the
// official SDK client, in front of real MCP servers installed from npm.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { CommandLine } from "@tool-search/mcp"
import { spawn, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterAll } from "vitest"

const require = createRequire(import.meta.url)
const serverEntry = (pkg: string): string => {
  const manifest = require.resolve(`${pkg}/package.json`)
  const bin = (JSON.parse(readFileSync(manifest, "utf8")) as { bin: Record<string, string> }).bin
  return join(dirname(manifest), Object.values(bin)[0] as string)
}
const bin = new URL("../bin/tool-search.js", import.meta.url).pathname
const node = process.execPath
const dir = mkdtempSync(join(tmpdir(), "tool-search-serve-"))
const files = join(dir, "files")
mkdirSync(files)
writeFileSync(join(files, "todo.txt"), "ship the gateway\n")
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const upstream = (name: string, words: ReadonlyArray<string>) => `${name}=${CommandLine.join(words)}`

/** Starts the gateway as a child process and connects the SDK client to it. */
const connect = async (upstreams: ReadonlyArray<string>) => {
  const transport = new StdioClientTransport({
    command: node,
    args: [bin, "serve", ...upstreams.flatMap((u) => ["--upstream", u])],
    env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") },
    stderr: "pipe"
  })
  let stderr = ""
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const client = new Client({ name: "serve-test", version: "1.0.0" })
  let changes = 0
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++
  })
  await client.connect(transport)
  return {
    client,
    changes: () => changes,
    stderr: () => stderr,
    names: async () => (await client.listTools()).tools.map((t) => t.name)
  }
}

const text = (result: unknown): string =>
  (result as { content: ReadonlyArray<{ type: string; text?: string }> }).content
    .filter((c) => c.type === "text").map((c) => c.text).join("\n")

describe("tool-search serve", () => {
  it(
    "serves progressive disclosure over real MCP servers to the official SDK client",
    { timeout: 30_000 },
    async () => {
      const gateway = await connect([
        upstream("memory", [node, serverEntry("@modelcontextprotocol/server-memory")]),
        upstream("fs", [node, serverEntry("@modelcontextprotocol/server-filesystem"), files])
      ])
      try {
        assert.deepStrictEqual(await gateway.names(), ["ToolSearch", "call_tool"])
        const found = await gateway.client.callTool({
          name: "ToolSearch",
          arguments: { query: "+text read file", max_results: 1 }
        })
        assert.match(text(found), /"name":"read_text_file"/)
        assert.strictEqual(gateway.changes(), 1)
        assert.deepStrictEqual(await gateway.names(), ["ToolSearch", "call_tool", "read_text_file"])
        const read = await gateway.client.callTool({
          name: "read_text_file",
          arguments: { path: join(files, "todo.txt") }
        })
        assert.strictEqual(text(read), "ship the gateway\n")

        // a client that never refreshes its list goes through call_tool
        await gateway.client.callTool({ name: "ToolSearch", arguments: { query: "select:create_entities,open_nodes" } })
        const created = await gateway.client.callTool({
          name: "call_tool",
          arguments: {
            name: "create_entities",
            arguments: { entities: [{ name: "gateway", entityType: "task", observations: ["serve"] }] }
          }
        })
        assert.strictEqual(created.isError, undefined)
        const opened = await gateway.client.callTool({
          name: "call_tool",
          arguments: { name: "open_nodes", arguments: { names: ["gateway"] } }
        })
        assert.match(text(opened), /"entityType": "task"/)
      } finally {
        await gateway.client.close()
      }
      // stdout carried MCP only: the log lines are on stderr
      assert.match(gateway.stderr(), /MCP server 'memory' is ready with 9 tools/)
    }
  )

  it("keeps serving when one upstream cannot start, and says which one on stderr", { timeout: 30_000 }, async () => {
    const gateway = await connect([
      upstream("broken", [node, "-e", "process.exit(3)"]),
      upstream("memory", [node, serverEntry("@modelcontextprotocol/server-memory")])
    ])
    try {
      const found = await gateway.client.callTool({ name: "ToolSearch", arguments: { query: "select:read_graph" } })
      assert.match(text(found), /"name":"read_graph"/)
      const graph = await gateway.client.callTool({ name: "read_graph", arguments: {} })
      assert.strictEqual(graph.isError, undefined)
    } finally {
      await gateway.client.close()
    }
    assert.match(gateway.stderr(), /MCP server 'broken' failed to start: .*Connection closed/)
  })

  it("--http serves Streamable HTTP on the port it prints, until it is stopped", { timeout: 30_000 }, async () => {
    const child = spawn(node, [
      bin,
      "serve",
      "--http",
      "0",
      "--upstream",
      upstream("memory", [node, serverEntry("@modelcontextprotocol/server-memory")])
    ], { env: { ...process.env, MEMORY_FILE_PATH: join(dir, "memory-http.jsonl") }, stdio: ["ignore", "pipe", "pipe"] })
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve))
    let stdout = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let stderr = ""
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString()
          const match = /listening on (http:\/\/\S+)/.exec(stderr)
          if (match?.[1] !== undefined) resolve(match[1])
        })
        void exited.then(() => reject(new Error(`the gateway exited: ${stderr}`)))
      })
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
      const client = new Client({ name: "http-test", version: "1.0.0" })
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      assert.deepStrictEqual((await client.listTools()).tools.map((t) => t.name), ["ToolSearch", "call_tool"])
      await client.callTool({ name: "ToolSearch", arguments: { query: "select:read_graph" } })
      assert.deepStrictEqual((await client.listTools()).tools.map((t) => t.name), [
        "ToolSearch",
        "call_tool",
        "read_graph"
      ])
      await client.close()
    } finally {
      child.kill("SIGTERM")
    }
    // Effect's runtime turns SIGTERM into an interruption: finalizers run (upstreams are stopped),
    // then the process exits by itself with 130 rather than being killed by the signal (null).
    assert.strictEqual(await exited, 130)
    assert.strictEqual(stdout, "")
  })

  it("a bad --upstream is one line on stderr and exit code 2", () => {
    const result = spawnSync(node, [bin, "serve", "--upstream", "x=node 'unterminated"], {
      encoding: "utf8",
      input: ""
    })
    assert.strictEqual(result.status, 2)
    assert.strictEqual(result.stderr.trim().split("\n").length, 1)
    assert.match(result.stderr, /--upstream: Invalid upstream "x=node 'unterminated": .*unterminated single quote/)
  })
})
