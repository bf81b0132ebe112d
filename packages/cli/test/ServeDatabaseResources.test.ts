// `tool-search serve --database` audits what a session read: the official SDK client over
// Streamable HTTP reads an upstream resource and gets an upstream prompt through the gateway, and
// `tool-search audit --session <id>` lists both (the method, the URI or prompt name, the server,
// the outcome), a read strict mode refuses with its refusal, the level tools (`sample_resources`,
// `read_resource`) with what they were given, and the payloads (the params, the answer) only with
// TOOL_SEARCH_AUDIT_PAYLOADS on.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Keyword, ResourceCatalog, ToolCatalog, Visibility } from "@tool-search/core"
import { Gateway, HttpGateway, McpSources, type Upstream } from "@tool-search/mcp"
import { Duration, Effect, Exit, Layer, Logger, Redacted, Scope } from "effect"
import { TestConsole } from "effect/testing"
import * as GatewayDatabase from "../src/GatewayDatabase.js"
import { runCli } from "./runCli.js"
import { withTempDatabase } from "./tempDatabase.js"

const headers = { authorization: "Bearer alice-secret" }

/** An upstream MCP server in this process with two documents and a prompt. */
const docs: Upstream.Custom = {
  _tag: "Custom",
  make: Effect.promise(async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    const server = new Server(
      { name: "docs", version: "1" },
      { capabilities: { tools: {}, resources: {}, prompts: {} } }
    )
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }))
    server.setRequestHandler(ListResourcesRequestSchema, () => ({
      resources: ["docs://policy/refunds", "docs://internal/salaries"].map((uri) => ({
        uri,
        name: uri.split("/").pop() as string,
        mimeType: "text/plain"
      }))
    }))
    server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }))
    server.setRequestHandler(ReadResourceRequestSchema, (request) => ({
      contents: [{ uri: request.params.uri, mimeType: "text/plain", text: `the body of ${request.params.uri}` }]
    }))
    server.setRequestHandler(ListPromptsRequestSchema, () => ({
      prompts: [{ name: "summarize", arguments: [{ name: "topic", required: true }] }]
    }))
    server.setRequestHandler(GetPromptRequestSchema, (request) => ({
      messages: [{ role: "user", content: { type: "text", text: `Summarize ${request.params.arguments?.["topic"]}` } }]
    }))
    await server.connect(serverSide)
    return clientSide
  })
}

/** A gateway on the embedded database `dir`, strict: only the refunds policy is selected. */
const gateway = (dir: string, auditPayloads: boolean, scope: Scope.Scope) =>
  Effect.gen(function*() {
    const context = yield* Effect.orDie(Layer.build(
      McpSources.layerWithResources([{ name: "docs", transport: docs }]).pipe(
        Layer.provideMerge(ToolCatalog.layer),
        Layer.provideMerge(ResourceCatalog.layer),
        Layer.provide(Keyword.layer),
        Layer.provideMerge(GatewayDatabase.layer(
          { _tag: "Embedded", path: dir },
          {
            database: { _tag: "Embedded", path: dir },
            databaseTimeout: Duration.seconds(10),
            journal: "auto",
            journalBytes: 1024 ** 3,
            heldBytes: 64 * 1024 ** 2,
            journalSync: Duration.seconds(1),
            auditPayloads,
            auditRetention: Duration.days(90),
            sessionSecretFile: ""
          },
          { maxSessions: 10, sessionIdleTimeout: 3600 },
          { feedback: false }
        )),
        Layer.provide(Logger.layer([]))
      )
    ))
    return yield* Effect.orDie(
      HttpGateway.serve({ port: 0, tokens: [Redacted.make("alice-secret")], resourceTools: true }).pipe(
        Gateway.withResources,
        Gateway.withSources,
        Effect.provideContext(context),
        Effect.provide(Visibility.layer({ strict: true, select: ["docs://policy/refunds", "summarize"] }))
      )
    )
  }).pipe(Scope.provide(scope), Effect.provide(Logger.layer([])))

/** One session: reads the selected policy, gets the prompt, and tries the hidden document. */
const session = (dir: string, auditPayloads: boolean) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const { url } = yield* gateway(dir, auditPayloads, scope)
    const { client, id } = yield* Effect.promise(async () => {
      const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })
      const client = new Client({ name: "audit-test", version: "1" })
      await client.connect(transport)
      return { client, id: transport.sessionId ?? "" }
    })
    const read = yield* Effect.promise(() => client.readResource({ uri: "docs://policy/refunds" }))
    assert.deepStrictEqual(read.contents.map((c) => "text" in c ? c.text : c.blob), [
      "the body of docs://policy/refunds"
    ])
    const prompt = yield* Effect.promise(() => client.getPrompt({ name: "summarize", arguments: { topic: "refunds" } }))
    assert.strictEqual(prompt.messages.length, 1)
    const hidden = yield* Effect.promise(() =>
      client.readResource({ uri: "docs://internal/salaries" }).then(() => undefined, (e: { code?: number }) => e.code)
    )
    assert.strictEqual(hidden, -32002) // strict mode: a resource not selected does not exist
    // the level tools: a sample, then a slice of the document
    yield* Effect.promise(() => client.callTool({ name: "sample_resources", arguments: { query: "refunds" } }))
    const slice = yield* Effect.promise(() =>
      client.callTool({ name: "read_resource", arguments: { uri: "docs://policy/refunds", length: 8 } })
    )
    assert.notStrictEqual(slice.isError, true)
    yield* Effect.promise(() => client.close())
    // read while the gateway holds the embedded database: through the gateway
    const audit = yield* runCli(["audit", "--json", "--session", id], { TOOL_SEARCH_DATABASE: dir }).pipe(
      Effect.provide(TestConsole.layer)
    )
    assert.isTrue(Exit.isSuccess(audit.exit), audit.err)
    yield* Scope.close(scope, Exit.void)
    // and once it stopped: from the directory itself, the same entries
    const again = yield* runCli(["audit", "--json", "--session", id], { TOOL_SEARCH_DATABASE: dir }).pipe(
      Effect.provide(TestConsole.layer)
    )
    assert.strictEqual(again.out, audit.out)
    const text = yield* runCli(["audit", "--session", id], { TOOL_SEARCH_DATABASE: dir }).pipe(
      Effect.provide(TestConsole.layer)
    )
    return { entries: audit.out.split("\n").map((l) => JSON.parse(l)), text: text.out }
  })

describe("tool-search serve --database: the audit of resources and prompts", () => {
  it.live(
    "records each resources/read and prompts/get with its target, server and outcome; payloads only when asked",
    () =>
      withTempDatabase(Effect.fn(function*(dir: string) {
        const plain = yield* session(dir, false)
        assert.deepStrictEqual(
          plain.entries.map((e) => `${e.type} ${e.tool} ${e.target} ${e.source} ${e.outcome}`),
          [
            "call resources/read docs://policy/refunds docs ok",
            "call prompts/get summarize docs ok",
            "call resources/read docs://internal/salaries null not-found",
            "call sample_resources refunds null ok",
            "call read_resource docs://policy/refunds null ok"
          ]
        )
        for (const entry of plain.entries) {
          assert.notProperty(entry, "arguments")
          assert.notProperty(entry, "result")
        }
        assert.match(plain.text, /call {4}resources\/read docs:\/\/policy\/refunds \(docs\) {2}ok/)
        assert.match(plain.text, /call {4}prompts\/get summarize \(docs\) {2}ok/)

        const full = yield* session(dir, true)
        const [read, prompt, refused] = full.entries
        assert.deepStrictEqual(read.arguments, { uri: "docs://policy/refunds" })
        assert.strictEqual(read.result.contents[0].text, "the body of docs://policy/refunds")
        assert.deepStrictEqual(prompt.arguments, { name: "summarize", arguments: { topic: "refunds" } })
        assert.strictEqual(prompt.result.messages[0].content.text, "Summarize refunds")
        assert.deepStrictEqual(refused.result, { error: "Resource not found: docs://internal/salaries" })
      })),
    { timeout: 120_000 }
  )
})
