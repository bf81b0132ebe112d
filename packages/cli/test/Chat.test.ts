// `tool-search chat` and `run` against a local server that answers in the Chat Completions wire
// format with hand-written responses: these tests check the wire and the command, not a model.
// They run the command line in process (`runCli`: the exit code and output the binary would give);
// the two with an MCP server run the built binary, whose environment the server inherits and whose
// stdout must carry none of the servers' status lines.
import { assert, describe, it } from "@effect/vitest"
import { CommandLine } from "@tool-search/mcp"
import { chatCompletion } from "@tool-search/providers/test-kit"
import { Database } from "@tool-search/store"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql/SqlClient"
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { createRequire } from "node:module"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterAll } from "vitest"
import { writeJsonl } from "./jsonl.js"
import { runCli, runCliPromise } from "./runCli.js"
import { createDatabase } from "./tempDatabase.js"

const bin = new URL("../bin/tool-search.js", import.meta.url).pathname
const dir = mkdtempSync(join(tmpdir(), "tool-search-chat-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const catalog = writeJsonl(join(dir, "tools.jsonl"), [
  { id: "t1", name: "read_file", description: "Read a file", loading: "eager" },
  {
    id: "t2",
    name: "weather_forecast",
    description: "Get the weather forecast for a city",
    parameters: { type: "object", properties: { city: { type: "string" } } }
  },
  { id: "t3", name: "chat_send", description: "Send a chat message" }
])

// -----------------------------------------------------------------------------
// The wire
// -----------------------------------------------------------------------------

interface ChatRequest {
  readonly messages: ReadonlyArray<
    { readonly role: string; readonly content: string | null; readonly tool_call_id?: string }
  >
  readonly tools?: ReadonlyArray<{ readonly function: { readonly name: string } }>
  readonly tool_choice?: unknown
}

type Answer = string | ReadonlyArray<{ readonly name: string; readonly args: unknown }> | { readonly status: number }

const completion = (answer: Exclude<Answer, { readonly status: number }>, n: number) =>
  chatCompletion(
    typeof answer === "string" ? answer : answer.map((c, i) => ({ id: `call_${n}_${i}`, name: c.name, input: c.args })),
    { prompt_tokens: 50, completion_tokens: 5, total_tokens: 55, prompt_tokens_details: { cached_tokens: 0 } },
    `chatcmpl-${n}`
  )

/** Starts a server answering `script` in order; records the request bodies. */
const wire = async (script: ReadonlyArray<Answer>) => {
  const requests: Array<ChatRequest> = []
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const n = requests.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChatRequest) - 1
      const answer = script[n] ?? "no more script"
      if (typeof answer === "object" && "status" in answer) {
        res.writeHead(answer.status, { "content-type": "application/json" })
        res.end(JSON.stringify({ error: { message: "Invalid API key", type: "invalid_request_error" } }))
        return
      }
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify(completion(answer, n)))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  return {
    url,
    requests,
    // the in-process client keeps its connection alive: end it, as the binary's exit does
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}

/** Runs `body` against a server answering `script` (see `wire`), and closes the server whatever happens. */
const withWire = async (
  script: ReadonlyArray<Answer>,
  body: (server: Awaited<ReturnType<typeof wire>>) => Promise<void>
): Promise<void> => {
  const server = await wire(script)
  try {
    await body(server)
  } finally {
    await server.close()
  }
}

/** What a run of the command did. */
interface Ran {
  readonly code: number | null
  readonly out: string
  readonly err: string
}

/** Runs the command line in process with `env` only, feeding `input` on stdin (`runCli`, on the real clock). */
const tool = (args: ReadonlyArray<string>, env: Record<string, string>, input = ""): Promise<Ran> =>
  runCliPromise(args, { TOOL_SEARCH_CACHE_DIR: dir, ...env }, { input }).then(({ err, out, status }) => ({
    code: status,
    out,
    err
  }))

/** Runs the binary with `env` only (plus PATH), feeding `input` on stdin. */
const binary = (args: ReadonlyArray<string>, env: Record<string, string>, input = "") =>
  new Promise<Ran>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { PATH: process.env["PATH"] ?? "", TOOL_SEARCH_CACHE_DIR: dir, ...env }
    })
    let out = ""
    let err = ""
    child.stdout.on("data", (c: Buffer) => (out += c.toString()))
    child.stderr.on("data", (c: Buffer) => (err += c.toString()))
    child.on("close", (code) => resolve({ code, out, err }))
    child.stdin.end(input)
  })

/** `--upstream` for the memory MCP server installed from npm. */
const memory = (() => {
  const manifest = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-memory/package.json")
  const bin = (JSON.parse(readFileSync(manifest, "utf8")) as { bin: Record<string, string> }).bin
  return `memory=${CommandLine.join([process.execPath, join(dirname(manifest), Object.values(bin)[0] ?? "")])}`
})()

// the three-tool catalog is below the default deferral threshold: these tests of the search flow defer anyway
const modelEnv = (url: string) => ({
  TOOL_SEARCH_MODEL: "openai-compatible:test-model",
  TOOL_SEARCH_MODEL_URL: url,
  TOOL_SEARCH_DEFER: "always"
})

/**
 * `tool-search run "what is in the graph?"` over the memory MCP server, the model at `url`, then
 * `args`: the binary, whose environment (`MEMORY_FILE_PATH`) the server inherits.
 */
const askTheGraph = (url: string, args: ReadonlyArray<string> = []) =>
  binary(["run", "what is in the graph?", "--upstream", memory, ...args], {
    ...modelEnv(url),
    MEMORY_FILE_PATH: join(dir, "memory.jsonl")
  })

// -----------------------------------------------------------------------------
// Tests
// -----------------------------------------------------------------------------

describe("tool-search chat and run without a model", () => {
  it.effect("both say how to configure one and exit 2", () =>
    Effect.gen(function*() {
      for (const argv of [["run", "hello", "--catalog", catalog], ["chat", "--catalog", catalog]]) {
        const { err, exit } = yield* runCli(argv)
        assert.isTrue(exit._tag === "Failure")
        assert.include(err, "TOOL_SEARCH_MODEL")
        assert.include(err, "openai-compatible:<model>")
        assert.include(err, "docs/providers.md")
      }
    }))

  it.effect("a model without its key, or a bad --model, names what to fix", () =>
    Effect.gen(function*() {
      const noKey = yield* runCli(["run", "hi", "--catalog", catalog], { TOOL_SEARCH_MODEL: "anthropic:claude-x" })
      assert.include(noKey.err, "ANTHROPIC_API_KEY: is required for anthropic:claude-x")
      const badFlag = yield* runCli(["run", "hi", "--catalog", catalog, "--model", "gpt-4"])
      assert.include(badFlag.err, "--model")
      const noTools = yield* runCli(["run", "hi"], {
        TOOL_SEARCH_MODEL: "openai-compatible:m",
        TOOL_SEARCH_MODEL_URL: "http://x"
      })
      assert.include(noTools.err, "--catalog <file> and/or --upstream")
    }))
})

describe("tool-search run and chat (checks the wire, not a model)", () => {
  it("run: one turn — search, activation, the call, the answer — with the tools each request carried", {
    timeout: 30_000
  }, async () => {
    await withWire([
      [{ name: "ToolSearch", args: { query: "weather forecast" } }],
      [{ name: "weather_forecast", args: { city: "Oslo" } }],
      "No forecast service here."
    ], async (server) => {
      const { code, err, out } = await tool(["run", "weather in Oslo?", "--catalog", catalog], modelEnv(server.url))
      assert.strictEqual(code, 0, err)
      assert.include(out, "openai-compatible:test-model at " + server.url)
      assert.include(out, "found: weather_forecast")
      assert.include(out, "activated: weather_forecast")
      // a catalog file's tools have no handlers: the call is reported, the turn goes on
      assert.include(out, "no handler in this process")
      assert.include(out, "answer: No forecast service here.")
      assert.include(out, "3 requests")
      assert.deepStrictEqual(server.requests.map((r) => (r.tools ?? []).map((t) => t.function.name)), [
        ["read_file", "ToolSearch"],
        ["read_file", "ToolSearch", "weather_forecast"],
        ["read_file", "ToolSearch", "weather_forecast"]
      ])
    })
  })

  it("run --json: one event per line; TOOL_SEARCH_DISCOVERY_FIRST forces the first request", {
    timeout: 30_000
  }, async () => {
    await withWire([[{ name: "ToolSearch", args: { query: "chat" } }], "done"], async (server) => {
      const { code, out } = await tool(["run", "say hi", "--catalog", catalog, "--json"], {
        ...modelEnv(server.url),
        TOOL_SEARCH_DISCOVERY_FIRST: "true"
      })
      assert.strictEqual(code, 0)
      const events = out.trim().split("\n").map((l) => JSON.parse(l) as { type: string; text?: string })
      assert.strictEqual(events.at(-1)?.type, "turn-finished")
      assert.strictEqual(events.at(-1)?.text, "done")
      assert.deepStrictEqual(server.requests[0]?.tool_choice, { type: "function", function: { name: "ToolSearch" } })
      assert.strictEqual(server.requests[1]?.tool_choice, "auto")
    })
  })

  it("a catalog below the deferral threshold: chat sends its tools directly, no search tool, and says so", {
    timeout: 30_000
  }, async () => {
    await withWire(["Hello!"], async (server) => {
      const { TOOL_SEARCH_DEFER: _, ...env } = modelEnv(server.url)
      const { code, err, out } = await tool(["chat", "--catalog", catalog], env, "hi\n/exit\n")
      assert.strictEqual(code, 0, err)
      assert.include(out, "3 tools (all sent directly")
      assert.include(out, "few tools: all sent directly, no search")
      assert.deepStrictEqual(server.requests.map((r) => (r.tools ?? []).map((t) => t.function.name)), [
        ["read_file", "weather_forecast", "chat_send"]
      ])
    })
  })

  it("chat: a turn per line, the conversation carried over, /exit ends it", { timeout: 30_000 }, async () => {
    await withWire(["Hello!", "You said hi.", "never asked"], async (server) => {
      const { code, err, out } = await tool(
        ["chat", "--catalog", catalog],
        modelEnv(server.url),
        "hi\n\nwhat did I say?\n/exit\nnot read\n"
      )
      assert.strictEqual(code, 0, err)
      assert.include(out, "answer: Hello!")
      assert.include(out, "answer: You said hi.")
      assert.strictEqual(server.requests.length, 2)
      const second = server.requests[1]?.messages.filter((m) => m.role !== "system").map((m) => [m.role, m.content])
      assert.deepStrictEqual(second, [["user", "hi"], ["assistant", "Hello!"], ["user", "what did I say?"]])
    })
  })

  it("a failed model call: run exits 1 naming the provider's message; chat says so and goes on", {
    timeout: 60_000
  }, async () => {
    await withWire([{ status: 401 }, { status: 401 }, "Still here.", { status: 401 }], async (server) => {
      const run = await tool(["run", "hi", "--catalog", catalog], modelEnv(server.url))
      assert.strictEqual(run.code, 1)
      assert.include(run.err, "the model call failed")
      assert.include(run.err, "Invalid API key")
      const chat = await tool(["chat", "--catalog", catalog], modelEnv(server.url), "first\nsecond\n")
      assert.strictEqual(chat.code, 0)
      assert.include(chat.err, "Invalid API key")
      assert.include(chat.out, "answer: Still here.")
      // the failed message is not part of the conversation
      assert.deepStrictEqual(
        server.requests[2]?.messages.filter((m) => m.role !== "system").map((m) => m.content),
        ["second"]
      )
      // with --json the failure is the last JSON line on stdout, with the same exit code
      const json = await tool(["run", "hi", "--catalog", catalog, "--json"], modelEnv(server.url))
      assert.strictEqual(json.code, 1)
      const last = JSON.parse(json.out.trim().split("\n").at(-1) ?? "{}")
      assert.deepStrictEqual(Object.keys(last.error), ["command", "subject", "message", "exitCode"])
      assert.deepInclude(last.error, { command: "tool-search run", subject: "model", exitCode: 1 })
      assert.include(last.error.message, "Invalid API key")
      assert.notInclude(json.err, "Invalid API key")
    })
  })

  it("run --upstream: the tools of a real MCP server, found, loaded and called; logs stay off stdout", {
    timeout: 30_000
  }, async () => {
    await withWire([
      [{ name: "ToolSearch", args: { query: "select:read_graph" } }],
      [{ name: "read_graph", args: {} }],
      "The graph is empty."
    ], async (server) => {
      const { code, err, out } = await askTheGraph(server.url)
      assert.strictEqual(code, 0, err)
      assert.include(out, "9 tools (9 deferred")
      assert.include(out, "activated: read_graph")
      assert.include(out, "answer: The graph is empty.")
      assert.notInclude(out, "is ready") // the MCP servers' status lines go to stderr
      const result = server.requests[2]?.messages.find((m) => m.tool_call_id === "call_1_0") // read_graph's
      assert.include(result?.content, "entities")
    })
  })

  it("run --database: the query that found a tool the agent then called is search feedback in the database", {
    timeout: 120_000 // a binary opening PGlite and an MCP server: 17 s alone, over 60 s at load 6
  }, async () => {
    const database = join(dir, "feedback-db")
    // created here, so the binary only opens it: this test's subject is the feedback, not creating a
    // database (a real process creates one in docs/examples.test.ts, the CLI in process in Audit.test.ts)
    await Effect.runPromise(createDatabase(database))
    await withWire([
      [{ name: "ToolSearch", args: { query: "read the whole knowledge graph" } }],
      [{ name: "read_graph", args: {} }],
      "Read."
    ], async (server) => {
      const { code, err } = await askTheGraph(server.url, ["--database", database])
      assert.strictEqual(code, 0, err)
    })
    const rows = await Effect.runPromise(
      Effect.flatMap(
        Effect.service(SqlClient),
        (sql) =>
          sql<{ readonly tool_id: string; readonly query: string }>`SELECT tool_id, query FROM tool_search_feedback`
      ).pipe(Effect.provide(Layer.orDie(Database.layer({ _tag: "Embedded", path: database }))))
    )
    assert.deepStrictEqual(rows.map((r) => `${r.tool_id}: ${r.query}`), [
      "memory/read_graph: read the whole knowledge graph"
    ])
  })
})
