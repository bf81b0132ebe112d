// Every `npx tool-search` line of README.md runs as written, from the repository root, on the
// samples in examples/: the lines are read from README.md, so the README cannot drift from what
// runs. Each line runs through the built binary (`npx tool-search` is that binary: the first test
// checks that npx resolves it in a clone). What a line cannot do here is checked as far as it
// goes, and each such check says so:
// - `chat` with a real model key: the agent is built (model settings, catalog) and the chat ends
//   at the end of its empty input, before any message reaches the model;
// - the HTTP gateway (a fixed port, a database directory): its command line and config are checked
//   with `--check`, which starts nothing;
// - the stdio gateways run for real: an MCP client initializes, lists the tools, waits for the
//   servers (started with `npx -y`, found in the clone's node_modules) and searches.
import { assert, describe, it } from "@effect/vitest"
import { CommandLine } from "@tool-search/mcp"
import { Result } from "effect"
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import * as Services from "../src/demo/Services.js"
import { runBinary } from "./binary.js"
import { connect, text } from "./gateway.js"

const root = new URL("../../../", import.meta.url).pathname
const readme = readFileSync(join(root, "README.md"), "utf8")

/** One `npx tool-search` command of the README: its environment assignments and its arguments. */
interface Line {
  readonly line: string
  readonly env: Readonly<Record<string, string>>
  readonly args: ReadonlyArray<string>
}

/** The `npx tool-search` commands of the README's `sh` blocks (comments cut, `a && b` split). */
const readmeCommands = (markdown: string): ReadonlyArray<Line> =>
  [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((block) => (block[1] ?? "").split("\n"))
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .flatMap((line) => line.split(" && "))
    .flatMap((line): ReadonlyArray<Line> => {
      const words = Result.getOrThrow(CommandLine.split(line))
      const assignments = words.findIndex((w) => !/^[A-Z_][A-Z0-9_]*=/.test(w))
      const [npx, command, ...args] = words.slice(assignments)
      if (npx !== "npx" || command !== "tool-search") return []
      const env = Object.fromEntries(
        words.slice(0, assignments).map((w) => [w.split("=")[0], w.slice(w.indexOf("=") + 1)])
      )
      return [{ line, env, args }]
    })

const lines = readmeCommands(readme)
const home = process.env["HOME"] ?? root

/** Runs a README line through the built binary from the repository root, with only its environment. */
const run = (line: Line, extra: ReadonlyArray<string> = []) =>
  runBinary([...line.args, ...extra], { cwd: root, env: { HOME: home, ...line.env } })

const ok = (result: { readonly status: number | null; readonly stderr: string }, line: Line) =>
  assert.strictEqual(result.status, 0, `${line.line}\n${result.stderr}`)

/** What each command's line must show; a line of a command without a check fails the test. */
const checks: Readonly<Record<string, (line: Line) => Promise<void>>> = {
  "--help": async (line) => {
    const result = await run(line)
    ok(result, line)
    for (const command of ["search", "toc", "serve", "demo", "chat", "bench"]) {
      assert.match(result.stdout, new RegExp(`^\\s+${command}\\s`, "m"))
    }
  },
  search: async (line) => {
    const result = await run(line)
    ok(result, line)
    if (line.args.includes("--json")) {
      assert.isNotEmpty(JSON.parse(result.stdout).results, line.line)
    } else {
      assert.match(result.stdout, /^ 1\. \w+ /, line.line)
    }
  },
  toc: async (line) => {
    const result = await run(line)
    ok(result, line)
    assert.match(result.stdout, /^## Tools to load/, line.line)
  },
  serve: async (line) => {
    if (line.args.includes("--http")) {
      // a fixed port and a database directory: the command line and the config are checked only
      const result = await run(line, ["--check"])
      ok(result, line)
      assert.match(result.stdout, /the configuration is valid/)
      return
    }
    // over stdio, as an MCP client starts it: initialize, tools/list, the servers, a search
    const gateway = await connect(line.args.slice(1), { HOME: home, ...line.env }, { cwd: root })
    try {
      assert.deepStrictEqual(await gateway.names(), ["ToolSearch", "call_tool"])
      const servers = line.args.includes("--config")
        ? Object.keys(
          JSON.parse(readFileSync(join(root, line.args[line.args.indexOf("--config") + 1] ?? ""), "utf8"))
            .mcpServers
        )
        : line.args.flatMap((a, i) => line.args[i - 1] === "--upstream" ? [a.split("=")[0] ?? ""] : [])
      await gateway.ready(...servers)
      const found = await gateway.call("ToolSearch", { query: "select:read_graph" })
      assert.match(text(found), /"name":"read_graph"/, line.line)
    } finally {
      await gateway.client.close()
    }
  },
  chat: async (line) => {
    // a real model key: the agent is built, and the chat ends with its empty input, before any
    // message is sent to the model
    const result = await run(line)
    ok(result, line)
    assert.match(result.stdout, /^tool-search chat — openai:gpt-4\.1-mini .* · \d+ tools /)
  },
  bench: async (line) => {
    const result = await run(line)
    ok(result, line)
    assert.match(result.stdout, /^quality {4}nDCG@10 \d\.\d{4}/m)
  },
  "bench-disclosure": async (line) => {
    const result = await run(line)
    ok(result, line)
    assert.match(result.stdout, /^ {2}list .* 5\/5$/m)
  }
}

/** Runs a line's check (the first test fails a line without one). */
const expectLine = (line: Line): Promise<void> => checks[line.args[0] ?? ""]?.(line) ?? Promise.resolve()

describe("README.md: every npx tool-search line runs as written", () => {
  it("the README has them, and each has a check", () => {
    assert.isAtLeast(lines.length, 8)
    for (const line of lines) assert.property(checks, line.args[0] ?? "", `no check for: ${line.line}`)
  })

  it("npx tool-search is the built binary in a clone", () => {
    const result = spawnSync("npx", ["--no", "--", "tool-search", "--version"], {
      cwd: root,
      encoding: "utf8",
      timeout: 120_000
    })
    const version = JSON.parse(readFileSync(join(root, "packages/cli/package.json"), "utf8")).version
    assert.strictEqual(result.stdout.trim(), `tool-search v${version}`, result.stderr)
  }, 120_000)

  it("npm start's line states the demo's real tool count", () => {
    assert.match(readme, new RegExp(`npm start .*an agent with ${Services.tools.length} tools`))
  })

  // one after the other: the gateways start servers, and the machine is shared
  describe("each line", () => {
    for (const line of lines) {
      it(`${line.line}`, () => expectLine(line), 180_000)
    }
  })
})
