import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { TestClock, TestConsole } from "effect/testing"
import * as Progress from "../src/Progress.js"

describe("Progress.during", () => {
  it.effect("work that ends within a second prints nothing", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(Progress.during("loading x", () => Effect.sleep("900 millis")))
      yield* TestClock.adjust("900 millis")
      yield* Fiber.join(fiber)
      yield* TestClock.adjust("5 seconds")
      assert.deepStrictEqual(yield* TestConsole.errorLines, [])
    }))

  it.effect("longer work prints its label after a second, then once a second with how far it got", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(
        Progress.during("loading x", (progress) =>
          Effect.gen(function*() {
            yield* Effect.sleep("1500 millis")
            progress.update(40, 100)
            yield* Effect.sleep("1 second")
          }))
      )
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(yield* TestConsole.errorLines, ["tool-search: loading x…"])
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(yield* TestConsole.errorLines, [
        "tool-search: loading x…",
        "tool-search: loading x 40/100…"
      ])
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      yield* TestClock.adjust("5 seconds")
      assert.lengthOf(yield* TestConsole.errorLines, 2, "nothing after the work ended")
    }))
})
