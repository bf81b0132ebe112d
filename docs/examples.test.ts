// Every example in docs/ runs here, so the guides cannot drift from the code.
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { AiError, LanguageModel, Prompt, Toolkit } from "effect/ai"
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as AgentExample from "./examples/agent.js"
import * as CodeMode from "./examples/code-mode.js"
import * as DeliveryExample from "./examples/delivery.js"
import * as ForkExample from "./examples/fork.js"
import * as McpGateway from "./examples/mcp-gateway.js"
import * as McpImport from "./examples/mcp-import.js"
import * as OwnLoop from "./examples/own-loop.js"
import type * as Persistence from "./examples/persistence.js"
import * as ProvidersExample from "./examples/providers.js"
import * as Quickstart from "./examples/quickstart.js"
import * as Readme from "./examples/readme.js"
import * as Resources from "./examples/resources.js"
import * as Search from "./examples/search.js"
import * as SwapStrategy from "./examples/swap-strategy.js"
import * as VisibilityExample from "./examples/visibility.js"
import * as Settings from "./settings.js"

describe("docs examples", () => {
  it.effect("quickstart: a search activates the tool for this turn", () =>
    Effect.map(
      Quickstart.program,
      (visible) =>
        assert.deepStrictEqual(visible, {
          before: ["read_file", "ToolSearch"],
          after: ["read_file", "ToolSearch", "slack_send"]
        })
    ))

  it.effect("readme: one annotation per deferred tool, one layer; the found tool joins the next request", () =>
    Effect.map(Readme.program, (r) =>
      assert.deepStrictEqual(r, {
        sent: [
          ["read_file", "ToolSearch"],
          ["read_file", "ToolSearch", "slack_send"],
          ["read_file", "ToolSearch", "slack_send"]
        ],
        activated: ["slack_send"],
        answer: "Done: slack_send returned true"
      })))

  it.effect("delivery: list adds the found tool to the list; result keeps one list and calls through call_tool", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* DeliveryExample.turn("list"), {
        sent: [["read_file", "ToolSearch"], ["read_file", "ToolSearch", "slack_send"], [
          "read_file",
          "ToolSearch",
          "slack_send"
        ]],
        calls: ["ToolSearch", "slack_send"],
        prefixKept: [false, true]
      })
      assert.deepStrictEqual(yield* DeliveryExample.turn("result"), {
        sent: [["read_file", "ToolSearch", "call_tool"], ["read_file", "ToolSearch", "call_tool"], [
          "read_file",
          "ToolSearch",
          "call_tool"
        ]],
        calls: ["ToolSearch", "call_tool → slack_send"],
        prefixKept: [true, true]
      })
    }))

  it.live("code-mode: one program lists 200 users, messages three, and only its answer comes back", () =>
    Effect.map(CodeMode.program, ({ forTheModel, outcome, sent }) => {
      assert.deepStrictEqual(outcome.result, ["User 68", "User 188", "User 16"])
      assert.strictEqual(outcome.toolCalls, 4)
      assert.deepStrictEqual(sent.map((m) => m.to), ["u68", "u188", "u16"])
      assert.deepStrictEqual(forTheModel, {
        isFailure: false,
        result: { result: ["User 68", "User 188", "User 16"], logs: ["messaged 3 of 200"] }
      })
      assert.include(CodeMode.declarations, "send_message(args: {")
    }))

  it.live("code-mode: in an agent with code delivery, one program does it; found tools never join the list", () =>
    Effect.map(CodeMode.inAgent, (r) =>
      assert.deepStrictEqual(r, {
        offered: [
          ["ToolSearch", "execute_code"],
          ["ToolSearch", "execute_code"],
          ["ToolSearch", "execute_code"]
        ],
        calls: [
          "ToolSearch",
          "ToolSearch",
          "execute_code",
          "execute_code → list_users",
          "execute_code → send_message",
          "execute_code → send_message",
          "execute_code → send_message"
        ],
        sent: ["u68", "u188", "u16"],
        answer: "Done: send_message for u68, u188, u16."
      })))

  it.effect("own-loop: a call to a deferred tool is corrected, then loaded and run, without any AiError", () =>
    Effect.map(OwnLoop.program, (r) =>
      assert.deepStrictEqual(r, {
        steps: ["jira_create: not-active", "ToolSearch: ok", "jira_create: ok"],
        answer: `Done: jira_create returned "OPS-1: outage"`
      })))

  it.effect("fork: sub-agents from the app, one inheriting nothing, one a snapshot of the turn", () =>
    Effect.map(ForkExample.program, (r) =>
      assert.deepStrictEqual(r, {
        turn: ["tickets_open"],
        fresh: ["weather_get"],
        seeded: ["tickets_open", "weather_get"]
      })))

  it.effect("swap-strategy: the same program over another strategy layer", () =>
    Effect.map(
      SwapStrategy.program,
      (r) => {
        assert.deepStrictEqual(r.bm25f, ["jira_create"])
        assert.sameMembers(r.regex, ["slack_send", "slack_list"])
      }
    ))

  it.effect("own-loop: the same model with a plain toolkit fails the request with an AiError", () =>
    Effect.gen(function*() {
      const error = yield* LanguageModel.generateText({
        prompt: Prompt.make("open a ticket for the outage"),
        toolkit: Toolkit.make(OwnLoop.MyToolkit.tools.read_file) // what the model sees before any search
      }).pipe(Effect.flip)
      assert.isTrue(AiError.isAiError(error))
      assert.strictEqual(error.reason._tag, "InvalidOutputError")
    }).pipe(Effect.provide(Layer.mergeAll(
      OwnLoop.Model,
      Toolkit.make(OwnLoop.MyToolkit.tools.read_file).toLayer({ read_file: () => Effect.succeed("") })
    ))))

  it.effect("agent: the found tool is in the request after the search", () =>
    Effect.map(AgentExample.program, (requests) =>
      assert.deepStrictEqual(requests, [
        ["read_file", "ToolSearch"],
        ["read_file", "ToolSearch", "chat_send"],
        ["read_file", "ToolSearch", "chat_send"]
      ])))

  it.effect("visibility: connected names listed, the platform folded, an unexplored source absent", () =>
    Effect.map(VisibilityExample.program, ({ found, systemPrompt, unknown, visible }) => {
      assert.include(systemPrompt, "[retrieval]\n- rag_search (load first) — Search the attached documents.")
      assert.include(systemPrompt, "[news]\n- news_search (load first) — Search recent news articles.")
      assert.include(systemPrompt, "[platform] (66 more tools, hidden)")
      assert.notInclude(systemPrompt, "db_load_rows")
      assert.deepStrictEqual(visible, ["search_tools", "ToolSearch"])
      assert.notInclude(found, "db_load_rows")
      assert.strictEqual(unknown, "unknown")
    }))

  it.live(
    "mcp-import: a real MCP server's tools join the catalog, a search loads one, a call runs it",
    () =>
      Effect.map(McpImport.program, ({ imported, result, status }) => {
        assert.include(imported, "create_entities")
        assert.include(imported, "read_graph")
        assert.match(JSON.stringify(result), /imports MCP servers/)
        assert.deepStrictEqual(status, ["memory: ready, 9 tools"])
      }),
    30_000
  )

  it.live(
    "mcp-gateway: a client sees the search tools, then what its search loaded",
    () =>
      Effect.map(McpGateway.program, (r) =>
        assert.deepStrictEqual(r, {
          first: ["ToolSearch", "call_tool"],
          after: ["ToolSearch", "call_tool", "read_graph"],
          graphIsError: false
        })),
    30_000
  )

  it.effect(
    "resources: the policy is found through L1-L3 and only the slice that answers is read",
    () =>
      Effect.map(Resources.program, (r) => {
        assert.include(
          r.tableOfContents,
          "[policy · policies]\n- Customer policy handbook <policy://acme/customer-handbook> (load first)"
        )
        assert.include(r.tableOfContents, "[document · wiki] (40 more resources, hidden)")
        assert.deepStrictEqual(r.steps.map((s) => s.tool), ["sample_resources", "search_resources", "read_resource"])
        assert.include(r.answer, "Opened laptops can be returned within 14 days of delivery.")
        assert.include(r.answer, "A 15% restocking fee applies to opened laptops")
        assert.isBelow(r.readTokens * 10, r.documentTokens)
        assert.isBelow((r.readTokens + r.tableOfContentsTokens + r.definitionTokens) * 5, r.documentTokens)
      }),
    30_000
  )

  it.effect("search: BM25F splits identifiers, tolerates Korean particles, and is live", () =>
    Effect.map(Search.bm25f, (r) =>
      assert.deepStrictEqual(r, {
        nurses: ["getHealthWorkforce"],
        korean: ["slack_send_message"],
        jira: ["jira_create_ticket"]
      })))

  it.effect("search: regex over names, with errors the model can act on", () =>
    Effect.map(Search.regex, (r) => {
      assert.deepStrictEqual(r.found, ["github_create_issue", "slack_send_message"]) // larger matched share first
      assert.match(r.error, /Invalid regular expression 'slack_\(send': missing closing \)/)
    }))

  it.effect("search: semantic over a custom EmbeddingModel", () =>
    Effect.map(Search.semantic, (r) => assert.deepStrictEqual(r, ["github_create_issue"])))

  it.effect("search: a query that led to a successful call finds that tool first next time", () =>
    Effect.map(Search.feedback, ({ after, before }) => {
      assert.strictEqual(before[0], "weather_now")
      assert.strictEqual(after[0], "weather_week")
    }))

  it.effect("search: no good match loads nothing and says so", () =>
    Effect.map(Search.noGoodMatch, (answer) => {
      const { functions, note } = answer as { functions: ReadonlyArray<unknown>; note?: string }
      assert.deepStrictEqual(functions, [])
      assert.match(note ?? "", /^No good match: the closest tools \(.+\) match these words weakly/)
    }))
})

/** A local server answering in the OpenAI wire format: `answer` gets each request body and its index. */
const openAiWire = (answer: (body: { readonly input?: ReadonlyArray<string> }, index: number) => unknown) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly close: () => void }>((resume) => {
      let n = 0
      const server = createServer((req, res) => {
        let body = ""
        req.on("data", (c: Buffer) => (body += c.toString()))
        req.on("end", () => {
          res.writeHead(200, { "content-type": "application/json" })
          res.end(JSON.stringify(answer(JSON.parse(body), n++)))
        })
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
          close: () => server.close()
        })))
    }),
    (s) => Effect.sync(s.close)
  )

const call = (name: string, args: unknown) => ({
  choices: [{
    message: {
      tool_calls: [{ id: `call_${name}`, type: "function", function: { name, arguments: JSON.stringify(args) } }]
    },
    finish_reason: "tool_calls"
  }]
})

describe("docs examples on the OpenAI wire (a local server with hand-written answers, not a model)", () => {
  it.effect("providers: an agent on the model TOOL_SEARCH_MODEL names", () =>
    Effect.gen(function*() {
      const script = [
        call("ToolSearch", { query: "send chat message" }),
        call("chat_send", { text: "v2.3 is live" }),
        { choices: [{ message: { content: "Announced." }, finish_reason: "stop" }] }
      ]
      const server = yield* openAiWire((_, i) => script[i])
      const result = yield* ProvidersExample.agent("announce the release", {
        TOOL_SEARCH_MODEL: "openai-compatible:qwen3:8b",
        TOOL_SEARCH_MODEL_URL: server.url
      })
      assert.deepStrictEqual(result, { answer: "Announced.", activated: ["chat_send"], requests: 3 })
    }))

  it.effect("providers: semantic search over the embeddings TOOL_SEARCH_EMBEDDINGS names", () =>
    Effect.gen(function*() {
      const topics = ["chat", "ticket", "file"]
      const server = yield* openAiWire((body) => ({
        data: (body.input ?? []).map((text, index) => ({
          index,
          embedding: topics.map((t) => text.toLowerCase().includes(t) ? 1 : 0)
        }))
      }))
      const cache = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "tool-search-docs-"))),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      )
      const found = yield* ProvidersExample.semanticSearch("file a ticket", cache, {
        TOOL_SEARCH_EMBEDDINGS: "openai-compatible:nomic-embed-text",
        TOOL_SEARCH_EMBEDDINGS_URL: server.url
      })
      assert.strictEqual(found[0], "tickets_open")
    }))
})

describe("docs/configuration.md", () => {
  it("lists every setting of every package, exactly as the tables declare them", () => {
    const text = readFileSync(new URL("configuration.md", import.meta.url), "utf8")
    assert.strictEqual(Settings.current(text), Settings.section(), "run npm run docs:settings")
  })
})

describe("docs examples: persistence", () => {
  // The compiled example, run as real processes (npm test builds it first).
  const script = fileURLToPath(new URL("../dist/docs/examples/persistence.js", import.meta.url))
  const run = (database: string, session: string, message: string): Persistence.Summary => {
    const result = spawnSync(process.execPath, [script, session, message], {
      env: { ...process.env, TOOL_SEARCH_DATABASE: database },
      encoding: "utf8",
      timeout: 60_000
    })
    assert.strictEqual(result.status, 0, result.stderr)
    return JSON.parse(result.stdout) as Persistence.Summary
  }
  const expectTwoProcesses = (database: string) => {
    const session = `docs-${process.pid}-${Date.now()}`
    const first = run(database, session, "tell #ops the deploy is done")
    assert.deepStrictEqual(first, {
      carried: [],
      firstRequest: ["read_file", "ToolSearch"],
      searches: 1,
      calls: ["ToolSearch", "chat_send"]
    })
    // a later process on the same database: the model sees chat_send at once and does not search
    const second = run(database, session, "post the release notes to #ops")
    assert.deepStrictEqual(second, {
      carried: ["chat_send"],
      firstRequest: ["read_file", "ToolSearch", "chat_send"],
      searches: 0,
      calls: ["chat_send"]
    })
    // another session on the same database starts clean
    assert.deepStrictEqual(run(database, `${session}-other`, "post the release notes to #ops").carried, [])
  }

  it("two processes on the embedded database: the second sees what the first found", { timeout: 180_000 }, () => {
    expectTwoProcesses(join(mkdtempSync(join(tmpdir(), "tool-search-docs-")), "db"))
  })

  const postgres = process.env.TOOL_SEARCH_TEST_POSTGRES || undefined
  it.skipIf(postgres === undefined)(
    `two processes on PostgreSQL${postgres === undefined ? " (skipped: TOOL_SEARCH_TEST_POSTGRES is not set)" : ""}`,
    { timeout: 180_000 },
    async () => {
      // a database of its own on the server, dropped afterwards
      const name = `tool_search_docs_${process.pid}_${Date.now().toString(36)}`
      const admin = (statement: string) =>
        Effect.runPromise(Effect.scoped(
          Effect.gen(function*() {
            const sql = yield* PgClient.PgClient
            yield* sql.unsafe(statement)
          }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(postgres ?? ""), maxConnections: 1 })))
        ))
      await admin(`CREATE DATABASE ${name}`)
      try {
        const url = new URL(postgres ?? "")
        url.pathname = `/${name}`
        expectTwoProcesses(url.toString())
      } finally {
        await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      }
    }
  )
})
