import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { ResourceConfig, ResourceDisclosure, Setting } from "../src/index.js"

/** The options `layerConfig` provides under `env`. */
const load = (env: Record<string, string>) =>
  ResourceDisclosure.ResourceDisclosure.pipe(
    Effect.provide(ResourceConfig.layerConfig),
    Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))
  )

describe("ResourceConfig", () => {
  it.effect("no variable set gives the defaults", () =>
    Effect.map(
      load({}),
      (options) => assert.deepStrictEqual(options, ResourceDisclosure.ResourceDisclosure.defaultValue())
    ))

  it.effect("every variable is read", () =>
    Effect.map(
      load({
        TOOL_SEARCH_RESOURCE_MAX_RESULTS: "3",
        TOOL_SEARCH_RESOURCE_MAX_RESULTS_LIMIT: "9",
        TOOL_SEARCH_RESOURCE_SNIPPET_LENGTH: "120",
        TOOL_SEARCH_RESOURCE_EXCERPT_LENGTH: "250",
        TOOL_SEARCH_RESOURCE_READ_LENGTH: "1000",
        TOOL_SEARCH_RESOURCE_MAX_READ_LENGTH: "5000",
        TOOL_SEARCH_RESOURCE_READ_TIMEOUT: "5"
      }),
      (options) =>
        assert.deepStrictEqual(options, {
          defaultMaxResults: 3,
          maxResultsLimit: 9,
          snippetLength: 120,
          excerptLength: 250,
          defaultReadLength: 1000,
          maxReadLength: 5000,
          readTimeout: "5 seconds"
        })
    ))

  it.effect("a default above its limit, or a bad value, names the variables", () =>
    Effect.gen(function*() {
      const explain = (env: Record<string, string>) => Effect.map(Effect.flip(load(env)), Setting.explain)
      assert.include(
        yield* explain({ TOOL_SEARCH_RESOURCE_READ_LENGTH: "9000", TOOL_SEARCH_RESOURCE_MAX_READ_LENGTH: "100" }),
        "TOOL_SEARCH_RESOURCE_READ_LENGTH: 9000 exceeds TOOL_SEARCH_RESOURCE_MAX_READ_LENGTH (100)"
      )
      assert.include(
        yield* explain({ TOOL_SEARCH_RESOURCE_SNIPPET_LENGTH: "5" }),
        "TOOL_SEARCH_RESOURCE_SNIPPET_LENGTH"
      )
    }))

  it.effect("a lower limit alone lowers the defaults with it; the layer provides ResourceDisclosure", () =>
    Effect.gen(function*() {
      const options = yield* load({
        TOOL_SEARCH_RESOURCE_MAX_RESULTS_LIMIT: "2",
        TOOL_SEARCH_RESOURCE_MAX_READ_LENGTH: "10"
      })
      assert.deepStrictEqual([options.defaultMaxResults, options.defaultReadLength], [2, 10])
      const provided = yield* ResourceDisclosure.ResourceDisclosure.pipe(
        Effect.provide(ResourceConfig.layerConfig.pipe(
          Layer.provide(
            Layer.succeed(
              ConfigProvider.ConfigProvider,
              ConfigProvider.fromEnv({ env: { TOOL_SEARCH_RESOURCE_SNIPPET_LENGTH: "150" } })
            )
          )
        ))
      )
      assert.strictEqual(provided.snippetLength, 150)
    }))
})
