import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestConsole } from "effect/testing"
import { Cli, DemoPolicies } from "../src/index.js"

const runDemo = (argv: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    yield* Cli.run(["demo", ...argv])
    return yield* TestConsole.logLines
  }).pipe(Effect.provide(NodeServices.layer))

describe("tool-search demo", () => {
  it.effect(
    "--json: one object per line; every model request carries toolTokens and eagerToolTokens",
    () =>
      Effect.gen(function*() {
        const lines = (yield* runDemo(["--json"])).map((l) => JSON.parse(String(l)))
        const requests = lines.filter((e) => e.type === "model-request")
        assert.isAbove(requests.length, 8)
        for (const r of requests) {
          assert.isNumber(r.toolTokens)
          assert.isNumber(r.eagerToolTokens)
          assert.isBelow(r.toolTokens, r.eagerToolTokens)
        }
        const summary = lines[lines.length - 1]
        assert.strictEqual(summary.type, "summary")
        assert.isAtLeast(summary.saved, 0.9)
        // the conversation shows a search, a correction, and concurrent forks
        assert.isTrue(lines.some((e) => e.type === "search"))
        assert.isTrue(lines.some((e) => e.type === "tool-result" && e.failure === "not-active"))
        const forks = new Set(lines.filter((e) => Array.isArray(e.path) && e.path.length > 0).map((e) => e.path[0]))
        assert.deepStrictEqual([...forks].sort(), ["fork-1", "fork-2"])
        for (const t of summary.turns) assert.strictEqual(t.stopReason, "answered")
      }),
    60_000
  )

  it.effect(
    "the resource turn finds the policy through the levels, reads under a tenth of it, and answers correctly",
    () =>
      Effect.gen(function*() {
        const lines = (yield* runDemo(["--json"])).map((l) => JSON.parse(String(l)))
        const summary = lines[lines.length - 1]
        const turn = summary.turns.find((t: { readTokens: number }) => t.readTokens > 0).turn
        const events = lines.filter((e) => e.turn === turn)
        // L1 in the system prompt, then L2, L3 and one slice (L4): no body pushed, no other read
        assert.deepStrictEqual(events.filter((e) => e.type === "tool-call").map((e) => e.name), [
          "sample_resources",
          "search_resources",
          "read_resource"
        ])
        const read = events.find((e) => e.type === "tool-call" && e.name === "read_resource")
        assert.strictEqual(read.params.uri, DemoPolicies.handbook.uri)
        const answer = events.find((e) => e.type === "turn-finished" && e.path.length === 0).text
        assert.include(answer, "Opened laptops can be returned within 14 days of delivery.")
        assert.include(answer, "A 15% restocking fee applies to opened laptops")
        const { documentTokens, readTokens } = summary.resources
        assert.isAbove(readTokens, 0)
        assert.isBelow(readTokens * 10, documentTokens)
      }),
    60_000
  )

  it.effect("prints each step and ends with a summary table", () =>
    Effect.gen(function*() {
      const out = (yield* runDemo([])).join("\n")
      assert.match(out, /an agent with \d{3} tools from \d+ services/)
      assert.include(out, "→ ToolSearch")
      assert.include(out, "activated:")
      assert.include(out, "✗ not-active:")
      assert.match(out, /summary\n\s+turn\s+requests/)
      assert.match(out, /fewer tool-definition tokens than sending the whole catalog/)
      assert.match(
        out,
        /read [\d,]+ tokens of resources \(sample, search, slice\): [\d.]+% of the [\d,]+ tokens of pushing/
      )
    }), 60_000)
})
