// `tool-search serve` in code mode (TOOL_SEARCH_DELIVERY=code) as an MCP client starts it: the built
// binary over stdio, driven by the official SDK client, in front of the real server-everything.
// The session lists ToolSearch and execute_code; a program calls get-sum through the gateway; a
// program that never ends is stopped at its time limit while the gateway answers other requests
// (ordered by the gateway's own log line, never by time); nothing of Node exists inside.
import { assert, describe, it } from "@effect/vitest"
import { connect, node, serverEntry, text, upstream } from "./gateway.js"

const everything = upstream("everything", [node, serverEntry("@modelcontextprotocol/server-everything"), "stdio"])

/** What a program run answered: `{ result, logs }`, or `{ error, logs }` with `isError`. */
const ran = (result: unknown) => ({
  isError: (result as { isError?: boolean }).isError === true,
  value: JSON.parse(text(result)) as Record<string, unknown>
})

describe("tool-search serve, code mode", () => {
  it(
    "lists ToolSearch and execute_code; a program sums twice with get-sum; while (true) ends at the limit while the gateway answers; no Node inside",
    { timeout: 60_000 },
    async () => {
      const gateway = await connect(["--upstream", everything], {
        TOOL_SEARCH_DELIVERY: "code",
        TOOL_SEARCH_CODE_TIMEOUT: "10 seconds",
        TOOL_SEARCH_CODE_WORKERS: "2"
      })
      try {
        assert.deepStrictEqual(await gateway.names(), ["ToolSearch", "execute_code"])
        await gateway.ready("everything")
        const found = text(await gateway.call("ToolSearch", { query: "select:get-sum" }))
        assert.include(found, "interface Tools {")
        assert.include(found, `"get-sum"(args: {`)
        // the list does not change in code mode: programs call what searches load
        assert.deepStrictEqual(await gateway.names(), ["ToolSearch", "execute_code"])

        const sums = ran(
          await gateway.call("execute_code", {
            code: `const one = await tools["get-sum"]({ a: 2, b: 3 })
                   const two = await tools["get-sum"]({ a: 40, b: 2 })
                   return [one, two]`
          })
        )
        assert.isFalse(sums.isError, JSON.stringify(sums.value))
        const [one, two] = sums.value["result"] as ReadonlyArray<string>
        assert.match(one ?? "", /\b5\b/)
        assert.match(two ?? "", /\b42\b/)

        const sandboxed = ran(
          await gateway.call("execute_code", {
            code: "return [typeof process, typeof require, typeof fetch]"
          })
        )
        assert.deepStrictEqual(sandboxed.value["result"], ["undefined", "undefined", "undefined"])

        // a program that calls get-sum, then spins: the gateway logs the call before the loop starts
        let settled = false
        const spinning = gateway.call("execute_code", {
          code: `await tools["get-sum"]({ a: 1, b: 1 })
                 while (true) {}`
        }).finally(() => {
          settled = true
        })
        // (its third get-sum: the two before were the first program's)
        await gateway.logged(/(?:tool=get-sum via=execute_code outcome=ok[\s\S]*?){3}/)
        // meanwhile the gateway answers: a list, a search and another program
        assert.deepStrictEqual(await gateway.names(), ["ToolSearch", "execute_code"])
        const other = ran(
          await gateway.call("execute_code", { code: `return await tools["get-sum"]({ a: 20, b: 22 })` })
        )
        assert.match(String(other.value["result"]), /\b42\b/)
        assert.isFalse(settled, "answered while the looping program still ran")

        const stopped = ran(await spinning)
        assert.isTrue(stopped.isError)
        assert.match(String(stopped.value["error"]), /ran longer than 10s and was stopped/)
        // and it still answers afterwards
        const after = ran(await gateway.call("execute_code", { code: "return 1 + 1" }))
        assert.strictEqual(after.value["result"], 2)
      } finally {
        await gateway.client.close()
      }
    }
  )
})
