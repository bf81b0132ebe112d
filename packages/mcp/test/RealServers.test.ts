// The gateway in front of real MCP servers from npm (server-memory, server-filesystem on a temp
// folder, server-everything over stdio and over Streamable HTTP), driven by the official SDK
// client over Streamable HTTP: tools, and the servers' resources and prompts (the two
// server-everything instances list the same URIs and prompt names, so each is qualified).
// Everything runs locally and offline.
import { assert, layer } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Keyword, ResourceCatalog, ToolCatalog } from "@tool-search/core"
import { CommandLine, Gateway, HttpGateway, McpSources, QualifiedUri, Upstream } from "@tool-search/mcp"
import { Context, Effect, Fiber, Layer, Logger } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { call, loadsInOneSessionOnly, type Session as InMemorySession, text } from "./fixtures/Sessions.js"

const require = createRequire(import.meta.url)
/** The entry point of an MCP server package installed from npm. */
const serverEntry = (pkg: string): string => {
  const manifest = require.resolve(`${pkg}/package.json`)
  const bin = (JSON.parse(readFileSync(manifest, "utf8")) as { bin: Record<string, string> }).bin
  return join(dirname(manifest), Object.values(bin)[0] as string)
}
const node = process.execPath
const memory = serverEntry("@modelcontextprotocol/server-memory")
const filesystem = serverEntry("@modelcontextprotocol/server-filesystem")
const everything = serverEntry("@modelcontextprotocol/server-everything")
const tap = new URL("fixtures/tap-server.mjs", import.meta.url).pathname

const freePort = Effect.promise(() =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })
)

/** server-everything over Streamable HTTP, as a child process, until the scope closes. */
const everythingOverHttp = Effect.gen(function*() {
  const port = yield* freePort
  const child = yield* Effect.acquireRelease(
    Effect.sync(() =>
      spawn(node, [everything, "streamableHttp"], {
        env: { ...process.env, PORT: String(port) },
        stdio: ["ignore", "ignore", "pipe"]
      })
    ),
    (child: ChildProcess) => Effect.sync(() => child.kill("SIGKILL"))
  )
  yield* Effect.promise(() =>
    new Promise<void>((resolve) => {
      child.stderr?.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("listening")) resolve()
      })
    })
  )
  return `http://127.0.0.1:${port}/mcp`
})

class Setup extends Context.Service<Setup, {
  readonly url: string
  readonly dir: string
  readonly pidFile: string
  /** The tool names of the calls that reached server-everything over stdio, one a line. */
  readonly tapFile: string
}>()("test/Setup") {
  static readonly layer = Layer.effect(
    Setup,
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "tool-search-mcp-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
      const files = join(dir, "files")
      const pidFile = join(dir, "everything.pid")
      const tapFile = join(dir, "everything.calls")
      mkdirSync(files)
      writeFileSync(join(files, "note.txt"), "hello from a real file\n")
      const httpUrl = yield* everythingOverHttp
      // Written as a user would on the command line: the shell-like splitter gives `sh` its script.
      // The tap wrapper records the server's pid and each call that reaches it.
      const everythingLine = `sh -c ${
        CommandLine.quote(
          `exec ${node} ${tap} ${CommandLine.quote(pidFile)} ${CommandLine.quote(tapFile)} ${node} ${everything} stdio`
        )
      }`
      const parsed = Upstream.parse(`everything=${everythingLine}`)
      if (parsed._tag === "Failure") throw new Error(parsed.failure.message)
      const servers: ReadonlyArray<Upstream.Input> = [
        {
          name: "memory",
          transport: Upstream.stdio(node, [memory], { env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") } })
        },
        { name: "fs", transport: Upstream.stdio(node, [filesystem, files]) },
        { name: "everything", transport: parsed.success.transport, restartDelay: "100 millis" },
        { name: "everythingHttp", transport: Upstream.http(httpUrl) }
      ]
      // Built in this layer's scope: the servers live as long as the tests that share them.
      const upstreams = yield* Layer.build(
        McpSources.layerWithResources(servers).pipe(
          Layer.provideMerge(ToolCatalog.layer),
          // as `serve` does without the level tools: bodies are read when a client reads
          Layer.provideMerge(ResourceCatalog.layerWith({ indexBodies: false })),
          Layer.provide(Keyword.layer)
        )
      )
      const address = yield* HttpGateway.serve({ port: 0 }).pipe(
        Gateway.withResources,
        Gateway.withSources,
        Effect.provideContext(upstreams)
      )
      return { url: address.url, dir: files, pidFile, tapFile }
    })
  ).pipe(Layer.provide(Logger.layer([])))
}

/** A session over HTTP: what the in-memory sessions of the fixtures have but their notification queue. */
type Session = Pick<InMemorySession, "client" | "changes" | "names">

/** An official SDK client on its own gateway session; the session is ended (DELETE) with the scope. */
const session = Effect.gen(function*() {
  const { url } = yield* Setup
  const transport = new StreamableHTTPClientTransport(new URL(url))
  const client = new Client({ name: "test-client", version: "1.0.0" })
  let changes = 0
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++
  })
  yield* Effect.acquireRelease(
    Effect.promise(() => client.connect(transport)),
    () =>
      Effect.promise(async () => {
        await transport.terminateSession().catch(() => undefined)
        await client.close()
      })
  )
  return {
    client,
    changes: () => changes,
    names: async () => (await client.listTools()).tools.map((t) => t.name)
  } satisfies Session
})

layer(Setup.layer, { timeout: 60_000, excludeTestServices: true })("the gateway in front of real MCP servers", (it) => {
  it.effect("lists only the search tools, loads what a search finds, announces it, and runs it for real", () =>
    Effect.gen(function*() {
      const s = yield* session
      assert.deepStrictEqual(yield* Effect.promise(s.names), ["ToolSearch", "call_tool"])

      const found = yield* call(s, "ToolSearch", { query: "create entities knowledge graph", max_results: 1 })
      assert.match(text(found), /"name":"create_entities"/)
      assert.strictEqual(s.changes(), 1)
      const listed = (yield* Effect.promise(() => s.client.listTools())).tools
      assert.deepStrictEqual(listed.map((t) => t.name), ["ToolSearch", "call_tool", "create_entities"])
      assert.deepStrictEqual(listed[2]?.annotations?.readOnlyHint, false)

      const created = yield* call(s, "create_entities", {
        entities: [{ name: "tool-search", entityType: "project", observations: ["fronts MCP servers"] }]
      })
      assert.strictEqual(created.isError, undefined)
      assert.match(text(created), /"name": "tool-search"/)

      yield* call(s, "ToolSearch", { query: "select:read_graph,read_text_file" })
      assert.strictEqual(s.changes(), 2)
      const graph = yield* call(s, "read_graph")
      assert.match(text(graph), /fronts MCP servers/)
      const { dir } = yield* Setup
      const file = yield* call(s, "read_text_file", { path: join(dir, "note.txt") })
      assert.strictEqual(text(file), "hello from a real file\n")
      const listedNow = (yield* Effect.promise(() => s.client.listTools())).tools
      assert.deepStrictEqual(listedNow.find((t) => t.name === "read_text_file")?.annotations?.readOnlyHint, true)
    }))

  it.effect("two client sessions are isolated", () =>
    Effect.gen(function*() {
      const a = yield* session
      const b = yield* session
      yield* loadsInOneSessionOnly(a, b, "select:list_directory", "list_directory")
      const { dir } = yield* Setup
      const denied = yield* call(b, "list_directory", { path: dir })
      assert.strictEqual(denied.isError, true)
      assert.match(text(denied), /not loaded yet/)
      const listing = yield* call(a, "list_directory", { path: dir })
      assert.match(text(listing), /\[FILE\] note\.txt/)
    }))

  it.effect("imports a server over Streamable HTTP; same-named tools of two servers get qualified names", () =>
    Effect.gen(function*() {
      const s = yield* session
      const found = yield* call(s, "ToolSearch", { query: "+echo" })
      assert.match(text(found), /"name":"everything__echo"/)
      assert.match(text(found), /"name":"everythingHttp__echo"/)
      const echoed = yield* call(s, "everythingHttp__echo", { message: "over http" })
      assert.strictEqual(text(echoed), "Echo: over http")
    }))

  it.effect("lists and reads the servers' resources and prompts, each server's under its qualified URI or name", () =>
    Effect.gen(function*() {
      const { client } = yield* session
      const doc = "demo://resource/static/document/features.md"
      const uris = (yield* Effect.promise(() => client.listResources())).resources.map((r) => r.uri)
      assert.includeMembers(uris, [
        QualifiedUri.qualify("everything", doc),
        QualifiedUri.qualify("everythingHttp", doc)
      ])
      const read = yield* Effect.promise(() =>
        client.readResource({ uri: QualifiedUri.qualify("everythingHttp", doc) })
      )
      assert.strictEqual(read.contents[0]?.uri, QualifiedUri.qualify("everythingHttp", doc))
      assert.match((read.contents[0] as { text: string }).text, /^#/)

      const templates = (yield* Effect.promise(() => client.listResourceTemplates())).resourceTemplates
      const template = QualifiedUri.qualify("everything", "demo://resource/dynamic/text/{resourceId}")
      assert.include(templates.map((t) => t.uriTemplate), template)
      const concrete = template.replace("{resourceId}", "3")
      const dynamic = yield* Effect.promise(() => client.readResource({ uri: concrete }))
      assert.deepStrictEqual(dynamic.contents.map((c) => c.uri), [concrete])
      assert.match((dynamic.contents[0] as { text: string }).text, /^Resource 3: This is a plaintext resource/)

      const prompts = (yield* Effect.promise(() => client.listPrompts())).prompts.map((p) => p.name)
      assert.includeMembers(prompts, ["everything__simple-prompt", "everythingHttp__simple-prompt"])
      const simple = yield* Effect.promise(() => client.getPrompt({ name: "everything__simple-prompt" }))
      assert.strictEqual(simple.messages[0]?.role, "user")
      assert.strictEqual(simple.messages[0]?.content.type, "text")
      // a prompt's embedded resource comes with the URI the client reads it by
      const embedding = yield* Effect.promise(() =>
        client.getPrompt({
          name: "everything__resource-prompt",
          arguments: { resourceType: "Text", resourceId: "2" }
        })
      )
      const embedded = embedding.messages[1]?.content as { type: string; resource: { uri: string } }
      assert.strictEqual(embedded.resource.uri, QualifiedUri.qualify("everything", "demo://resource/dynamic/text/2"))
    }))

  it.effect("reads the resource links a tool returns, through the gateway", () =>
    Effect.gen(function*() {
      const s = yield* session
      yield* call(s, "ToolSearch", { query: "select:everything__get-resource-links" })
      const result = yield* call(s, "everything__get-resource-links", { count: 2 })
      const links = (result.content as ReadonlyArray<{ type: string; uri?: string; mimeType?: string }>)
        .filter((c) => c.type === "resource_link")
      // both server-everything instances serve these URIs: each link names the instance it came from
      assert.deepStrictEqual(links.map((l) => l.uri), [
        QualifiedUri.qualify("everything", "demo://resource/dynamic/blob/1"),
        QualifiedUri.qualify("everything", "demo://resource/dynamic/text/2")
      ])
      const blob = yield* Effect.promise(() => s.client.readResource({ uri: links[0]?.uri ?? "" }))
      const bytes = Buffer.from((blob.contents[0] as { blob: string }).blob, "base64").toString("utf8")
      assert.match(bytes, /^Resource 1: This is a base64 blob/)
      const textLink = yield* Effect.promise(() => s.client.readResource({ uri: links[1]?.uri ?? "" }))
      assert.match((textLink.contents[0] as { text: string }).text, /^Resource 2: This is a plaintext resource/)
    }))

  it.effect("an upstream killed mid-call gives an error result; the others keep serving; it is restarted", () =>
    Effect.gen(function*() {
      const s = yield* session
      yield* call(s, "ToolSearch", {
        query: "select:everything__trigger-long-running-operation,everything__echo,read_graph"
      })
      const { pidFile, tapFile } = yield* Setup
      const pid = Number(readFileSync(pidFile, "utf8"))
      const pending = yield* Effect.forkChild(
        call(s, "everything__trigger-long-running-operation", { duration: 30, steps: 30 })
      )
      // killed once the call has reached the server (the tap saw it), whatever the machine's speed
      const reached = () =>
        existsSync(tapFile) && readFileSync(tapFile, "utf8").includes("trigger-long-running-operation")
      while (!reached()) yield* Effect.sleep("20 millis")
      process.kill(pid, "SIGKILL")
      const result = yield* Fiber.join(pending)
      assert.strictEqual(result.isError, true)
      assert.match(
        text(result),
        /^MCP server 'everything' lost its connection during the call to 'trigger-long-running-operation'/
      )

      const other = yield* call(s, "read_graph")
      assert.strictEqual(other.isError, undefined)

      // The supervisor restarts the dead server: the same session's loaded tool works again.
      let echoed = yield* call(s, "everything__echo", { message: "back" })
      // until it is back (the test's timeout is the only bound: no figure for how long a start takes)
      while (echoed.isError === true) {
        yield* Effect.sleep("100 millis")
        echoed = yield* call(s, "everything__echo", { message: "back" })
      }
      assert.strictEqual(text(echoed), "Echo: back")
      assert.notStrictEqual(Number(readFileSync(pidFile, "utf8")), pid)
    }))
})
