import { assert, describe, it } from "@effect/vitest"
import { CommandLine, Upstream } from "@tool-search/mcp"
import { Effect, Result, Schema } from "effect"

const words = (input: string) => {
  const r = CommandLine.split(input)
  if (Result.isFailure(r)) throw new Error(r.failure.message)
  return r.success
}
const error = (input: string) => {
  const r = CommandLine.split(input)
  if (Result.isSuccess(r)) throw new Error(`expected an error, got ${JSON.stringify(r.success)}`)
  return r.failure
}

describe("CommandLine.split", () => {
  it("splits like a POSIX shell", () => {
    const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
      ["npx -y @modelcontextprotocol/server-memory", ["npx", "-y", "@modelcontextprotocol/server-memory"]],
      ["  a \t b\n c  ", ["a", "b", "c"]],
      ["node server.js '/my docs'", ["node", "server.js", "/my docs"]],
      [`node "C:\\dir\\file" "say \\"hi\\""`, ["node", "C:\\dir\\file", "say \"hi\""]],
      [`a"b c"'d e'f`, ["ab cd ef"]],
      [`'' "" x`, ["", "", "x"]],
      [`a\\ b c`, ["a b", "c"]],
      [`'it'\\''s'`, ["it's"]],
      [`"a\\$b \\\\ \\x"`, ["a$b \\ \\x"]],
      ["a\\\nb", ["ab"]],
      ["echo $HOME ~ *.ts", ["echo", "$HOME", "~", "*.ts"]],
      ["sh -c 'a | b > c'", ["sh", "-c", "a | b > c"]],
      ["", []],
      ["   ", []]
    ]
    for (const [input, expected] of cases) assert.deepStrictEqual(words(input), expected, input)
  })

  it("rejects what it cannot split faithfully, naming the offset", () => {
    assert.strictEqual(
      error("node 'server.js").message,
      `Invalid command line "node 'server.js" at offset 5: unterminated single quote`
    )
    assert.strictEqual(error(`a "b`).position, 2)
    assert.match(error("x \\").reason, /backslash at the end/)
    assert.match(error("a | b").reason, /shell operator '\|' is not supported/)
    assert.match(error("a && b").reason, /'&'/)
    assert.match(error("a > out").reason, /'>'/)
  })

  it.effect.prop(
    "join then split gives back any list of words",
    [Schema.Array(Schema.String)],
    ([ws]) => Effect.sync(() => assert.deepStrictEqual(words(CommandLine.join(ws)), ws))
  )

  it.effect.prop(
    "double-quoting each word also round-trips",
    [Schema.Array(Schema.String)],
    ([ws]) =>
      Effect.sync(() => {
        const line = ws.map((w) => `"${w.replace(/["\\$`]/g, (c) => `\\${c}`)}"`).join(" ")
        assert.deepStrictEqual(words(line), ws)
      })
  )

  it.effect.prop("never throws: any input is words or a typed error", [Schema.String], ([input]) =>
    Effect.sync(() => {
      const r = CommandLine.split(input)
      if (Result.isFailure(r)) {
        assert.strictEqual(r.failure._tag, "InvalidCommandLine")
        assert.isTrue(r.failure.position >= 0 && r.failure.position < input.length)
      }
    }))
})

describe("Upstream.parse", () => {
  const ok = (spec: string) => {
    const r = Upstream.parse(spec)
    if (Result.isFailure(r)) throw new Error(r.failure.message)
    return r.success
  }
  it("name=command line is a stdio server; name=url an HTTP one", () => {
    assert.deepStrictEqual(ok("memory=npx -y @modelcontextprotocol/server-memory"), {
      name: "memory",
      transport: { _tag: "Stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] }
    })
    assert.deepStrictEqual(ok("fs=node server.js '/tmp/my dir' --x=1"), {
      name: "fs",
      transport: { _tag: "Stdio", command: "node", args: ["server.js", "/tmp/my dir", "--x=1"] }
    })
    assert.deepStrictEqual(ok("remote=https://example.test/mcp?a=b"), {
      name: "remote",
      transport: { _tag: "Http", url: "https://example.test/mcp?a=b" }
    })
  })

  it("bad specs are typed errors that quote the spec", () => {
    const bad = (spec: string) => {
      const r = Upstream.parse(spec)
      if (Result.isSuccess(r)) throw new Error("expected a failure")
      return r.failure.message
    }
    assert.strictEqual(bad("no-equals"), `Invalid upstream "no-equals": expected <name>=<command line> or <name>=<url>`)
    assert.match(bad("bad name=x"), /server name must match/)
    assert.match(bad("x="), /nothing after '='/)
    assert.match(bad("x=node 'a"), /unterminated single quote/)
    assert.match(bad("x=http://"), /not a valid URL/)
  })
})
