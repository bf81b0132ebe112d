import { assert, describe, it } from "@effect/vitest"
import { Setting } from "@tool-search/core"
import { GatewayConfig } from "@tool-search/mcp"
import { ConfigProvider, Effect } from "effect"

const tables = [GatewayConfig.settings]
const read = (sources: Parameters<typeof Setting.read>[2]) =>
  Setting.read(GatewayConfig.config, tables, sources).pipe(
    Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env: {} }))
  )

describe("GatewayConfig", () => {
  it.effect("nothing set gives the defaults: stdio, loopback, bounded", () =>
    Effect.gen(function*() {
      const settings = yield* read({})
      assert.deepStrictEqual(settings, GatewayConfig.defaults)
      assert.strictEqual(settings.http, "off")
      assert.strictEqual(settings.host, "127.0.0.1")
    }))

  it.effect("flags beat the file, the file beats the environment; JSON numbers and lists read like text", () =>
    Effect.gen(function*() {
      const settings = yield* read({
        flags: { maxSessions: "7" },
        file: { maxSessions: 9, http: 8080, allowedOrigins: ["https://a.example", "https://b.example"] },
        environment: { TOOL_SEARCH_HTTP: "9090", TOOL_SEARCH_MAX_LOADED_TOOLS: "3" }
      })
      assert.strictEqual(settings.maxSessions, 7)
      assert.strictEqual(settings.http, 8080)
      assert.deepStrictEqual(settings.allowedOrigins, ["https://a.example", "https://b.example"])
      assert.strictEqual(settings.maxLoadedTools, 3)
    }))

  it.effect("a bad value names its source's spelling and what was expected", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Record<string, unknown>, RegExp]> = [
        [{ http: "-1" }, /--http="-1": Expected a port from 0 to 65535, or off/],
        [{ http: "70000" }, /--http="70000": Expected a port from 0 to 65535, or off/],
        [{ callTimeout: "0" }, /--call-timeout="0": Expected a value greater than or equal to 1/],
        [{ callTimeout: "-5" }, /--call-timeout="-5": Expected a value greater than or equal to 1/],
        [{ connectTimeout: "0" }, /--connect-timeout="0"/],
        [{ maxLoadedTools: "0" }, /--max-loaded-tools="0": Expected a value greater than or equal to 1/]
      ]
      for (const [flags, expected] of cases) {
        const error = yield* Effect.flip(Setting.check(tables, flags, (s) => `--${s.flag}`))
        assert.match(Setting.explain(error), expected)
      }
    }))
})
