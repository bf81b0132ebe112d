// Upstream failures with a real process: answers over the size bound, listings that can never be
// read, and how each is classified — only a transport failure restarts a server, a deterministic
// failure is retried on the backoff and then marked failed, never restart-looped.
import { assert, describe, it } from "@effect/vitest"
import { Keyword, ToolCatalog } from "@tool-search/core"
import { McpSources, Upstream } from "@tool-search/mcp"
import { Context, Effect, Layer, Logger, Schedule } from "effect"
import * as fc from "fast-check"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { idOf, LineReader } from "../src/internal/LineReader.js"

const hostile = new URL("./fixtures/hostile-server.mjs", import.meta.url).pathname
const dir = mkdtempSync(join(tmpdir(), "tool-search-upstream-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const start = (servers: ReadonlyArray<Upstream.Input>) =>
  Effect.map(
    Layer.build(
      McpSources.layer(servers).pipe(
        Layer.provideMerge(ToolCatalog.layer.pipe(Layer.provide(Keyword.layer))),
        Layer.provide(Logger.layer([]))
      )
    ),
    (context) => Context.get(context, McpSources.McpSources)
  )

const text = (result: { readonly content: ReadonlyArray<unknown> }): string =>
  (result.content as ReadonlyArray<{ text?: string }>).map((c) => c.text ?? "").join("")

describe("LineReader", () => {
  it("property: any chunking gives the same lines; a line over the bound is reported with its size", () => {
    const line = fc.oneof(fc.string({ maxLength: 30 }).map((s) => s.replace(/\n/g, " ")), fc.constant("x".repeat(50)))
    fc.assert(fc.property(fc.array(line, { maxLength: 10 }), fc.array(fc.nat(60), { maxLength: 8 }), (lines, cuts) => {
      const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(""))
      const seen: Array<string> = []
      const reader = new LineReader(40, (l) => seen.push(l), (o) => seen.push(`<${o.bytes} bytes>`))
      let at = 0
      for (const cut of [...cuts].sort((a, b) => a - b)) {
        reader.push(bytes.subarray(at, Math.max(at, cut)))
        at = Math.max(at, cut)
      }
      reader.push(bytes.subarray(at))
      const expected = lines.filter((l) => l.trim() !== "").map((l) =>
        Buffer.byteLength(l) > 40 ? `<${Buffer.byteLength(l)} bytes>` : l
      )
      assert.deepStrictEqual(seen, expected)
    }))
  })

  it("finds the id of an oversized answer at either end, only at the top level", () => {
    const ends = (s: string) => ({ bytes: s.length, head: s.slice(0, 256), tail: s.slice(-256) })
    const big = "y".repeat(1000)
    assert.strictEqual(idOf(ends(`{"result":{"text":"${big}"},"jsonrpc":"2.0","id":7}`)), 7)
    assert.strictEqual(idOf(ends(`{"jsonrpc":"2.0","id":"a-1","result":{"text":"${big}"}}`)), "a-1")
    assert.strictEqual(idOf(ends(`{"result":{"text":"${big}","id":3}}`)), undefined)
  })
})

describe("upstream failures over stdio", () => {
  it.live("an answer over the size bound fails that call, naming the size; the server is not restarted", () =>
    Effect.gen(function*() {
      const sources = yield* start([
        { name: "hostile", transport: Upstream.stdio(process.execPath, [hostile]), maxMessageBytes: 100_000 }
      ])
      const error = yield* Effect.flip(sources.call("hostile", "big", { bytes: 300_000 }))
      assert.strictEqual(error._tag, "ServerProtocolError")
      assert.match(error.message, /over the limit of 100000 bytes \(maxUpstreamMessageBytes\)/)
      assert.match(error.message, /answer is 3000\d\d bytes/)
      // the same connection goes on: no restart, the next call works
      assert.strictEqual(text(yield* sources.call("hostile", "echo", { text: "still here" })), "\"still here\"")
      assert.strictEqual((yield* sources.status)[0]?.connections, 1)
    }))

  it.live("a listing that can never be read is retried on the backoff, then the server is marked failed", () =>
    Effect.gen(function*() {
      const starts = join(dir, "starts.txt")
      const sources = yield* start([{
        name: "hostile",
        transport: Upstream.stdio(process.execPath, [hostile], { env: { LIST_BYTES: "300000", STARTS_FILE: starts } }),
        maxMessageBytes: 100_000,
        attempts: 3,
        reconnect: Schedule.spaced("5 millis")
      }])
      const status = yield* McpSources.awaitStatus("hostile", (s) => s.state === "failed").pipe(
        Effect.provideService(McpSources.McpSources, sources)
      )
      assert.match(status.error?.message ?? "", /tools\/list failed: .*over the limit of 100000 bytes/)
      assert.strictEqual(readFileSync(starts, "utf8").split("\n").filter((l) => l === "start").length, 3)
      const call = yield* Effect.flip(sources.call("hostile", "echo", {}))
      assert.match(call.message, /is not available to call 'echo': it failed \(.*over the limit/)
    }))

  it.live("a process that dies is a transport failure: the server is restarted", () =>
    Effect.gen(function*() {
      const sources = yield* start([
        { name: "hostile", transport: Upstream.stdio(process.execPath, [hostile]), restartDelay: "1 millis" }
      ])
      const crashed = yield* Effect.flip(sources.call("hostile", "crash", {}))
      assert.strictEqual(crashed._tag, "ConnectionLost")
      yield* McpSources.awaitStatus("hostile", (s) => s.state === "ready" && s.connections === 2).pipe(
        Effect.provideService(McpSources.McpSources, sources)
      )
      assert.strictEqual(text(yield* sources.call("hostile", "echo", { text: 1 })), "1")
    }))
})
