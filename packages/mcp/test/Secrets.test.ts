// What the gateway keeps to itself: the credentials of URLs in log lines, and its own variables.
import { assert, describe, it } from "@effect/vitest"
import { Secrets } from "@tool-search/mcp"
import * as fc from "fast-check"

// what user information may hold unencoded (RFC 3986), and a query value (no separator)
const word = fc.stringMatching(/^[A-Za-z0-9._~%!$&'()*+,;=-]{6,30}$/).filter((w) => !w.includes("***"))
const value = fc.stringMatching(/^[A-Za-z0-9._~%!$'()*+,:@/-]{6,30}$/).filter((v) => !/[&#=\s"]/.test(v))

describe("Secrets.redact", () => {
  it("no password, token or credential-named parameter of a URL survives, wherever the URL stands", () =>
    fc.assert(
      fc.property(
        word,
        word,
        value,
        fc.constantFrom("postgres", "https", "http", "redis"),
        (user, secret, q, scheme) => {
          fc.pre(!user.includes(secret) && !secret.includes("@"))
          const line =
            `level=INFO message="x" otlp=${scheme}://${user}:${secret}@host:1/p?api_key=${q}&sslmode=off done`
          const redacted = Secrets.redact(line)
          assert.notInclude(redacted, `:${secret}@`)
          assert.notInclude(redacted, `api_key=${q}`)
          assert.include(redacted, `${scheme}://${user}:***@host:1/p?api_key=***&sslmode=off done`)
        }
      )
    ))

  it("a token as the whole user information is hidden; URLs without credentials are left alone", () => {
    assert.strictEqual(Secrets.redact("see https://ghp_abc123@github.com/x"), "see https://***@github.com/x")
    assert.strictEqual(
      Secrets.redact("ready (https://mcp.example.com/mcp?x=1)"),
      "ready (https://mcp.example.com/mcp?x=1)"
    )
    assert.strictEqual(Secrets.redact("mail me@example.com"), "mail me@example.com")
  })
})

describe("Secrets: environments", () => {
  it("the base environment holds only the variables a process needs; the inherited one none of tool-search's own", () => {
    const env = {
      PATH: "/bin",
      HOME: "/home/u",
      TOOL_SEARCH_DATABASE: "postgres://u:pw@db/x",
      TOOL_SEARCH_AUTH_TOKEN: "t",
      OPENAI_API_KEY: "sk",
      MY_TOKEN: "mine",
      GITHUB_TOKEN: "gh"
    }
    assert.deepStrictEqual(Secrets.baseEnvironment(env), { PATH: "/bin", HOME: "/home/u" })
    assert.deepStrictEqual(Secrets.inheritedEnvironment(["MY_TOKEN"], env), {
      PATH: "/bin",
      HOME: "/home/u",
      GITHUB_TOKEN: "gh"
    })
  })
})
