import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { writeJsonl } from "./jsonl.js"
import { runCli } from "./runCli.js"

const dir = mkdtempSync(join(tmpdir(), "tool-search-toc-"))
const catalog = writeJsonl(join(dir, "harness.jsonl"), [
  {
    name: "rag_search",
    description: "Search the attached documents. Returns passages.",
    category: "retrieval",
    source: "docs"
  },
  { name: "news_search", description: "Search recent news articles.", category: "news", source: "news-mcp" },
  { name: "news_headlines", description: "List today's headlines.", category: "news", source: "news-mcp" },
  { name: "db_load_rows", description: "Load rows into a table.", category: "data", source: "nodes" },
  { name: "platform_status", description: "Show the platform status.", loading: "eager", source: "nodes" },
  ...Array.from({ length: 66 }, (_, i) => ({
    name: `mcp_tool_${i}`,
    description: `Platform operation ${i}.`,
    category: ["web", "files", "crm"][i % 3],
    source: "mcp-session"
  }))
])

// the catalog is small: below the default deferral threshold every tool would be sent and no table shown
const run = (argv: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  runCli(argv, { TOOL_SEARCH_DEFER: "always", ...env })

interface Json {
  readonly toc: string
  readonly visible: ReadonlyArray<string>
  readonly searchable: ReadonlyArray<string>
}

const json = (argv: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.map(run(["toc", "--catalog", catalog, "--json", ...argv], env), ({ exit, out }) => {
    assert.strictEqual(exit._tag, "Success")
    return JSON.parse(out) as Json
  })

describe("tool-search toc", () => {
  it.effect("--json prints exactly toc, visible and searchable", () =>
    Effect.gen(function*() {
      const out = yield* json(["--connected", "news-mcp,docs"])
      assert.deepStrictEqual(Object.keys(out), ["toc", "visible", "searchable"])
      assert.deepStrictEqual(out.visible, ["ToolSearch"])
      assert.deepStrictEqual(out.searchable, ["rag_search", "news_search", "news_headlines"])
      assert.include(out.toc, "[news]\n- news_search (load first) — Search recent news articles.")
      assert.notInclude(out.toc, "hidden")
    }))

  it.effect("strict by default: with nothing connected or selected nothing exists", () =>
    Effect.gen(function*() {
      const out = yield* json([])
      assert.deepStrictEqual(out, { toc: "", visible: ["ToolSearch"], searchable: [] })
    }))

  it.effect("when strict mode hides every tool, the output says so in place of the table, and what to pass", () =>
    Effect.gen(function*() {
      const hidden = yield* run(["toc", "--catalog", catalog])
      assert.strictEqual(hidden.exit._tag, "Success")
      assert.match(
        hidden.out,
        /^\(no table of contents: strict mode hides all 71 tools of the catalog: .*--connected; this catalog's sources: docs, news-mcp, nodes, mcp-session\).*--allow.*--select.*--no-strict\)\n/
      )
      assert.strictEqual(hidden.err, "")
      // with --json stdout is the object, so the note goes to stderr
      const json = yield* run(["toc", "--catalog", catalog, "--json"])
      assert.deepStrictEqual(JSON.parse(json.out).searchable, [])
      assert.match(json.err, /^tool-search: strict mode hides all 71 tools of the catalog: .*--no-strict/)
      const shown = yield* run(["toc", "--catalog", catalog, "--connected", "news-mcp"])
      assert.strictEqual(shown.err, "")
    }))

  it.effect("a plain catalog, whose tools name no source: why there is no table, and --no-strict or --select", () =>
    Effect.gen(function*() {
      const plain = writeJsonl(join(dir, "plain.jsonl"), [
        { name: "send_mail", description: "Send an e-mail." },
        { name: "read_file" }
      ])
      const hidden = yield* run(["toc", "--catalog", plain])
      assert.strictEqual(
        hidden.out.split("\n")[0],
        "(no table of contents: strict mode hides all 2 tools of the catalog, and they name no source (no \"source\" " +
          "field) that --connected or --allow could name: pass --no-strict to make the whole catalog searchable, or " +
          "--select <name,...> for single tools)"
      )
      // what it says to pass works
      const open = yield* run(["toc", "--catalog", plain, "--no-strict"])
      assert.match(open.out, /^## Tools to load/)
      const one = yield* run(["toc", "--catalog", plain, "--select", "send_mail", "--json"])
      assert.deepStrictEqual(JSON.parse(one.out).searchable, ["send_mail"])
    }))

  it.effect("--allow turns exploration on for the named platform sources, folded into counts", () =>
    Effect.gen(function*() {
      const out = yield* json(["--connected", "news-mcp", "--allow", "mcp-session"])
      assert.strictEqual(out.searchable.length, 2 + 66)
      assert.notInclude(out.searchable, "db_load_rows")
      assert.include(out.toc, "[web] (22 more tools, hidden)")
      assert.deepStrictEqual(out.visible, ["search_tools", "ToolSearch"])
    }))

  it.effect("an empty --allow keeps the connected tools", () =>
    Effect.gen(function*() {
      const out = yield* json(["--connected", "news-mcp", "--allow", ""])
      assert.deepStrictEqual(out.searchable, ["news_search", "news_headlines"])
    }))

  it.effect("--select names single tools, eager ones included", () =>
    Effect.gen(function*() {
      const out = yield* json(["--select", "db_load_rows,platform_status"])
      assert.deepStrictEqual(out.visible, ["platform_status", "ToolSearch"])
      assert.deepStrictEqual(out.searchable, ["db_load_rows"])
      assert.include(out.toc, "[data]\n- db_load_rows (load first)")
    }))

  it.effect("--no-strict makes the whole catalog searchable; the table still names only the selection", () =>
    Effect.gen(function*() {
      const out = yield* json(["--no-strict", "--connected", "news-mcp"])
      assert.strictEqual(out.searchable.length, 70)
      assert.include(out.visible, "platform_status")
      assert.include(out.toc, "- news_search (load first)")
      assert.include(out.toc, "[data] (1 more tool, hidden)")
      const strict = yield* json(["--strict"], { TOOL_SEARCH_STRICT: "false" })
      assert.deepStrictEqual(strict.searchable, [])
    }))

  it.effect("the environment supplies what the flags do not", () =>
    Effect.gen(function*() {
      const out = yield* json([], {
        TOOL_SEARCH_CONNECTED: "news-mcp",
        TOOL_SEARCH_TOC_DETAIL: "none",
        TOOL_SEARCH_SEARCH_TOOLS: "true"
      })
      assert.include(out.toc, "[news]\n- news_search (load first)\n- news_headlines (load first)")
      assert.deepStrictEqual(out.visible, ["search_tools", "ToolSearch"])
      const flagWins = yield* json(["--connected", "docs"], { TOOL_SEARCH_CONNECTED: "news-mcp" })
      assert.deepStrictEqual(flagWins.searchable, ["rag_search"])
    }))

  it.effect("the text form prints the prompt section, then the tool lists", () =>
    Effect.gen(function*() {
      const { out } = yield* run(["toc", "--catalog", catalog, "--connected", "news-mcp"])
      assert.match(out, /^## Tools to load\n/)
      assert.include(out, "\ntools at the first request (1): ToolSearch\nsearchable (2): news_search, news_headlines")
    }))

  it.effect("a bad list or variable is a one-line error naming it, with exit code 2", () =>
    Effect.gen(function*() {
      const badFlag = yield* run(["toc", "--catalog", catalog, "--allow", "*,nodes"])
      assert.strictEqual(badFlag.exit._tag, "Failure")
      assert.strictEqual(
        badFlag.err,
        "tool-search: invalid configuration: --allow=\"*,nodes\": '*' stands alone: either '*' or a list"
      )
      const badEnv = yield* run(["toc", "--catalog", catalog], { TOOL_SEARCH_STRICT: "perhaps" })
      assert.strictEqual(
        badEnv.err,
        "tool-search: invalid configuration: TOOL_SEARCH_STRICT: Expected true or false (yes/no, on/off, 1/0 also work)"
      )
    }))
})
