import { assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Layer, Scope } from "effect"
import { Activation, ToolCatalog, ToolView } from "../src/index.js"
import { CatalogLive, tool, visibleNames } from "./kit/tools.js"

const activate = (query: string) => Effect.flatMap(ToolView.ToolView, (view) => view.searchAndActivate(query))

describe("activation lifetime", () => {
  it.effect("a tool activated in one turn is not visible in the next turn", () =>
    Effect.gen(function*() {
      const turnA = yield* ToolView.withUnit(Effect.andThen(activate("select:Grep"), visibleNames))
      const turnB = yield* ToolView.withUnit(visibleNames)
      assert.include(turnA, "Grep")
      assert.notInclude(turnB, "Grep")
      assert.deepStrictEqual(turnB, ["Read", "Write", "ToolSearch"])
    }).pipe(Effect.provide(CatalogLive)))

  it.effect("a tool activated in a turn is not visible in a concurrently running fork", () =>
    Effect.gen(function*() {
      const forkSaw = yield* Effect.gen(function*() {
        // the parent activates Grep, then starts a fork and waits for it while still inside its unit
        yield* activate("select:Grep")
        return yield* ToolView.withUnit(Effect.andThen(activate("select:WebFetch"), visibleNames))
      }).pipe(ToolView.withUnit)
      assert.include(forkSaw, "WebFetch")
      assert.notInclude(forkSaw, "Grep")
    }).pipe(Effect.provide(CatalogLive)))

  it.effect("concurrent forks never see each other's activations", () =>
    Effect.gen(function*() {
      const names = ["Grep", "WebFetch", "ScheduleTask", "slack_send_message", "github_create_issue"]
      const seen = yield* Effect.forEach(
        names,
        (name) =>
          ToolView.withUnit(Effect.gen(function*() {
            yield* activate(`select:${name}`)
            yield* Effect.yieldNow
            return yield* visibleNames
          })),
        { concurrency: "unbounded" }
      )
      seen.forEach((visible, i) => assert.deepStrictEqual(visible, ["Read", "Write", "ToolSearch", names[i]]))
    }).pipe(Effect.provide(CatalogLive)))

  it.effect("1,000 concurrent execution units on one catalog leak no activation", () =>
    Effect.gen(function*() {
      const catalog = yield* ToolCatalog.ToolCatalog
      const extra = Array.from({ length: 50 }, (_, i) => tool(`svc_${i}`, `Service operation number ${i}`))
      yield* catalog.register(extra)
      const results = yield* Effect.forEach(
        Array.from({ length: 1_000 }, (_, i) => i),
        (i) =>
          ToolView.withUnit(Effect.gen(function*() {
            const mine = [`svc_${i % 50}`, `svc_${(i * 7) % 50}`]
            yield* activate(`select:${mine.join(",")}`)
            yield* Effect.yieldNow
            const view = yield* ToolView.ToolView
            const activated = (yield* view.activated).map((t) => t.id)
            return { mine: [...new Set(mine)], activated }
          })),
        { concurrency: "unbounded" }
      )
      const leaks = results.filter((r) => JSON.stringify(r.mine) !== JSON.stringify(r.activated))
      assert.strictEqual(leaks.length, 0)
      assert.deepStrictEqual(yield* ToolView.withUnit(visibleNames), ["Read", "Write", "ToolSearch"])
    }).pipe(Effect.provide(CatalogLive)))

  it.effect("an activation cannot be read after its scope closed", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const activation = yield* Activation.make([]).pipe(Scope.provide(scope))
      yield* activation.activate(["Grep"])
      assert.deepStrictEqual(yield* activation.ids, ["Grep"])
      yield* Scope.close(scope, Exit.void)
      const exit = yield* Effect.exit(activation.ids)
      assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
      const write = yield* Effect.exit(activation.activate(["WebFetch"]))
      assert.isTrue(Exit.isFailure(write) && Cause.hasDies(write.cause))
    }))

  it.effect("interrupting a unit closes its scope and ends its activation", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<Activation.Service>()
      const fiber = yield* Effect.gen(function*() {
        yield* activate("select:Grep")
        yield* Deferred.succeed(started, yield* Activation.Activation)
        return yield* Effect.never
      }).pipe(
        Effect.provide(ToolView.ToolView.layer.pipe(Layer.provideMerge(Activation.Activation.layer))),
        Effect.forkChild
      )
      // the unit has activated a tool and leaked its activation; then it is interrupted
      const leaked = yield* Deferred.await(started)
      assert.deepStrictEqual(yield* leaked.ids, ["Grep"])
      yield* Fiber.interrupt(fiber)
      const exit = yield* Effect.exit(leaked.ids)
      assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
    }).pipe(Effect.provide(CatalogLive)))

  it.effect("activation is idempotent and keeps first-activation order", () =>
    Effect.gen(function*() {
      const activation = yield* Activation.make(["a"])
      assert.deepStrictEqual(yield* activation.activate(["b", "a", "c", "b"]), ["b", "c"])
      assert.deepStrictEqual(yield* activation.activate(["c"]), [])
      assert.deepStrictEqual(yield* activation.ids, ["a", "b", "c"])
    }))

  it.effect("a seeded activation is a copy, independent of its origin", () =>
    Effect.gen(function*() {
      const parent = yield* Activation.make([])
      yield* parent.activate(["Grep"])
      const child = yield* Activation.make(yield* parent.ids)
      yield* child.activate(["WebFetch"])
      assert.deepStrictEqual(yield* parent.ids, ["Grep"])
      assert.deepStrictEqual(yield* child.ids, ["Grep", "WebFetch"])
    }))
})
