import { assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Layer, Option, Ref } from "effect"
import { TestClock } from "effect/testing"
import { ToolCatalog, Unit } from "../src/index.js"
import { CatalogLive, catalogOf, endlessWork, tool, visibleNames } from "./kit/tools.js"

const activate = (query: string) => Unit.search(query)

describe("activation lifetime", () => {
  it.effect("a tool activated in one turn is not visible in the next turn", () =>
    Effect.gen(function*() {
      const turnA = yield* Unit.provide(Effect.andThen(activate("select:Grep"), visibleNames))
      const turnB = yield* Unit.provide(visibleNames)
      assert.include(turnA, "Grep")
      assert.notInclude(turnB, "Grep")
      assert.deepStrictEqual(turnB, ["Read", "Write", "ToolSearch"])
    }).pipe(Effect.provide(CatalogLive)))

  it.effect("a tool activated in a turn is not visible in a concurrently running fork", () =>
    Effect.gen(function*() {
      const forkSaw = yield* Effect.gen(function*() {
        // the parent activates Grep, then starts a fork and waits for it while still inside its unit
        yield* activate("select:Grep")
        return yield* Unit.provide(Effect.andThen(activate("select:WebFetch"), visibleNames))
      }).pipe(Unit.provide)
      assert.include(forkSaw, "WebFetch")
      assert.notInclude(forkSaw, "Grep")
    }).pipe(Effect.provide(CatalogLive)))

  it.effect("concurrent forks never see each other's activations", () =>
    Effect.gen(function*() {
      const names = ["Grep", "WebFetch", "ScheduleTask", "slack_send_message", "github_create_issue"]
      const seen = yield* Effect.forEach(
        names,
        (name) =>
          Unit.provide(Effect.gen(function*() {
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
          Unit.provide(Effect.gen(function*() {
            const mine = [`svc_${i % 50}`, `svc_${(i * 7) % 50}`]
            yield* activate(`select:${mine.join(",")}`)
            yield* Effect.yieldNow
            return { mine: [...new Set(mine)], activated: yield* Unit.snapshot }
          })),
        { concurrency: "unbounded" }
      )
      const leaks = results.filter((r) => JSON.stringify(r.mine) !== JSON.stringify(r.activated))
      assert.strictEqual(leaks.length, 0)
      assert.deepStrictEqual(yield* Unit.provide(visibleNames), ["Read", "Write", "ToolSearch"])
    }).pipe(Effect.provide(CatalogLive)))

  it.effect("what the types cannot see is checked at run time: a unit's context used after it ended is a defect", () =>
    Effect.gen(function*() {
      // `Effect.context` is the one way to hold a unit outside `Unit.provide`; using it later dies
      const kept = yield* Unit.provide(Effect.andThen(activate("select:Grep"), Effect.context<Unit.Unit>()))
      const read = yield* Effect.exit(Unit.snapshot.pipe(Effect.provideContext(kept)))
      assert.isTrue(Exit.isFailure(read) && Cause.hasDies(read.cause))
      assert.include(String(Cause.squash((read as Exit.Failure<unknown, unknown>).cause)), "has ended")
      const write = yield* Effect.exit(activate("select:WebFetch").pipe(Effect.provideContext(kept)))
      assert.isTrue(Exit.isFailure(write) && Cause.hasDies(write.cause))
    }).pipe(Effect.provide(CatalogLive)))
})

describe("carry-over: what a unit reports is what the next accepts", () => {
  const mail = [
    tool("send_email", "Send an email message", { id: "mail/send_email", source: "mail" }),
    tool("list_inbox", "List the messages of the inbox", { id: "mail/list_inbox", source: "mail" })
  ]

  it.effect("a snapshot with MCP-shaped ids seeds the next unit, which sees the same tools", () =>
    Effect.gen(function*() {
      const snapshot = yield* Unit.provide(Effect.andThen(activate("select:send_email"), Unit.snapshot))
      assert.deepStrictEqual(snapshot, ["mail/send_email"])
      const next = yield* Unit.provideWith({ seed: snapshot })(visibleNames)
      assert.include(next, "send_email")
      assert.deepStrictEqual(yield* Unit.provideWith({ seed: snapshot })(Unit.snapshot), ["mail/send_email"])
    }).pipe(Effect.provide(catalogOf(mail))))

  it.effect("an unknown id is an error that names it, never a silent drop", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Unit.provideWith({ seed: ["mail/send_email", "send_email", "nope"] })(Unit.tools)
      )
      assert.strictEqual(error._tag, "UnknownTools")
      assert.deepStrictEqual(error.ids, ["send_email", "nope"])
      assert.include(error.message, "send_email, nope")
    }).pipe(Effect.provide(catalogOf(mail))))

  it.effect("a seed is a copy: the seeded unit's activations do not reach the unit it came from", () =>
    Effect.gen(function*() {
      const parent = yield* Unit.provide(Effect.gen(function*() {
        yield* activate("select:Grep")
        const seed = yield* Unit.snapshot
        yield* Unit.provideWith({ seed })(activate("select:WebFetch"))
        return yield* Unit.snapshot
      }))
      assert.deepStrictEqual(parent, ["Grep"])
    }).pipe(Effect.provide(CatalogLive)))
})

describe("Unit.session: one unit shared on purpose", () => {
  it.effect("every effect the session layer is provided to shares one unit; each build is a new one", () =>
    Effect.gen(function*() {
      const session = Unit.session()
      const shared = yield* Effect.gen(function*() {
        yield* activate("select:Grep")
        yield* activate("select:WebFetch")
        return yield* Unit.snapshot
      }).pipe(Effect.provide(session))
      assert.deepStrictEqual(shared, ["Grep", "WebFetch"])
      assert.deepStrictEqual(yield* Unit.snapshot.pipe(Effect.provide(session)), [], "a new build, a new unit")
    }).pipe(Effect.provide(CatalogLive)))

  it.effect("a capacity unloads the least recently used tool, and a call counts as a use", () =>
    Effect.gen(function*() {
      const ids = yield* Effect.gen(function*() {
        yield* activate("select:Grep")
        yield* activate("select:WebFetch")
        yield* Unit.resolve("Grep") // a call touches it
        yield* activate("select:ScheduleTask") // unloads WebFetch, the least recently used
        return yield* Unit.snapshot
      }).pipe(Unit.provideWith({ capacity: 2 }))
      assert.deepStrictEqual(ids, ["Grep", "ScheduleTask"])
    }).pipe(Effect.provide(CatalogLive)))

  it.effect("restore and unload follow a stored copy: what it gained is visible, what it lost is not", () =>
    Effect.gen(function*() {
      const seen = yield* Effect.gen(function*() {
        yield* activate("select:Grep")
        const restored = yield* Unit.restore(["WebFetch", "Grep"])
        yield* Unit.unload(["Grep", "never-loaded"])
        return { restored, ids: yield* Unit.snapshot, visible: yield* visibleNames }
      }).pipe(Unit.provideWith({ capacity: 2 }))
      assert.deepStrictEqual(seen.restored, ["WebFetch"])
      assert.deepStrictEqual(seen.ids, ["WebFetch"])
      assert.notInclude(seen.visible, "Grep")
      assert.include(seen.visible, "WebFetch")
    }).pipe(Effect.provide(CatalogLive)))
})

describe("supervision: a unit's children end with it", () => {
  it.effect("the end of a unit interrupts a background child and runs its finalizer", () =>
    Effect.gen(function*() {
      const { finalized, started, work } = yield* endlessWork
      const seen = yield* Unit.provide(Effect.gen(function*() {
        const fiber = yield* Unit.start("slow_tool#1", work)
        yield* Deferred.await(started)
        const running = yield* Unit.running
        return { fiber, running }
      }))
      assert.deepStrictEqual(seen.running, ["slow_tool#1"])
      const exit = yield* Fiber.await(seen.fiber)
      assert.isTrue(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause), "interrupted by the unit's end")
      assert.isTrue(yield* Ref.get(finalized), "its finalizer ran")
    }).pipe(Effect.provide(CatalogLive)))

  it.effect("a supervised child is interrupted with its caller, and leaves `running`", () =>
    Effect.gen(function*() {
      const { finalized, started, work } = yield* endlessWork
      const running = yield* Unit.provide(Effect.gen(function*() {
        const caller = yield* Effect.forkChild(Unit.supervise(work, "call-1"))
        yield* Deferred.await(started)
        const during = yield* Unit.running
        yield* Fiber.interrupt(caller)
        return { during, after: yield* Unit.running }
      }))
      assert.deepStrictEqual(running, { during: ["call-1"], after: [] })
      assert.isTrue(yield* Ref.get(finalized))
    }).pipe(Effect.provide(CatalogLive)))

  it.effect("a failing child's error reaches its caller as a value, the unit goes on", () =>
    Effect.gen(function*() {
      const outcome = yield* Unit.provide(Effect.gen(function*() {
        const failed = yield* Effect.result(Unit.supervise(Effect.fail("boom" as const), "call-2"))
        const ok = yield* Unit.supervise(Effect.succeed(1), "call-3")
        return { failed: failed._tag, ok }
      }))
      assert.deepStrictEqual(outcome, { failed: "Failure", ok: 1 })
    }).pipe(Effect.provide(CatalogLive)))

  it.effect("with a time limit: a child past it is interrupted (its finalizer runs) and gives None; one within it, its exit", () =>
    Effect.gen(function*() {
      const { finalized, started, work } = yield* endlessWork
      const outcome = yield* Unit.provide(Effect.gen(function*() {
        const late = yield* Effect.forkChild(Unit.superviseExit("slow#1", work, { timeout: "1 second" }))
        yield* Deferred.await(started)
        yield* TestClock.adjust("1 second")
        const timedOut = yield* Fiber.join(late)
        const quick = yield* Unit.superviseExit("quick#2", Effect.succeed(2), { timeout: "1 second" })
        const failing = yield* Unit.superviseExit("failing#3", Effect.fail("boom" as const))
        return { timedOut, quick, failing, running: yield* Unit.running }
      }))
      assert.isTrue(Option.isNone(outcome.timedOut))
      assert.isTrue(yield* Ref.get(finalized), "the late child's finalizer ran")
      assert.deepStrictEqual(outcome.quick, Option.some(Exit.succeed(2)))
      assert.deepStrictEqual(outcome.failing, Option.some(Exit.fail("boom")))
      assert.deepStrictEqual(outcome.running, [])
    }).pipe(Effect.provide(CatalogLive)))
})

describe("units over layers", () => {
  it.effect("a unit needs only the catalog: providing a catalog layer is enough", () =>
    Effect.gen(function*() {
      const names = yield* Unit.provide(visibleNames).pipe(Effect.provide(Layer.fresh(CatalogLive)))
      assert.deepStrictEqual(names, ["Read", "Write", "ToolSearch"])
    }))
})
