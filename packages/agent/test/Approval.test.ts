import { assert, describe, it } from "@effect/vitest"
import { CatalogTool, ToolCatalog } from "@tool-search/core"
import { Effect, Layer, Ref, Schema, Stream } from "effect"
import { Tool, Toolkit } from "effect/ai"
import { Approval, Executor, ScriptedModel, TokenCounter } from "../src/index.js"
import { CatalogLive } from "./fixtures.js"

// An effect/ai tool that needs approval only for large amounts.
const Refund = Tool.make("billing_refund", {
  description: "Refund a payment",
  parameters: Schema.Struct({ amount: Schema.Finite }),
  success: Schema.Struct({ refunded: Schema.Finite })
}).setNeedsApproval((params) => params.amount > 100)
const Billing = Toolkit.make(Refund)
const Handlers = Billing.toLayer({ billing_refund: ({ amount }) => Effect.succeed({ refunded: amount }) })

const asked = Ref.makeUnsafe<ReadonlyArray<unknown>>([])

const catalog = Layer.effectDiscard(Effect.gen(function*() {
  const toolkit = yield* Billing
  const c = yield* ToolCatalog.ToolCatalog
  yield* c.register(CatalogTool.fromToolkit(toolkit, { loading: "eager" }))
})).pipe(Layer.provideMerge(CatalogLive), Layer.provide(Handlers), Layer.orDie)

const agent = (amount: number) =>
  Executor.layerMemory().pipe(
    Layer.provideMerge(ScriptedModel.layer({
      policy: "capable",
      plan: () => ({ search: "refund", tool: "billing_refund", params: { amount } })
    })),
    Layer.provideMerge(catalog),
    Layer.provide(TokenCounter.layerApproximate),
    Layer.provide(Approval.layer(Approval.whenNeeded((request) =>
      Effect.as(Ref.update(asked, (xs) => [...xs, request.params]), false)
    )))
  )

const refundResult = Effect.flatMap(
  Executor.Executor,
  (e) => Stream.runCollect(e.stream({ prompt: [{ role: "user", content: "refund" }] }))
).pipe(
  Effect.map((events) => events.find((e) => e._tag === "ToolResult" && e.name === "billing_refund"))
)

describe("approval with effect/ai's needsApproval", () => {
  it.effect("a call the tool says needs approval is asked about, and a refusal is answered to the model", () =>
    Effect.gen(function*() {
      yield* Ref.set(asked, [])
      const result = yield* refundResult
      assert.deepStrictEqual(yield* Ref.get(asked), [{ amount: 500 }])
      assert.strictEqual(result?._tag === "ToolResult" ? result.failure : undefined, "not-approved")
    }).pipe(Effect.provide(agent(500))))

  it.effect("a call that does not need approval runs without asking", () =>
    Effect.gen(function*() {
      yield* Ref.set(asked, [])
      const result = yield* refundResult
      assert.deepStrictEqual(yield* Ref.get(asked), [])
      assert.deepStrictEqual(result?._tag === "ToolResult" ? result.result : undefined, { refunded: 20 })
    }).pipe(Effect.provide(agent(20))))
})
