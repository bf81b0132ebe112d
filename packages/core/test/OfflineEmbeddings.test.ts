import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as OfflineModel from "../src/internal/offlineModel.js"

const description = (error: { readonly reason: unknown }): string => {
  const reason = error.reason
  return typeof reason === "object" && reason !== null && "description" in reason ? String(reason.description) : ""
}

describe("OfflineEmbeddings (the optional model package)", () => {
  it.effect("a missing package is an AiError that says which package to install", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(OfflineModel.load("@tool-search/not-installed", OfflineModel.modelName))
      assert.strictEqual(error._tag, "AiError")
      assert.include(description(error), "npm install @tool-search/not-installed")
    }))

  it.effect("the package is found at run time, and a model of another name is refused", () =>
    Effect.gen(function*() {
      const model = yield* OfflineModel.load(OfflineModel.packageName, OfflineModel.modelName)
      assert.strictEqual(model.modelName, OfflineModel.modelName)
      const error = yield* Effect.flip(OfflineModel.load(OfflineModel.packageName, "another-model"))
      assert.include(description(error), "install matching versions")
    }))
})
