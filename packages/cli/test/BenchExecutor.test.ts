import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { measure } from "../src/commands/BenchExecutor.js"

// Only the accounting of the figures is asserted: their sizes depend on the machine.
describe("bench-executor", () => {
  it.effect("splits each turn's three iterations between the model's calls and the executor's own work", () =>
    Effect.gen(function*() {
      const r = yield* measure(20, 4, 2, "approximate")
      assert.strictEqual(r.iterations, 12) // each turn searches, calls the found tool, answers
      // wall-clock time always advances; CPU time may advance in ticks, so only its sums are checked
      assert.isTrue(r.wall.usPerIteration > 0 && r.wall.modelUsPerIteration > 0)
      for (const figures of [r, r.wall]) {
        assert.isTrue(Number.isFinite(figures.usPerIteration) && Number.isFinite(figures.modelUsPerIteration))
        // the executor's share is the rest: the three figures add up (each rounded to 0.1 µs)
        assert.closeTo(figures.modelUsPerIteration + figures.executorUsPerIteration, figures.usPerIteration, 0.2)
      }
      // in situ too (the clock readings around each call are taken out of both sides)
      assert.closeTo(r.inSitu.modelUsPerIteration + r.inSitu.executorUsPerIteration, r.usPerIteration, 0.2)
      assert.isTrue(Number.isFinite(r.modelSameRequestUs) && r.modelSameRequestUs >= 0)
    }))
})
