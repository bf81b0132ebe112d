// HTTP gateways on a database, in this process, and the official SDK client talking to them: what
// the `serve --database` tests and the reliability suite share. Each gateway is what one
// `tool-search serve --database` process holds: its own database layer (pool, write-behind,
// journal), catalog and upstream connection, closed with its scope.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  ToolListChangedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Keyword, ToolCatalog } from "@tool-search/core"
import { deferAlways } from "@tool-search/core/test-kit"
import { Gateway, HttpGateway, McpSources, type Upstream } from "@tool-search/mcp"
import type { Database, WriteBehind } from "@tool-search/store"
import { Duration, Effect, Layer, Logger, Redacted, Scope } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import * as GatewayDatabase from "../src/GatewayDatabase.js"

export const tokens = [Redacted.make("alice-secret"), Redacted.make("bob-secret")]
export const alice = { authorization: "Bearer alice-secret" }
export const bob = { authorization: "Bearer bob-secret" }

/** The session secret of every gateway here: instances serving one session share it. */
export const secret = Redacted.make("a-test-secret-of-enough-length")

/** The store settings of a gateway here (the database itself comes as a layer). */
export const storeSettings = (options: { readonly payloads?: boolean } = {}): GatewayDatabase.Settings => ({
  database: { _tag: "Memory" },
  databaseTimeout: Duration.seconds(5),
  journal: "off",
  journalBytes: 1024 ** 3,
  heldBytes: 64 * 1024 ** 2,
  journalSync: Duration.seconds(1),
  auditPayloads: options.payloads ?? false,
  auditRetention: Duration.days(90),
  sessionSecretFile: ""
})

/**
 * An upstream MCP server in this process: `send_email`, `create_issue`, `read_file`, and `echo`
 * (`{token}` back); it records the calls that ran, in order (`echo` by its token).
 */
export const upstream = () => {
  const calls: Array<string> = []
  const tools = [
    ["send_email", "Send an email message to a recipient"],
    ["create_issue", "Create an issue in the bug tracker"],
    ["read_file", "Read a file from disk"],
    ["echo", "Echo a token back unchanged"]
  ].map(([name, description]) => ({ name, description, inputSchema: { type: "object", properties: {} } }))
  const transport: Upstream.Custom = {
    _tag: "Custom",
    make: Effect.promise(async () => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      const server = new Server({ name: "work", version: "1" }, { capabilities: { tools: {} } })
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }))
      server.setRequestHandler(CallToolRequestSchema, (request) => {
        const token = request.params.arguments?.token
        calls.push(request.params.name === "echo" ? String(token) : request.params.name)
        return {
          content: [{
            type: "text",
            text: request.params.name === "echo" ? String(token) : `${request.params.name} done`
          }]
        }
      })
      await server.connect(serverSide)
      return clientSide
    })
  }
  return { calls, transport }
}

/** The gateway's session limits. */
export interface Limits {
  readonly maxSessions: number
  readonly sessionIdleTimeout: number
  readonly maxLoadedTools?: number
}

/**
 * A gateway on `db` over `work`, listening on a free port until `scope` closes: one gateway
 * process (a database layer is opened with it and closed with it).
 */
export const gateway = (
  db: Layer.Layer<Database.Database | SqlClient | WriteBehind.WriteBehind, Database.DatabaseUnavailable>,
  work: ReturnType<typeof upstream>,
  scope: Scope.Scope,
  limits: Limits = { maxSessions: 100, sessionIdleTimeout: 3600 },
  store: GatewayDatabase.Settings = storeSettings()
) =>
  Effect.gen(function*() {
    const context = yield* Effect.orDie(Layer.build(
      McpSources.layer([{ name: "work", transport: work.transport }]).pipe(
        Layer.provideMerge(ToolCatalog.layer.pipe(Layer.provide(Keyword.layer))),
        Layer.provideMerge(deferAlways), // the fake server's few tools: defer anyway
        Layer.provideMerge(GatewayDatabase.layerOn(store, limits, { feedback: true, secret })),
        Layer.provide(db),
        Layer.provide(Logger.layer([]))
      )
    ))
    return yield* Effect.orDie(
      HttpGateway.serve({
        port: 0,
        tokens,
        maxSessions: limits.maxSessions,
        sessionIdleTimeout: Duration.seconds(limits.sessionIdleTimeout),
        ...(limits.maxLoadedTools === undefined ? {} : { maxLoadedTools: limits.maxLoadedTools })
      }).pipe(Gateway.withSources, Effect.provideContext(context))
    )
  }).pipe(Scope.provide(scope), Effect.provide(Logger.layer([])))

/** The official client on `url`: a new session, or with `sessionId` the client reconnecting to its own. */
export const connectNow = async (url: string, headers: Record<string, string>, sessionId?: string) => {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers },
    ...(sessionId === undefined ? {} : { sessionId })
  })
  const client = new Client({ name: "db-test", version: "1" })
  let changes = 0
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++
  })
  await client.connect(transport)
  return { client, transport, id: transport.sessionId ?? "", listChanged: () => changes }
}

/** `connectNow` as an effect. */
export const connect = (url: string, headers: Record<string, string>, sessionId?: string) =>
  Effect.promise(() => connectNow(url, headers, sessionId))

/** The tool names a client's `tools/list` answers. */
export const names = (client: Client) => Effect.promise(async () => (await client.listTools()).tools.map((t) => t.name))

/** Calls a tool; its text and whether it is an error result. */
export const callNow = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
  const result = await client.callTool({ name, arguments: args })
  const content = result.content as ReadonlyArray<{ readonly text?: string }>
  return { text: content.map((c) => c.text ?? "").join("\n"), isError: result.isError === true }
}

/** `callNow` as an effect. */
export const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  Effect.promise(() => callNow(client, name, args))

/** A raw `tools/list` with a session id, as an attacker who learnt it sends it; the HTTP status. */
export const steal = (url: string, id: string, headers: Record<string, string>) =>
  Effect.promise(async () =>
    (await fetch(url, {
      method: "POST",
      headers: {
        ...headers,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": id
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" })
    })).status
  )

/** Polls `check` every 50 ms until it holds; gives up (a hang guard) after `seconds`. */
export const until = async (check: () => Promise<boolean> | boolean, seconds = 60): Promise<number> => {
  const started = Date.now()
  while (!(await check())) {
    if (Date.now() - started > seconds * 1000) throw new Error(`gave up waiting after ${seconds} s`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return Date.now() - started
}
