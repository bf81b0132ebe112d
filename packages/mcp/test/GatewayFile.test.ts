import { assert, describe, it } from "@effect/vitest"
import { GatewayFile } from "@tool-search/mcp"
import { Result } from "effect"

const parse = (value: unknown) => GatewayFile.parse("gateway.json", JSON.stringify(value))
const error = (value: unknown) => {
  const result = parse(value)
  return Result.isFailure(result) ? result.failure.message : "(no error)"
}

describe("GatewayFile", () => {
  it("reads Claude Desktop's mcpServers as is, with per-server options and global settings", () => {
    const result = parse({
      mcpServers: {
        memory: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"], env: { A: "1" } },
        github: {
          command: "npx",
          args: ["-y", "gh"],
          deny: ["delete_*"],
          allow: ["*"],
          prefix: "gh_",
          kind: "platform"
        },
        remote: { type: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer x" } },
        off: { command: "nothing", disabled: true }
      },
      strict: true,
      maxResults: 3
    })
    assert.isTrue(Result.isSuccess(result))
    if (Result.isFailure(result)) return
    const [memory, github, remote] = result.success.servers
    assert.strictEqual(result.success.servers.length, 3)
    assert.deepStrictEqual(memory, {
      name: "memory",
      transport: { _tag: "Stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"], env: { A: "1" } }
    })
    assert.deepStrictEqual(github?.filter, { allow: ["*"], deny: ["delete_*"] })
    assert.strictEqual(github?.prefix, "gh_")
    assert.strictEqual(github?.kind, "platform")
    assert.deepStrictEqual(remote?.transport, {
      _tag: "Http",
      url: "https://mcp.example.com/mcp",
      headers: { Authorization: "Bearer x" }
    })
    assert.deepStrictEqual(result.success.settings, { strict: true, maxResults: 3 })
  })

  it("every mistake is one line naming the file, the server and the key", () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [
        { mcpServers: { memory: { comand: "npx" } } },
        "gateway.json: mcpServers.memory: unknown key \"comand\" (did you mean \"command\"?)"
      ],
      [
        { mcpServers: { memory: { command: "npx", args: ["a", 2] } } },
        "gateway.json: mcpServers.memory.args[1]: Expected string, got 2"
      ],
      [
        { mcpServers: { memory: { command: "npx", loading: "lazy" } } },
        "gateway.json: mcpServers.memory.loading: Expected \"deferred\" | \"eager\", got \"lazy\""
      ],
      [
        { mcpServers: { memory: { args: [] } } },
        "gateway.json: mcpServers.memory: give either \"command\" (a server started as a command) or \"url\""
      ],
      [
        { mcpServers: { r: { url: "https://x", command: "y" } } },
        "gateway.json: mcpServers.r: give either \"command\" (a server started as a command) or \"url\""
      ],
      [
        { mcpServers: { r: { url: "https://x", env: {} } } },
        "gateway.json: mcpServers.r: \"env\" does not go with \"url\""
      ],
      [{ mcpServers: { r: { url: "not a url" } } }, "gateway.json: mcpServers.r.url: not a valid URL: not a url"],
      [
        { mcpServers: { r: { type: "sse", url: "https://x/sse" } } },
        "gateway.json: mcpServers.r: the SSE transport is not supported: use the server's Streamable HTTP URL"
      ],
      [
        { mcpServers: { "bad name": { command: "x" } } },
        "gateway.json: mcpServers.bad name: the server name must match ^[A-Za-z0-9_.-]{1,64}$"
      ],
      [
        { mcpServers: { m: { command: "x", callTimeout: 0 } } },
        "gateway.json: mcpServers.m.callTimeout: Expected a value greater than or equal to 1, got 0"
      ],
      [
        { mcpServers: {}, stirct: true },
        "gateway.json: unknown key \"stirct\": next to \"mcpServers\" go the settings (docs/configuration.md); did you mean \"strict\"?"
      ],
      [
        { mcpServers: {}, minRelativeScore: 0.6 },
        "gateway.json: \"minRelativeScore\" is no longer a setting: use \"minScoreRatio\" (search hits are now left out by the agent's rule, a share of the best hit's strength; docs/configuration.md)"
      ],
      [{ servers: {} }, "gateway.json: \"mcpServers\" must be an object of servers by name"],
      [[], "gateway.json: expected a JSON object with \"mcpServers\""]
    ]
    for (const [value, expected] of cases) assert.strictEqual(error(value), expected)
    const json = GatewayFile.parse("gateway.json", "{ nope")
    assert.match(Result.isFailure(json) ? json.failure.message : "", /^gateway\.json: not valid JSON: /)
  })
})
