import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { TestConsole } from "effect/testing"
import { Cli, DemoPolicies } from "../src/index.js"
import { runCli, runCliPromise } from "./runCli.js"

const runDemo = (argv: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    yield* Cli.run(["demo", ...argv])
    return yield* TestConsole.logLines
  }).pipe(Effect.provide(NodeServices.layer))

/**
 * What `demo --json` prints with the `list` delivery, which several tests read (none changes it):
 * run once, by the first test that reads it, whichever that is.
 */
let listRun: Promise<string> | undefined
const listJson = Effect.promise(() =>
  listRun ??= runCliPromise(["demo", "--json"], { TOOL_SEARCH_DELIVERY: "list" }).then(({ out }) => out)
)

describe("tool-search demo", () => {
  it.effect(
    "--json: one object per line; every model request carries toolTokens and eagerToolTokens",
    () =>
      Effect.gen(function*() {
        const lines = (yield* listJson).split("\n").map((l) => JSON.parse(l))
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
        const lines = (yield* listJson).split("\n").map((l) => JSON.parse(l))
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
      assert.match(out, /\d+\.\d% of the input tokens \([\d,]+ of [\d,]+\) repeat the start of an earlier request/)
      assert.include(out, "(delivery: list)")
    }), 60_000)

  it.effect(
    "TOOL_SEARCH_DELIVERY=result: one tool list per unit, calls through call_tool, a larger cacheable share",
    () =>
      Effect.gen(function*() {
        const summaryOf = (lines: ReadonlyArray<Record<string, unknown>>) => lines[lines.length - 1] ?? {}
        const parse = (out: string) => out.split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)
        const list = parse(yield* listJson)
        const result = parse((yield* runCli(["demo", "--json"], { TOOL_SEARCH_DELIVERY: "result" })).out)
        const [l, r] = [summaryOf(list), summaryOf(result)]
        assert.deepStrictEqual([l["delivery"], r["delivery"]], ["list", "result"])
        assert.isAtLeast(Number(r["saved"]), 0.9)
        assert.isAbove(Number(r["prefixShare"]), Number(l["prefixShare"]))
        assert.isBelow(
          Number(r["inputTokens"]) - Number(r["prefixTokens"]),
          Number(l["inputTokens"]) - Number(l["prefixTokens"])
        )
        for (const turn of r["turns"] as ReadonlyArray<{ stopReason: string }>) {
          assert.strictEqual(turn.stopReason, "answered")
        }
        // within each unit (turn or fork), every request sends the same tools
        const units = new Map<string, Set<string>>()
        for (
          const e of result.filter((e) => e["type"] === "model-request")
        ) {
          const key = `${String(e["turn"])}/${(e["path"] as ReadonlyArray<string>).join("/")}`
          units.set(key, (units.get(key) ?? new Set()).add((e["tools"] as ReadonlyArray<string>).join(",")))
        }
        for (const lists of units.values()) assert.strictEqual(lists.size, 1)
        assert.isTrue(result.some((e) => e["type"] === "tool-call" && e["via"] === "call_tool"))
      }),
    120_000
  )

  it.effect(
    "an unknown delivery is a usage error naming the variable (with --json, as one JSON object)",
    () =>
      Effect.gen(function*() {
        const { err, exit } = yield* runCli(["demo"], { TOOL_SEARCH_DELIVERY: "telepathy" })
        assert.isTrue(Exit.isFailure(exit))
        assert.include(err, "TOOL_SEARCH_DELIVERY")
        const json = yield* runCli(["demo", "--json"], { TOOL_SEARCH_DELIVERY: "telepathy" })
        assert.isTrue(Exit.isFailure(json.exit))
        assert.strictEqual(json.err, "")
        const error = JSON.parse(json.out).error
        assert.strictEqual(error.subject, "settings")
        assert.include(error.message, "TOOL_SEARCH_DELIVERY")
      }),
    60_000
  )
})

describe("tool-search bench-disclosure", () => {
  it.effect(
    "--json: every delivery mode runs the demo's tasks and the multi-step task to success; result and native keep the list fixed; code halves result's input tokens on the multi-step task",
    () =>
      Effect.gen(function*() {
        const { out } = yield* runCli(["bench-disclosure", "--json"])
        const report = JSON.parse(out) as {
          modes: ReadonlyArray<
            { delivery: string; tasksSucceeded: number; tasks: number; saved: number; prefixShare: number }
          >
          multiStep: ReadonlyArray<
            { delivery: string; tasksSucceeded: number; tasks: number; inputTokens: number; requests: number }
          >
        }
        assert.deepStrictEqual(report.modes.map((m) => m.delivery), ["list", "result", "native", "code"])
        for (const m of report.modes) {
          assert.strictEqual(m.tasksSucceeded, m.tasks, m.delivery)
          assert.isAtLeast(m.saved, 0.9, m.delivery)
        }
        const [list, result, native] = report.modes
        assert.isAbove(result?.prefixShare ?? 0, list?.prefixShare ?? 1)
        assert.isAbove(native?.prefixShare ?? 0, list?.prefixShare ?? 1)

        // token counts come from the tokenizer, not the machine: the same on every run
        assert.deepStrictEqual(report.multiStep.map((m) => m.delivery), ["list", "result", "native", "code"])
        for (const m of report.multiStep) assert.strictEqual(m.tasksSucceeded, m.tasks, m.delivery)
        const byMode = new Map(report.multiStep.map((m) => [m.delivery, m]))
        const code = byMode.get("code")
        const dispatched = byMode.get("result")
        assert.isAtMost(code?.inputTokens ?? Infinity, (dispatched?.inputTokens ?? 0) / 2)
        assert.isBelow(code?.requests ?? Infinity, dispatched?.requests ?? 0)
      }),
    180_000
  )
})
