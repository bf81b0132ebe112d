// `tool-search serve --config <file>`: the file MCP clients already have (Claude Desktop's
// `mcpServers`), with per-server options and global settings, in one precedence with the flags
// and the environment.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { connect, node, serverEntry, text } from "./gateway.js"
import { runCli } from "./runCli.js"

const dir = mkdtempSync(join(tmpdir(), "tool-search-config-"))
const files = join(dir, "files")
mkdirSync(files)
writeFileSync(join(files, "notes.txt"), "strict mode holds\n")
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Writes a config file and returns its path. */
const configFile = (name: string, value: unknown): string => {
  const path = join(dir, name)
  writeFileSync(path, JSON.stringify(value, null, 2))
  return path
}

/** Claude Desktop's format, with server-everything marked as a platform server (not the user's own). */
const claudeDesktop = configFile("claude_desktop_config.json", {
  mcpServers: {
    everything: { command: node, args: [serverEntry("@modelcontextprotocol/server-everything")], kind: "platform" },
    memory: {
      command: node,
      args: [serverEntry("@modelcontextprotocol/server-memory")],
      env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") }
    },
    filesystem: { command: node, args: [serverEntry("@modelcontextprotocol/server-filesystem"), files] }
  }
})

const found = (result: unknown): ReadonlyArray<string> =>
  (JSON.parse(text(result).split("\n")[0] ?? "{}") as { functions: ReadonlyArray<{ name: string }> }).functions
    .map((f) => f.name)

/**
 * Runs `tool-search serve` in process (`runCli`: the exit code and output the binary would give),
 * with `env` only.
 */
const serve = (args: ReadonlyArray<string>, env: Record<string, string> = {}) => runCli(["serve", ...args], env)

/**
 * The `maxResults` of the policy line a run logs before anything starts: the policy `--check`
 * logs, the one a served run logs (`Serve.serve` logs it before the check's branch).
 */
const policyOf = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.map(serve([...args, "--check"], env), (result) => ({
    status: result.status,
    stderr: result.stderr,
    maxResults: /maxResults=(\d+)\//.exec(result.stderr)?.[1]
  }))

describe("tool-search serve --config", () => {
  it(
    "a Claude Desktop config in front of server-everything, server-memory and server-filesystem, strict mode from the environment honoured",
    { timeout: 60_000 },
    async () => {
      const strict = await connect(["--config", claudeDesktop], { TOOL_SEARCH_STRICT: "true" })
      try {
        await strict.ready("everything", "memory", "filesystem")
        assert.match(strict.stderr(), /message="gateway policy" .*strict=true .*connected=memory,filesystem/)
        // the platform server's tools do not exist for this client: not found, not callable
        assert.deepStrictEqual(found(await strict.call("ToolSearch", { query: "select:echo,get-env,read_graph" })), [
          "read_graph"
        ])
        assert.notInclude(found(await strict.call("ToolSearch", { query: "echo a message back" })), "echo")
        assert.match(
          text(await strict.call("call_tool", { name: "echo", arguments: { message: "x" } })),
          /Unknown tool 'echo'/
        )
        // the user's own servers work
        const read = await strict.call("ToolSearch", { query: "select:read_text_file" })
        assert.deepStrictEqual(found(read), ["read_text_file"])
        assert.strictEqual(
          text(await strict.call("read_text_file", { path: join(files, "notes.txt") })),
          "strict mode holds\n"
        )
      } finally {
        await strict.client.close()
      }

      // the same file with strict mode off from the environment: the platform server is searchable
      const open = await connect(["--config", claudeDesktop], { TOOL_SEARCH_STRICT: "false" })
      try {
        await open.ready("everything")
        assert.match(open.stderr(), /strict=false/)
        assert.deepStrictEqual(found(await open.call("ToolSearch", { query: "select:echo" })), ["echo"])
        assert.strictEqual(text(await open.call("echo", { message: "hi" })), "Echo: hi")
      } finally {
        await open.client.close()
      }

      // strict, with echo selected by name: that one tool of the platform server exists, no other
      const selected = await connect(["--config", claudeDesktop], { TOOL_SEARCH_SELECT: "echo" })
      try {
        await selected.ready("everything")
        assert.deepStrictEqual(found(await selected.call("ToolSearch", { query: "select:echo,get-env" })), ["echo"])
      } finally {
        await selected.client.close()
      }
    }
  )

  it.effect(
    "flags beat the file, the file beats the environment, the environment beats the default",
    () =>
      Effect.gen(function*() {
        const withFile = configFile("gateway.json", {
          mcpServers: { x: { command: node, args: ["-e", "1"] } },
          maxResults: 2
        })
        const withoutKey = configFile("plain.json", { mcpServers: { x: { command: node, args: ["-e", "1"] } } })
        const env = { TOOL_SEARCH_MAX_RESULTS: "4" }
        assert.strictEqual((yield* policyOf(["--config", withFile, "--max-results", "3"], env)).maxResults, "3")
        assert.strictEqual((yield* policyOf(["--config", withFile], env)).maxResults, "2")
        assert.strictEqual((yield* policyOf(["--config", withoutKey], env)).maxResults, "4")
        assert.strictEqual((yield* policyOf(["--config", withoutKey])).maxResults, "5")
      })
  )

  it(
    "TOOL_SEARCH_MIN_SCORE_RATIO from the environment changes what a search loads: the agent's rule and setting",
    { timeout: 60_000 },
    async () => {
      const memoryOnly = configFile("memory.json", {
        mcpServers: {
          memory: {
            command: node,
            args: [serverEntry("@modelcontextprotocol/server-memory")],
            env: { MEMORY_FILE_PATH: join(dir, "memory-ratio.jsonl") }
          }
        }
      })
      const loadedWith = async (env: Record<string, string>) => {
        const gateway = await connect(["--config", memoryOnly], env)
        try {
          await gateway.ready("memory")
          const answer = await gateway.call("ToolSearch", { query: "delete entities from the graph", max_results: 5 })
          return { found: found(answer), answer: text(answer), stderr: gateway.stderr() }
        } finally {
          await gateway.client.close()
        }
      }
      const loose = await loadedWith({ TOOL_SEARCH_MIN_SCORE: "0", TOOL_SEARCH_MIN_SCORE_RATIO: "0" })
      const strict = await loadedWith({ TOOL_SEARCH_MIN_SCORE: "0", TOOL_SEARCH_MIN_SCORE_RATIO: "0.8" })
      assert.match(loose.stderr, /message="gateway policy" .*minScore=0\/0 /)
      assert.match(strict.stderr, /message="gateway policy" .*minScore=0\/0\.8 /)
      assert.strictEqual(loose.found.length, 5)
      assert.strictEqual(strict.found[0], "delete_entities")
      assert.isBelow(strict.found.length, loose.found.length)
      assert.match(strict.answer, /weaker matches were not loaded: /)
    }
  )

  it.effect(
    "--check checks the file, the flags and the environment, logs the policy, and starts nothing",
    () =>
      Effect.gen(function*() {
        // a server that leaves a file behind if it is ever started
        const marker = join(dir, "started")
        const file = configFile("check.json", {
          mcpServers: {
            marker: { command: node, args: ["-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "")`] }
          },
          maxResults: 3
        })
        const database = join(dir, "check-db")
        const checked = yield* serve(["--config", file, "--http", "0", "--database", database, "--check"])
        assert.strictEqual(checked.status, 0, checked.stderr)
        assert.strictEqual(
          checked.stdout,
          "tool-search serve: the configuration is valid (1 server: marker); --check starts nothing\n"
        )
        assert.match(checked.stderr, /message="gateway policy" transport="http 127\.0\.0\.1:0" .*maxResults=3\//)
        assert.isFalse(existsSync(marker), "no server was started")
        assert.isFalse(existsSync(database), "no database was opened")
        // what is wrong is found as it would be without --check
        const bad = yield* serve(["--config", file, "--max-results", "0", "--check"])
        assert.strictEqual(bad.status, 2)
        assert.match(bad.stderr, /invalid value for --max-results: '0'/)
      })
  )

  it.effect("a retired setting is exit code 2 and one line naming the setting that replaced it", () =>
    Effect.gen(function*() {
      const file = configFile("old.json", { mcpServers: { m: { command: "x" } }, minRelativeScore: 0.6 })
      const fromFile = yield* serve(["--config", file])
      assert.strictEqual(fromFile.status, 2, fromFile.stderr)
      assert.match(fromFile.stderr, /old\.json: "minRelativeScore" is no longer a setting: use "minScoreRatio" \(/)
      const current = configFile("current.json", { mcpServers: { m: { command: "x" } } })
      const fromEnv = yield* serve(["--config", current], { TOOL_SEARCH_MIN_RELATIVE_SCORE: "0.6" })
      assert.strictEqual(fromEnv.status, 2, fromEnv.stderr)
      assert.strictEqual(fromEnv.stderr.trim().split("\n").length, 1, fromEnv.stderr)
      assert.match(
        fromEnv.stderr,
        /TOOL_SEARCH_MIN_RELATIVE_SCORE is no longer a setting: use TOOL_SEARCH_MIN_SCORE_RATIO/
      )
    }))

  it.effect("a wrong key or value in the file is exit code 2 and one line naming the file, the server and the key", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [unknown, RegExp]> = [
        [
          { mcpServers: { memory: { comand: "npx" } } },
          /bad\.json: mcpServers\.memory: unknown key "comand" \(did you mean "command"\?\)/
        ],
        [
          { mcpServers: { memory: { command: "npx", deny: "delete" } } },
          /bad\.json: mcpServers\.memory\.deny: Expected array/
        ],
        [
          { mcpServers: { m: { command: "x" } }, maxResults: 0 },
          /bad\.json: maxResults=0: Expected a value greater than or equal to 1/
        ],
        [
          { mcpServers: { m: { command: "x" } }, http: "-1" },
          /bad\.json: http="-1": Expected a port from 0 to 65535, or off/
        ]
      ]
      for (const [value, expected] of cases) {
        const path = configFile("bad.json", value)
        const result = yield* serve(["--config", path])
        assert.strictEqual(result.status, 2, result.stderr)
        assert.strictEqual(result.stderr.trim().split("\n").length, 1, result.stderr)
        assert.match(result.stderr, expected)
      }
    }))

  it.effect(
    "--database in the one precedence: a bad one is exit code 2 naming it; the file's or the environment's is in the policy",
    () =>
      Effect.gen(function*() {
        const server = { mcpServers: { x: { command: node, args: ["-e", "1"] } } }
        const bad = yield* serve(["--config", configFile("plain.json", server), "--database", "ftp://x"])
        assert.strictEqual(bad.status, 2, bad.stderr)
        assert.match(bad.stderr, /invalid value for --database: 'ftp:\/\/x' \(only postgres:\/\/ URLs are supported/)
        const database = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
          Effect.map(policyOf(args, env), ({ stderr }) => /database=("[^"]*"|\S+)/.exec(stderr)?.[1])
        const fromFile = configFile("db.json", { ...server, database: "off" })
        assert.strictEqual(yield* database(["--config", configFile("plain.json", server)]), "off")
        assert.strictEqual(yield* database(["--config", fromFile], { TOOL_SEARCH_DATABASE: "memory" }), "off")
        assert.strictEqual(
          yield* database(["--config", configFile("plain.json", server)], { TOOL_SEARCH_DATABASE: "memory" }),
          "\"in memory (embedded)\""
        )
      })
  )
})
