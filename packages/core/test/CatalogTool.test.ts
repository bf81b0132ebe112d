import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Schema } from "effect"
import { Tool, Toolkit } from "effect/ai"
import { CatalogTool } from "../src/index.js"

describe("CatalogTool: the handler boundary", () => {
  const call = (tool: CatalogTool.CatalogTool) => Effect.exit(tool.handler!({}, { toolCallId: "1" }))

  it.effect("a handler that throws while building its effect is a defect of the call, not a throw", () =>
    Effect.gen(function*() {
      const tool = CatalogTool.make({
        name: "throws",
        handler: () => {
          throw new Error("synchronous boom")
        }
      })
      const exit = yield* call(tool)
      assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
      assert.include(String(Cause.squash((exit as Exit.Failure<unknown, unknown>).cause)), "synchronous boom")
    }))

  it.effect("a handler that returns something else than an Effect is a defect naming the tool", () =>
    Effect.gen(function*() {
      const tool = CatalogTool.make({
        name: "plain",
        handler: (() => ({ isFailure: false, result: 1 })) as unknown as CatalogTool.Handler
      })
      const exit = yield* call(tool)
      assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
      assert.include(String(Cause.squash((exit as Exit.Failure<unknown, unknown>).cause)), "'plain' returned object")
    }))

  it.effect("a tool rebuilt from another keeps one guard, and a good handler runs unchanged", () =>
    Effect.gen(function*() {
      const tool = CatalogTool.make({ name: "ok", handler: () => Effect.succeed({ isFailure: false, result: 1 }) })
      const again = CatalogTool.make(tool)
      assert.strictEqual(again.handler, tool.handler)
      assert.deepStrictEqual(yield* tool.handler!({}, { toolCallId: "1" }), { isFailure: false, result: 1 })
    }))
})

describe("CatalogTool.Deferred", () => {
  const Read = Tool.make("read_file", { parameters: Schema.Struct({ path: Schema.String }) })
  const Send = Tool.make("slack_send", { parameters: Schema.Struct({ text: Schema.String }) })
    .annotate(CatalogTool.Deferred, true)
  const Kept = Tool.make("grep", {}).annotate(CatalogTool.Deferred, false)
  const Tools = Toolkit.make(Read, Send, Kept)
  const Handlers = Tools.toLayer({
    read_file: () => Effect.succeed(null),
    slack_send: () => Effect.succeed(null),
    grep: () => Effect.succeed(null)
  })

  it.effect("the annotation decides; the loading option applies to tools without one (default eager)", () =>
    Effect.gen(function*() {
      const toolkit = yield* Tools
      const loading = (options: CatalogTool.FromToolkitOptions) =>
        Object.fromEntries(CatalogTool.fromToolkit(toolkit, options).map((t) => [t.name, t.loading]))
      // as Anthropic's defer_loading and TanStack's lazy flag: off unless the annotation says so
      assert.deepStrictEqual(loading({}), { read_file: "eager", slack_send: "deferred", grep: "eager" })
      assert.deepStrictEqual(loading({ loading: "deferred" }), {
        read_file: "deferred",
        slack_send: "deferred",
        grep: "eager"
      })
    }).pipe(Effect.provide(Handlers)))
})
