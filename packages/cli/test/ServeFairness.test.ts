// `tool-search serve` shared by two clients, one of which floods it: through the built binary over
// HTTP, in front of the real `@modelcontextprotocol/server-filesystem` serving an 8 MB file. The
// flood — 100 big reads at once from one session, or one JSON-RPC batch of 100 — is queued and
// refused past the session's bounds, the server behind the gateway stays up (never restarted), and
// the other client's calls are answered meanwhile.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { node, serverEntry, start, text, upstream } from "./gateway.js"

const session = async (url: string) => {
  const client = new Client({ name: "fairness-test", version: "1" })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  await client.callTool({ name: "ToolSearch", arguments: { query: "select:read_text_file,list_directory" } })
  return client
}

describe("tool-search serve: one client's flood does not reach another", () => {
  it("100 reads of an 8 MB file at once from one session: queued, then refused; the server stays up", {
    timeout: 120_000
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "tool-search-fanout-"))
    const big = join(dir, "big.txt")
    writeFileSync(big, `${"0123456789abcdef".repeat(64)}\n`.repeat(8 * 1024))
    const gateway = start([
      "--http",
      "0",
      "--strict=false",
      "--max-queued-calls",
      "8",
      "--upstream",
      upstream("fs", [node, serverEntry("@modelcontextprotocol/server-filesystem"), dir])
    ])
    try {
      const url = await gateway.url()
      await gateway.ready("fs")
      const [attacker, victim] = await Promise.all([session(url), session(url)])
      const flood = Promise.all(
        Array.from({ length: 100 }, () =>
          attacker.callTool({ name: "read_text_file", arguments: { path: big } }).then(
            (r) => `ok ${text(r).slice(-300)}`,
            (e: Error) => `refused ${e.message}`
          ))
      )
      // while the flood runs, the other session is served
      const listed = text(await victim.callTool({ name: "list_directory", arguments: { path: dir } }))
      assert.include(listed, "big.txt")
      const answers = await flood
      const refused = answers.filter((a) => a.startsWith("refused"))
      const served = answers.filter((a) => a.startsWith("ok"))
      // 8 running and 8 waiting (maxSessionCalls, maxQueuedCalls): the rest refused, named
      assert.strictEqual(served.length, 16)
      assert.strictEqual(refused.length, 84)
      assert.match(
        refused[0] ?? "",
        /too many requests in flight for this session \(maxSessionCalls 8, maxQueuedCalls 8\)/
      )
      // each served read was answered — the server's answer (the text and its structuredContent copy,
      // 17 MB) is over maxUpstreamMessageBytes and named so — and the server was never restarted
      for (const answer of served) assert.match(answer, /over the limit of 16777216 bytes \(maxUpstreamMessageBytes\)/)
      assert.strictEqual(gateway.stderr.text().match(/MCP server 'fs' is ready/g)?.length, 1)
      assert.notMatch(gateway.stderr.text(), /lost its connection|ENOBUFS/)
      assert.include(text(await victim.callTool({ name: "list_directory", arguments: { path: dir } })), "big.txt")
      // one batch of 100 reads is refused whole before any of it runs
      const batch = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": (attacker.transport as StreamableHTTPClientTransport).sessionId ?? "",
          "mcp-protocol-version": "2025-06-18"
        },
        body: JSON.stringify(
          Array.from({ length: 100 }, (_, i) => ({
            jsonrpc: "2.0",
            id: 1000 + i,
            method: "tools/call",
            params: { name: "read_text_file", arguments: { path: big } }
          }))
        )
      })
      assert.strictEqual(batch.status, 400)
      assert.match(await batch.text(), /a batch of 100 messages is over the limit of 16 \(maxBatchSize\)/)
      await Promise.all([attacker.close(), victim.close()])
    } finally {
      await gateway.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
