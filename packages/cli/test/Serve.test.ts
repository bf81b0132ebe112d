// `tool-search serve` as an MCP client starts it: the built binary over stdio, driven by the
// official SDK client, and over HTTP, in front of real MCP servers installed from npm. What is
// decided before anything starts (flags, --version) runs in process (`runCli`).
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { connect, node, serverEntry, start, text, upstream } from "./gateway.js"
import { runCliPromise } from "./runCli.js"

const dir = mkdtempSync(join(tmpdir(), "tool-search-serve-"))
const files = join(dir, "files")
mkdirSync(files)
writeFileSync(join(files, "todo.txt"), "ship the gateway\n")
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const memory = upstream("memory", [node, serverEntry("@modelcontextprotocol/server-memory")])

/** `tool-search serve` in process (`runCli`), for what is decided before anything starts. */
const serveInProcess = (args: ReadonlyArray<string>) => runCliPromise(["serve", ...args])

describe("tool-search serve", () => {
  it(
    "serves progressive disclosure over real MCP servers to the official SDK client",
    { timeout: 30_000 },
    async () => {
      const gateway = await connect([
        "--upstream",
        memory,
        "--upstream",
        upstream("fs", [node, serverEntry("@modelcontextprotocol/server-filesystem"), files])
      ], { MEMORY_FILE_PATH: join(dir, "memory.jsonl") })
      try {
        // initialize is answered at once: the upstreams start in the background
        assert.deepStrictEqual(await gateway.names(), ["ToolSearch", "call_tool"])
        // the gateway announces the packages' one version, the one `tool-search --version` prints
        const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))
        assert.deepStrictEqual(gateway.client.getServerVersion(), { name: "tool-search", version })
        assert.strictEqual((await runCliPromise(["--version"])).out, `tool-search v${version}`)
        await gateway.ready("memory", "fs")
        const found = await gateway.call("ToolSearch", { query: "+text read file", max_results: 1 })
        assert.match(text(found), /"name":"read_text_file"/)
        assert.strictEqual(gateway.changes(), 1)
        assert.deepStrictEqual(await gateway.names(), ["ToolSearch", "call_tool", "read_text_file"])
        const read = await gateway.call("read_text_file", { path: join(files, "todo.txt") })
        assert.strictEqual(text(read), "ship the gateway\n")

        // a client that never refreshes its list goes through call_tool
        await gateway.call("ToolSearch", { query: "select:create_entities,open_nodes" })
        const created = await gateway.call("call_tool", {
          name: "create_entities",
          arguments: { entities: [{ name: "gateway", entityType: "task", observations: ["serve"] }] }
        })
        assert.strictEqual(created.isError, undefined)
        const opened = await gateway.call("call_tool", { name: "open_nodes", arguments: { names: ["gateway"] } })
        assert.match(text(opened), /"entityType": "task"/)
      } finally {
        await gateway.client.close()
      }
      // stdout carried MCP only: the log lines are on stderr, one logfmt line each
      assert.match(gateway.stderr(), /MCP server 'memory' is ready with 9 tools/)
      assert.match(gateway.stderr(), /message="gateway search" session=stdio query="\+text read file" results=1/)
      assert.match(gateway.stderr(), /message="gateway call" session=stdio tool=read_text_file outcome=ok ms=\d+/)
    }
  )

  it(
    "forwards the servers' resources and prompts, and with --resource-tools offers the level tools too",
    { timeout: 30_000 },
    async () => {
      const everything = upstream("everything", [node, serverEntry("@modelcontextprotocol/server-everything"), "stdio"])
      const gateway = await connect([
        "--resource-tools",
        "--upstream",
        everything,
        "--upstream",
        upstream("fs", [node, serverEntry("@modelcontextprotocol/server-filesystem"), files])
      ])
      try {
        await gateway.ready("everything", "fs")
        const doc = "demo://resource/static/document/features.md"
        const listed = await gateway.client.listResources()
        assert.include(listed.resources.map((r) => r.uri), doc)
        const read = await gateway.client.readResource({ uri: doc })
        assert.match((read.contents[0] as { text: string }).text, /^#/)
        const prompts = (await gateway.client.listPrompts()).prompts.map((p) => p.name)
        assert.include(prompts, "simple-prompt")

        // the level tools: a document found by what it says, then the slice read
        const names = await gateway.names()
        assert.includeMembers(names, ["sample_resources", "search_resources", "read_resource", "get_prompt"])
        const found = JSON.parse(text(await gateway.call("search_resources", { query: "features", max: 1 })))
        const passage = found.passages[0] as { uri: string; offset: number; length: number }
        assert.match(passage.uri, /^demo:\/\/resource\/static\/document\//)
        const slice = JSON.parse(text(await gateway.call("read_resource", { ...passage })))
        assert.strictEqual(slice.offset, passage.offset)
        assert.isAtMost(slice.text.length, passage.length)
      } finally {
        await gateway.client.close()
      }
    }
  )

  it("keeps serving when one upstream cannot start, and says which one on stderr", { timeout: 30_000 }, async () => {
    const gateway = await connect([
      "--upstream",
      upstream("broken", [node, "-e", "process.exit(3)"]),
      "--upstream",
      memory,
      "--upstream-attempts",
      "2"
    ], { MEMORY_FILE_PATH: join(dir, "memory-broken.jsonl") })
    try {
      await gateway.ready("memory")
      const found = await gateway.call("ToolSearch", { query: "select:read_graph" })
      assert.match(text(found), /"name":"read_graph"/)
      const graph = await gateway.call("read_graph")
      assert.strictEqual(graph.isError, undefined)
      // a process that exits at start is not restarted for ever: after 2 attempts it is failed
      await gateway.logged(/MCP server 'broken' failed 2 times in a row and is no longer retried/)
      const about = await gateway.call("ToolSearch", { query: "broken tools" })
      assert.match(text(about), /Not searched: broken: unavailable \(MCP server 'broken' failed to start/)
    } finally {
      await gateway.client.close()
    }
    assert.match(gateway.stderr(), /MCP server 'broken' failed to start: .*Connection closed/)
  })

  it("--http serves Streamable HTTP on the port it prints, with /health and /ready, until it is stopped", {
    timeout: 30_000
  }, async () => {
    const gateway = start(["--http", "0", "--upstream", memory], { MEMORY_FILE_PATH: join(dir, "memory-http.jsonl") })
    try {
      const url = await gateway.url()
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
      const base = url.replace(/\/mcp$/, "")
      assert.deepStrictEqual(await (await fetch(`${base}/health`)).json(), { status: "ok" })
      await gateway.ready("memory")
      const ready = await fetch(`${base}/ready`)
      assert.strictEqual(ready.status, 200)
      assert.deepStrictEqual(await ready.json(), {
        ready: true,
        servers: [{ name: "memory", state: "ready", tools: 9 }]
      })
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
      // Effect's runtime turns SIGTERM into an interruption: finalizers run (upstreams are stopped),
      // then the process exits by itself with 130 rather than being killed by the signal (null).
      assert.strictEqual(await gateway.stop(), 130)
    }
    assert.strictEqual(gateway.stdout.text(), "")
  })

  it("a bad --upstream is one line on stderr and exit code 2", async () => {
    const result = await serveInProcess(["--upstream", "x=node 'unterminated"])
    assert.strictEqual(result.status, 2)
    assert.strictEqual(result.stderr.trim().split("\n").length, 1)
    assert.match(result.stderr, /--upstream: Invalid upstream "x=node 'unterminated": .*unterminated single quote/)
  })

  it(
    "flags are checked before anything starts: a bad value is exit code 2 and one line naming it",
    { timeout: 60_000 },
    async () => {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, RegExp]> = [
        [["--http", "-1"], /invalid value for --http: '-1' \(expected a port from 0 to 65535, or off\)/],
        [["--http", "70000"], /invalid value for --http: '70000' \(expected a port from 0 to 65535, or off\)/],
        [
          ["--call-timeout", "0"],
          /invalid value for --call-timeout: '0' \(expected a value greater than or equal to 1\)/
        ],
        [
          ["--call-timeout", "-5"],
          /invalid value for --call-timeout: '-5' \(expected a value greater than or equal to 1\)/
        ],
        [["--connect-timeout", "0"], /invalid value for --connect-timeout: '0' \(expected a value greater than/],
        [["--max-results", "30"], /TOOL_SEARCH_MAX_RESULTS: 30 exceeds TOOL_SEARCH_MAX_RESULTS_LIMIT \(20\)/],
        [["--mode", "stagd"], /invalid value for --mode: 'stagd' \(expected "search" \| "catalog" \| "staged"\)/],
        [[], /no upstream server: give --upstream/]
      ]
      for (const [flags, expected] of cases) {
        const result = await serveInProcess(flags.length === 0 ? [] : [...flags, "--upstream", "x=node -e 1"])
        assert.strictEqual(result.status, 2, `${flags.join(" ")}: ${result.stderr}`)
        assert.strictEqual(result.stderr.trim().split("\n").length, 1, result.stderr)
        assert.match(result.stderr, expected)
        assert.match(result.stderr, /\(try 'tool-search serve --help'\)\n$/)
      }
    }
  )
})
