// `tool-search serve` attacked through the built binary, one attack per test: garbage and
// oversized input on stdio, arguments nested to overflow a stack, upstream answers too large,
// a network bind without a credential, a credential leaking to the servers behind it. Plus the
// telemetry an operator configures, received by a stand-in OTLP collector.
import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { bin, connect, hostile, node, serverEntry, start, text, upstream } from "./gateway.js"

/** The environment the `everything` server behind `gateway` runs with: its `get-env` tool, loaded then called. */
const everythingEnv = async (gateway: Awaited<ReturnType<typeof connect>>) => {
  await gateway.ready("everything")
  await gateway.call("ToolSearch", { query: "select:get-env" })
  return text(await gateway.call("get-env"))
}

const initialize = (id: number) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
  })

const hostileUpstream = upstream("hostile", [node, hostile])

describe("tool-search serve under attack", () => {
  it(
    "stdio: every line gets its JSON-RPC answer, an oversized one too, and the gateway goes on",
    { timeout: 30_000 },
    async () => {
      const gateway = start(["--upstream", hostileUpstream])
      try {
        const answers = (n: number) =>
          gateway.stdout.logged(new RegExp(`^(?:.*\\n){${n}}`)).then(() =>
            gateway.stdout.text().trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)
          )
        gateway.child.stdin.write("this is not json\n")
        gateway.child.stdin.write("{\"jsonrpc\":\"2.0\"}\n")
        gateway.child.stdin.write("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":5}\n")
        gateway.child.stdin.write("[1,2]\n")
        // 11 MB in one message, over the 4 MiB default: answered, not a silent exit
        gateway.child.stdin.write(
          `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"${"x".repeat(11_000_000)}"}}\n`
        )
        gateway.child.stdin.write(`${initialize(10)}\n`)
        const [parse, noMethod, badMethod, batch, big, init] = await answers(6)
        const errorOf = (answer: Record<string, unknown> | undefined) =>
          (answer?.["error"] ?? { code: 0, message: "" }) as { code: number; message: string }
        assert.deepInclude(parse, { id: null })
        assert.strictEqual(errorOf(parse).code, -32700)
        assert.match(errorOf(parse).message, /^Parse error: /)
        assert.deepStrictEqual(noMethod?.["error"], {
          code: -32600,
          message:
            "Invalid Request: a message needs a \"method\" (a request or a notification), or an \"id\" with a \"result\" or an \"error\""
        })
        assert.deepStrictEqual(badMethod, {
          jsonrpc: "2.0",
          id: 7,
          error: { code: -32600, message: "Invalid Request: \"method\" must be a string" }
        })
        assert.strictEqual(
          errorOf(batch).message,
          "Invalid Request: batches are not supported: send one message per line"
        )
        assert.strictEqual(big?.["id"], 9)
        assert.match(
          errorOf(big).message,
          /^Invalid Request: the message is 110000\d\d bytes, over the limit of 4194304 bytes \(maxMessageBytes\)$/
        )
        assert.strictEqual(init?.["id"], 10)
        assert.isObject(init?.["result"])
        await gateway.stderr.logged(/stdio: Invalid Request: the message is \d+ bytes/)
      } finally {
        gateway.child.stdin.end()
      }
      // stdin ended: a normal stop, and said so
      assert.strictEqual(await gateway.exited, 0)
      assert.match(gateway.stderr.text(), /stdin closed: the client went away; stopping/)
    }
  )

  it("arguments nested 5,000 levels deep get -32602; the upstream is neither reached nor restarted", {
    timeout: 30_000
  }, async () => {
    const gateway = start(["--upstream", hostileUpstream])
    const answer = (id: number) =>
      gateway.stdout.logged(new RegExp(`"id":${id}[,}]`)).then(() =>
        gateway.stdout.text().trim().split("\n").map((l) => JSON.parse(l) as { id: number }).find((m) => m.id === id)
      )
    const send = (message: string) => gateway.child.stdin.write(`${message}\n`)
    const call = (id: number, name: string, args: string) =>
      send(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":${args}}}`)
    try {
      send(initialize(1))
      await answer(1)
      send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")
      await gateway.ready("hostile")
      call(2, "ToolSearch", "{\"query\":\"select:echo\"}")
      await answer(2)
      // ~40 KB of text: JSON.stringify cannot even write it back, and recursive code overflows on it
      call(3, "echo", `{"text":${"{\"a\":".repeat(5000)}"leaf"${"}".repeat(5000)}}`)
      assert.deepStrictEqual(await answer(3), {
        jsonrpc: "2.0",
        id: 3,
        error: { code: -32602, message: "tools/call: \"arguments\" nest deeper than 64 levels (maxArgumentDepth)" }
      } as never)
      call(4, "echo", "{\"text\":\"still here\"}")
      assert.deepStrictEqual((await answer(4) as unknown as { result: unknown }).result, {
        content: [{ type: "text", text: "\"still here\"" }]
      })
    } finally {
      gateway.child.stdin.end()
    }
    assert.strictEqual(await gateway.exited, 0)
    assert.strictEqual(gateway.stderr.text().match(/MCP server 'hostile' is ready/g)?.length, 1)
    assert.notMatch(gateway.stderr.text(), /lost its connection/)
  })

  it("an upstream answer over the size bound fails that call with its size; a long result is cut; no restart", {
    timeout: 30_000
  }, async () => {
    const gateway = await connect([
      "--upstream",
      hostileUpstream,
      "--max-upstream-message-bytes",
      "100000",
      "--max-result-chars",
      "1000"
    ])
    try {
      await gateway.ready("hostile")
      await gateway.call("ToolSearch", { query: "select:big,echo" })
      const huge = await gateway.call("big", { bytes: 300_000 })
      assert.strictEqual(huge.isError, true)
      assert.match(
        text(huge),
        /the server's answer is 3000\d\d bytes, over the limit of 100000 bytes \(maxUpstreamMessageBytes\)/
      )
      const long = await gateway.call("big", { bytes: 5000 })
      const blocks = long.content as ReadonlyArray<{ text: string }>
      assert.strictEqual(blocks[0]?.text.length, 1000)
      assert.match(blocks[1]?.text ?? "", /over the limit of 1000 \(maxResultChars\): it was cut/)
      assert.strictEqual(text(await gateway.call("echo", { text: "still" })), "\"still\"")
    } finally {
      await gateway.client.close()
    }
    assert.strictEqual(gateway.stderr().match(/MCP server 'hostile' is ready/g)?.length, 1)
  })

  it("a burst of upstream list_changed that changes nothing reaches no client", { timeout: 30_000 }, async () => {
    const gateway = await connect(["--upstream", hostileUpstream])
    try {
      await gateway.ready("hostile")
      await gateway.call("ToolSearch", { query: "select:spam" })
      await gateway.names() // the client knows its list now: changes to it are announced
      const before = gateway.changes()
      assert.strictEqual(text(await gateway.call("spam", { count: 100, every: 5 })), "sent 100")
      await gateway.call("ToolSearch", { query: "select:echo" }) // a round trip after the burst
      assert.strictEqual(gateway.changes(), before + 1, "only the search's own change")
    } finally {
      await gateway.client.close()
    }
  })

  it(
    "HTTP: a non-loopback bind without a credential is refused; with one, requests without it get 401, and no server sees it",
    {
      timeout: 30_000
    },
    async () => {
      const refused = spawnSync(
        node,
        [bin, "serve", "--http", "0", "--host", "0.0.0.0", "--upstream", hostileUpstream],
        {
          encoding: "utf8",
          input: ""
        }
      )
      assert.strictEqual(refused.status, 2)
      assert.strictEqual(refused.stderr.trim().split("\n").length, 1)
      assert.match(refused.stderr, /refusing to listen on 0\.0\.0\.0 without authentication/)

      const everything = upstream("everything", [node, serverEntry("@modelcontextprotocol/server-everything")])
      const gateway = start(["--http", "0", "--host", "0.0.0.0", "--upstream", everything], {
        TOOL_SEARCH_AUTH_TOKEN: "s3cret-token"
      })
      try {
        const port = new URL(await gateway.url()).port
        const url = `http://127.0.0.1:${port}/mcp`
        const post = (headers: Record<string, string>) =>
          fetch(url, {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
            body: initialize(1)
          })
        assert.strictEqual((await post({})).status, 401)
        assert.strictEqual((await post({ authorization: "Bearer wrong" })).status, 401)
        const ok = await post({ authorization: "Bearer s3cret-token" })
        assert.strictEqual(ok.status, 200)
        assert.match(gateway.stderr.text(), /auth="1 bearer token\(s\) of 1 principal\(s\)"/)
        assert.notMatch(gateway.stderr.text(), /s3cret-token/)
      } finally {
        await gateway.stop()
      }
      // the servers behind the gateway get its environment, but not its credential
      const stdio = await connect(["--upstream", everything, "--strict=false"], {
        TOOL_SEARCH_AUTH_TOKEN: "s3cret-token"
      })
      try {
        const env = await everythingEnv(stdio)
        assert.include(env, "PATH")
        assert.notInclude(env, "s3cret-token")
      } finally {
        await stdio.client.close()
      }
    }
  )

  it(
    "no variable of the gateway reaches a server, only the base ones and its own env; no credential is in a log line",
    { timeout: 60_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "tool-search-secrets-"))
      try {
        const config = join(dir, "gateway.json")
        writeFileSync(
          config,
          JSON.stringify({
            mcpServers: {
              everything: {
                command: node,
                args: [serverEntry("@modelcontextprotocol/server-everything")],
                env: { GIVEN_TO_THE_SERVER: "yes" }
              },
              // unreachable: its failures are logged, with its URL
              remote: { url: "http://bob:remote-pass@127.0.0.1:9/mcp?token=query-secret&x=1" }
            },
            strict: false,
            otlpEndpoint: "http://otlp-user:otlp-pass@127.0.0.1:9"
          })
        )
        const gateway = await connect(["--config", config], {
          TOOL_SEARCH_AUTH_TOKEN: "s3cret-token",
          TOOL_SEARCH_OPENAI_KEY: "sk-from-the-gateway",
          AWS_SECRET_ACCESS_KEY: "aws-from-the-gateway"
        })
        try {
          const env = await everythingEnv(gateway)
          assert.include(env, "PATH")
          assert.include(env, "GIVEN_TO_THE_SERVER")
          for (const secret of ["TOOL_SEARCH", "sk-from-the-gateway", "aws-from-the-gateway", "s3cret-token"]) {
            assert.notInclude(env, secret)
          }
          await gateway.logged(/MCP server 'remote'.*127\.0\.0\.1:9/)
          const log = gateway.stderr()
          assert.match(log, /otlp=http:\/\/otlp-user:\*\*\*@127\.0\.0\.1:9/)
          for (const secret of ["otlp-pass", "remote-pass", "query-secret", "s3cret-token"]) {
            assert.notInclude(log, secret)
          }
        } finally {
          await gateway.client.close()
        }
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }
  )

  it("with an OTLP endpoint, searches and calls are exported as spans and metrics", { timeout: 30_000 }, async () => {
    const received: Array<{ path: string; body: string }> = []
    const collector = createServer((req, res) => {
      let body = ""
      req.on("data", (chunk: Buffer) => body += chunk.toString())
      req.on("end", () => {
        received.push({ path: req.url ?? "", body })
        res.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve))
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`
    try {
      const gateway = await connect(["--upstream", hostileUpstream, "--otlp-endpoint", endpoint])
      await gateway.ready("hostile")
      await gateway.call("ToolSearch", { query: "select:echo" })
      await gateway.call("echo", { text: "traced" })
      // closing the session stops the gateway, which flushes what it has not exported yet
      await gateway.client.close()
      const traces = received.filter((r) => r.path === "/v1/traces").map((r) => r.body).join("")
      const metrics = received.filter((r) => r.path === "/v1/metrics").map((r) => r.body).join("")
      assert.include(traces, "tool-search.gateway.search")
      assert.include(traces, "tool-search.gateway.call")
      assert.include(metrics, "tool_search_gateway_searches")
      assert.include(metrics, "tool_search_gateway_calls")
    } finally {
      collector.close()
    }
  })
})
