import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runBinary } from "./binary.js"
import { writeJsonl } from "./jsonl.js"
import { runCli } from "./runCli.js"

const dir = mkdtempSync(join(tmpdir(), "tool-search-cli-"))
const catalog = writeJsonl(join(dir, "tools.jsonl"), [
  { id: "t1", name: "slack_send_message", description: "Send a message to a Slack channel" },
  { id: "t2", name: "slack_list_channels", description: "List Slack channels" },
  { id: "t3", name: "read_file", description: "Read a file", loading: "eager" }
])
const broken = join(dir, "broken.jsonl")
writeFileSync(broken, `{"name":"ok"}\n{"name":\n`)

const run = runCli

describe("tool-search search", () => {
  it.effect("--json prints query, mode and results with id, name, score, description", () =>
    Effect.gen(function*() {
      const { exit, out } = yield* run(["search", "+slack send", "--catalog", catalog, "--json"])
      assert.strictEqual(exit._tag, "Success")
      const parsed = JSON.parse(out)
      assert.strictEqual(parsed.query, "+slack send")
      assert.strictEqual(parsed.mode, "required")
      assert.deepStrictEqual(parsed.results.map((r: { id: string }) => r.id), ["t1"])
      assert.deepStrictEqual(Object.keys(parsed.results[0]), ["id", "name", "score", "description"])
    }))

  it.effect("eager tools are not search results (they are always visible)", () =>
    Effect.gen(function*() {
      const { out } = yield* run(["search", "select:read_file,slack_list_channels", "--catalog", catalog, "--json"])
      assert.deepStrictEqual(JSON.parse(out).results.map((r: { name: string }) => r.name), ["slack_list_channels"])
    }))

  it.effect("select: of 11 names returns all 11, as the model's search tool loads them (max_results is for ranked queries)", () =>
    Effect.gen(function*() {
      const names = Array.from({ length: 12 }, (_, i) => `tool_${i}`)
      const many = writeJsonl(join(dir, "many.jsonl"), names.map((name) => ({ name, description: `Tool ${name}` })))
      const { out } = yield* run(["search", `select:${names.slice(0, 11).join(",")}`, "--catalog", many, "--json"])
      assert.deepStrictEqual(JSON.parse(out).results.map((r: { name: string }) => r.name), names.slice(0, 11))
    }))

  it.effect("a missing file is a one-line error with exit code 2", () =>
    Effect.gen(function*() {
      const { err, exit } = yield* run(["search", "x", "--catalog", join(dir, "nope.jsonl")])
      assert.strictEqual(exit._tag, "Failure")
      assert.match(err, /^tool-search: .*nope\.jsonl: cannot read the catalog file \(not found\)$/)
    }))

  it.effect("a tool that does not decode: the decoder's line break is a line break, not \\u000a", () =>
    Effect.gen(function*() {
      const unnamed = join(dir, "unnamed.jsonl")
      writeFileSync(unnamed, `{"description":"no name, \\u001b[31mred"}\n`)
      const { err } = yield* run(["search", "x", "--catalog", unnamed])
      assert.strictEqual(
        err,
        `tool-search: ${unnamed}:1: Invalid tool '<unnamed>': Missing key\n  at ["name"] (--skip-invalid leaves bad tools out)`
      )
      // --json carries the same message in one JSON string
      const json = yield* run(["search", "x", "--catalog", unnamed, "--json"])
      assert.strictEqual(JSON.parse(json.out).error.message, err.replace("tool-search: ", ""))
    }))

  it.effect("a malformed file names the file and line", () =>
    Effect.gen(function*() {
      const { err } = yield* run(["search", "x", "--catalog", broken])
      assert.match(err, /broken\.jsonl:2: invalid JSON/)
      assert.strictEqual(err.split("\n").length, 1)
    }))
})

describe("the tool-search binary", () => {
  it("exits with code 2 and one line on stderr for a bad catalog", async () => {
    const result = await runBinary(["search", "x", "--catalog", broken])
    assert.strictEqual(result.status, 2)
    assert.strictEqual(result.stderr.trim().split("\n").length, 1)
    assert.match(result.stderr, /broken\.jsonl:2: invalid JSON/)
  })
})
