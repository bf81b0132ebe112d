// `tool-search serve` as its users start it: the built binary, over stdio (driven by the official
// SDK client) or over HTTP (a child process and its printed URL), in front of real MCP servers
// installed from npm. Waiting is on events (a line on stderr, an exit), never on time.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { CommandLine } from "@tool-search/mcp"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"

const require = createRequire(import.meta.url)

/** The entry point of an MCP server package installed from npm. */
export const serverEntry = (pkg: string): string => {
  const manifest = require.resolve(`${pkg}/package.json`)
  const bin = (JSON.parse(readFileSync(manifest, "utf8")) as { bin: Record<string, string> }).bin
  return join(dirname(manifest), Object.values(bin)[0] as string)
}

export const bin = new URL("../bin/tool-search.js", import.meta.url).pathname
export const node = process.execPath
/** An MCP server that misbehaves on request (see the file). */
export const hostile = new URL("../../mcp/test/fixtures/hostile-server.mjs", import.meta.url).pathname

/**
 * Deferral whatever the size: the npm servers offer a handful of tools each, below the default
 * threshold under which a gateway sends every tool (a test of the threshold sets it itself).
 */
export const deferAlways = { TOOL_SEARCH_DEFER: "always" }

/** An `--upstream` value. */
export const upstream = (name: string, words: ReadonlyArray<string>) => `${name}=${CommandLine.join(words)}`

/** The text blocks of a tool result. */
export const text = (result: unknown): string =>
  (result as { content: ReadonlyArray<{ type: string; text?: string }> }).content
    .filter((c) => c.type === "text").map((c) => c.text).join("\n")

/** Collects a stream's text and resolves waiters when it matches. */
const watch = (stream: { on(event: "data", listener: (chunk: Buffer) => void): unknown } | null | undefined) => {
  let seen = ""
  const waiting: Array<{ readonly pattern: RegExp; readonly resolve: (m: RegExpExecArray) => void }> = []
  stream?.on("data", (chunk: Buffer) => {
    seen += chunk.toString()
    for (let i = waiting.length - 1; i >= 0; i--) {
      const w = waiting[i] as (typeof waiting)[number] // i < length
      const match = w.pattern.exec(seen)
      if (match !== null) {
        waiting.splice(i, 1)
        w.resolve(match)
      }
    }
  })
  return {
    text: () => seen,
    /** Resolves once the text so far matches `pattern`. */
    logged: (pattern: RegExp) =>
      new Promise<RegExpExecArray>((resolve) => {
        const match = pattern.exec(seen)
        if (match !== null) resolve(match)
        else waiting.push({ pattern, resolve })
      })
  }
}

/** Waits until each named upstream logged that it is ready (they start in the background). */
const readyWith = (logged: (p: RegExp) => Promise<unknown>) => (...servers: ReadonlyArray<string>) =>
  Promise.all(servers.map((s) => logged(new RegExp(`MCP server '${s}' is ready`)))).then(() => undefined)

/** Starts the gateway over stdio as an MCP client does, and connects the SDK client to it. */
export const connect = async (
  args: ReadonlyArray<string>,
  env: Record<string, string> = {},
  options: { readonly cwd?: string } = {}
) => {
  const transport = new StdioClientTransport({
    command: node,
    args: [bin, "serve", ...args],
    env: { ...deferAlways, ...env },
    stderr: "pipe",
    ...(options.cwd === undefined ? {} : { cwd: options.cwd })
  })
  const stderr = watch(transport.stderr)
  const client = new Client({ name: "serve-test", version: "1.0.0" })
  let changes = 0
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++
  })
  await client.connect(transport)
  return {
    client,
    changes: () => changes,
    stderr: stderr.text,
    logged: stderr.logged,
    ready: readyWith(stderr.logged),
    names: async () => (await client.listTools()).tools.map((t) => t.name),
    call: (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args })
  }
}

/** Starts the gateway as a child process (HTTP, or raw stdio) and watches its output. */
export const start = (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const child: ChildProcessWithoutNullStreams = spawn(node, [bin, "serve", ...args], {
    env: { ...process.env, ...deferAlways, ...env },
    stdio: ["pipe", "pipe", "pipe"]
  })
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve))
  const stdout = watch(child.stdout)
  const stderr = watch(child.stderr)
  return {
    child,
    exited,
    stdout,
    stderr,
    ready: readyWith(stderr.logged),
    /** The URL the HTTP gateway printed, or a failure if it exited first. */
    url: () =>
      Promise.race([
        stderr.logged(/listening on (http:\/\/\S+)/).then((m) => m[1] as string),
        exited.then((code) => Promise.reject(new Error(`the gateway exited with ${code}: ${stderr.text()}`)))
      ]),
    stop: async () => {
      child.kill("SIGTERM")
      return exited
    }
  }
}
