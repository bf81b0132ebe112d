import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { writeJsonl } from "./jsonl.js"
import { runCli } from "./runCli.js"

const dir = mkdtempSync(join(tmpdir(), "tool-search-bench-"))
const tools = writeJsonl(join(dir, "tools.jsonl"), [
  { id: "t1", name: "slack_send_message", description: "Send a message to a Slack channel" },
  { id: "t2", name: "slack_list_channels", description: "List Slack channels" },
  { id: "t3", name: "getPM2.5Level", description: "Air quality: the PM2.5 level of a city" },
  { id: "t4", name: "read_file", description: "Read a file from disk" }
])
const queries = writeJsonl(join(dir, "queries.jsonl"), [
  { id: "q1", query: "send a slack message", relevant: ["t1"] },
  { id: "q2", query: "air pollution level in Paris", relevant: ["t3"] },
  { id: "q3", query: "channels of slack and read a file", relevant: ["t2", "t4"], relevant_groups: [["t2"], ["t4"]] }
])

const run = runCli

describe("tool-search bench", () => {
  it.effect("--json prints exactly the benchmark keys; names providers reject are sanitized", () =>
    Effect.gen(function*() {
      const rankings = join(dir, "rankings.jsonl")
      const { exit, out } = yield* run([
        "bench",
        "--tools",
        tools,
        "--queries",
        queries,
        "--json",
        "--rankings",
        rankings
      ])
      assert.strictEqual(exit._tag, "Success")
      const report = JSON.parse(out)
      assert.deepStrictEqual(Object.keys(report), [
        "strategy",
        "tools",
        "queries",
        "excluded",
        "rejected",
        "ndcg@10",
        "recall@1",
        "recall@5",
        "recall@10",
        "mrr@10",
        "indexMs",
        "p50Us",
        "p99Us",
        "memoryMb"
      ])
      assert.strictEqual(report.strategy, "bm25f")
      assert.strictEqual(report.tools, 4)
      assert.strictEqual(report.queries, 3)
      assert.strictEqual(report["recall@10"], 1)
      const lines = readFileSync(rankings, "utf8").trim().split("\n").map((l) => JSON.parse(l))
      assert.deepStrictEqual(lines.map((l) => l.id), ["q1", "q2", "q3"])
      assert.strictEqual(lines[0].ranked[0], "t1")
      assert.strictEqual(lines[1].ranked[0], "t3", "evaluated by id, whatever the sanitized name")
    }))

  it.effect("--strategy keyword and regex run; queries a regex rejects count as misses", () =>
    Effect.gen(function*() {
      const keyword = yield* run(["bench", "--tools", tools, "--queries", queries, "--strategy", "keyword", "--json"])
      assert.strictEqual(JSON.parse(keyword.out).strategy, "keyword")
      const regex = yield* run(["bench", "--tools", tools, "--queries", queries, "--strategy", "regex", "--k", "5"])
      assert.match(regex.out, /strategy\s+regex/)
      assert.match(regex.out, /nDCG@5/)
    }))

  it.effect("bad query input is warned about on stderr, counted, and left out of the means", () =>
    Effect.gen(function*() {
      const mixed = writeJsonl(join(dir, "mixed.jsonl"), [
        { id: "q1", query: "send a slack message", relevant: ["t1"] },
        { id: "q2", query: "   ", relevant: ["t1"] },
        { id: "q3", query: "read a file", relevant: [] },
        { id: "q4", query: "read a file", relevant: ["t4", "nope"] },
        { id: "q5", query: "air pollution", relevant: ["gone"] },
        { id: "q1", query: "slack channels", relevant: ["t2"] }
      ])
      const { err, exit, out } = yield* run(["bench", "--tools", tools, "--queries", mixed, "--json"])
      assert.strictEqual(exit._tag, "Success")
      const report = JSON.parse(out)
      assert.strictEqual(report.queries, 2, "q1 and q4 are scored")
      assert.strictEqual(report.excluded, 4)
      assert.strictEqual(report.rejected, 0)
      assert.strictEqual(report["recall@10"], 1, "q4 is scored on its known tool only")
      const warnings = err.split("\n").filter((l) => l.startsWith("tool-search bench: ") && l.includes("query '"))
      assert.deepStrictEqual(warnings.map((w) => /:(\d+): query '(\w+)'/.exec(w)?.slice(1).join(" ")), [
        "2 q2",
        "3 q3",
        "4 q4",
        "5 q5",
        "6 q1"
      ])
      assert.match(warnings[0] ?? "", /empty query \(excluded from the means\)$/)
      assert.match(warnings[2] ?? "", /relevant ids not in the catalog, left out: 'nope'$/)
      assert.match(warnings[3] ?? "", /none of its relevant tools is in the catalog \('gone'\)/)
      assert.match(warnings[4] ?? "", /duplicate query id \(first on line 1\)/)
      const text = yield* run(["bench", "--tools", tools, "--queries", mixed])
      assert.match(text.out, /catalog\s+4 tools, 2 queries \(4 excluded for bad input\)/)
    }))

  it.effect("a queries file with nothing to score is a usage error", () =>
    Effect.gen(function*() {
      const none = join(dir, "none.jsonl")
      writeFileSync(none, JSON.stringify({ id: "q", query: "x", relevant: ["missing"] }))
      const { err, exit } = yield* run(["bench", "--tools", tools, "--queries", none])
      assert.strictEqual(exit._tag, "Failure")
      assert.match(err, /tool-search: .*none\.jsonl: no query can be scored \(1 excluded\)/)
    }))

  it.effect("a bad queries file is a one-line usage error", () =>
    Effect.gen(function*() {
      const bad = join(dir, "bad.jsonl")
      writeFileSync(bad, `{"id":"q1"}`)
      const { err, exit } = yield* run(["bench", "--tools", tools, "--queries", bad])
      assert.strictEqual(exit._tag, "Failure")
      assert.match(err, /^tool-search: .*bad\.jsonl:1: /)
    }))
})

describe("tool-search search --strategy", () => {
  /** `tool-search search <query>` over the bench's tools with `strategy`, names sanitized, then `rest`. */
  const search = (strategy: string, query: string, rest: ReadonlyArray<string>, env?: Record<string, string>) =>
    run(["search", query, "--catalog", tools, "--sanitize-names", "--strategy", strategy, ...rest], env)

  for (const strategy of ["bm25f", "keyword"] as const) {
    it.effect(`${strategy} finds the Slack tool`, () =>
      Effect.gen(function*() {
        const { out } = yield* search(strategy, "send slack message", ["--json"])
        assert.strictEqual(JSON.parse(out).results[0].id, "t1")
      }))
  }

  it.effect("regex matches names; an invalid pattern says what is wrong", () =>
    Effect.gen(function*() {
      const { out } = yield* search("regex", "^slack_.*channels$", ["--json"])
      assert.deepStrictEqual(JSON.parse(out).results.map((r: { id: string }) => r.id), ["t2"])
      const bad = yield* search("regex", "slack_(", [])
      assert.strictEqual(bad.exit._tag, "Failure")
      assert.match(bad.err, /Invalid regular expression 'slack_\(': missing closing \)/)
    }))

  // The one test with the real offline model: small (four tools), offline, a second or two.
  it.effect(
    "semantic and hybrid run on the offline model, caching vectors in the given directory",
    () =>
      Effect.gen(function*() {
        const env = { TOOL_SEARCH_CACHE_DIR: join(dir, "cache") }
        const semantic = yield* search("semantic", "air pollution", ["--json"], env)
        assert.strictEqual(JSON.parse(semantic.out).results[0].id, "t3")
        const hybrid = yield* search("hybrid", "deliver a message on slack", ["--json"], env)
        assert.strictEqual(JSON.parse(hybrid.out).results[0].id, "t1")
        assert.isAbove(readFileSync(join(dir, "cache", "use-lite-512_energetic-ai-0.2.0.vectors")).length, 4 * 512 * 4)
      }),
    { timeout: 60_000 }
  )
})
