import { assert, describe, it, layer } from "@effect/vitest"
import { ConfigProvider, Deferred, Effect, Exit, Fiber, Layer, Ref } from "effect"
import { Sandbox } from "../src/index.js"
import type * as Protocol from "../src/internal/protocol.js"
import * as Thread from "../src/internal/thread.js"
import { getSum, reasonOf, run } from "./fixtures.js"

const Live = Sandbox.layer({ codeWorkers: 2 })

layer(Live, { excludeTestServices: true })("Sandbox: a program calls tools and returns JSON", (it) => {
  it.effect("awaits tool calls, captures console output, returns the value", () =>
    Effect.gen(function*() {
      const outcome = yield* run(
        `const first = await tools["get-sum"]({ a: 2, b: 3 })
         const second = await tools["get-sum"]({ a: 10, b: 20 })
         console.log("sums", first, second)
         console.warn({ careful: true })
         return { first, second }`,
        { "get-sum": getSum }
      )
      assert.deepStrictEqual(outcome, {
        result: { first: 5, second: 30 },
        logs: [{ level: "log", text: "sums 5 30" }, { level: "warn", text: `{"careful":true}` }],
        toolCalls: 2
      })
    }))

  it.effect("a program that returns nothing has the result null", () =>
    Effect.map(run(`console.log("done")`), (outcome) => assert.strictEqual(outcome.result, null)))

  it.effect("Promise.all runs tool calls concurrently, bounded by codeToolConcurrency", () =>
    Effect.gen(function*() {
      const inFlight = yield* Ref.make(0)
      const peak = yield* Ref.make(0)
      const all = yield* Deferred.make<void>()
      const slow = (args: unknown) =>
        Effect.gen(function*() {
          const now = yield* Ref.updateAndGet(inFlight, (n) => n + 1)
          yield* Ref.update(peak, (p) => Math.max(p, now))
          if (now === 3) yield* Deferred.succeed(all, undefined)
          yield* Deferred.await(all) // the third call releases every call: they were in flight together
          yield* Ref.update(inFlight, (n) => n - 1)
          return args
        })
      const outcome = yield* run(
        `return await Promise.all([1, 2, 3, 4, 5].map((i) => tools.slow({ i })))`,
        { slow },
        { codeToolConcurrency: 3 }
      )
      assert.deepStrictEqual(outcome.result, [1, 2, 3, 4, 5].map((i) => ({ i })))
      assert.strictEqual(yield* Ref.get(peak), 3)
    }))

  it.effect("a failed tool call rejects with a ToolError the program can catch", () =>
    Effect.gen(function*() {
      const outcome = yield* run(
        `try {
           await tools["get-sum"]({ a: "two", b: 3 })
         } catch (e) {
           return [e.name, e.message.includes("Expected number")]
         }`,
        { "get-sum": getSum }
      )
      assert.deepStrictEqual(outcome.result, ["ToolError", true])
    }))

  it.effect("an uncaught tool failure ends the run with the tool's message", () =>
    Effect.gen(function*() {
      const reason = yield* reasonOf(`await tools["get-sum"]({ a: 1 })`, { "get-sum": getSum })
      assert.strictEqual(reason._tag, "Exception")
      assert.strictEqual(reason._tag === "Exception" && reason.name, "ToolError")
    }))

  it.effect("a tool that crashes (a defect) rejects the call; the run goes on", () =>
    Effect.gen(function*() {
      const outcome = yield* run(
        `try { await tools.crash() } catch (e) { return e.message }`,
        { crash: () => Effect.die("boom") }
      )
      assert.strictEqual(outcome.result, "Tool 'crash' crashed")
    }))

  it.effect("a tool result that is not JSON rejects the call", () =>
    Effect.gen(function*() {
      const outcome = yield* run(`try { await tools.big() } catch (e) { return e.message }`, {
        big: () => Effect.succeed(10n)
      })
      assert.strictEqual(outcome.result, "The result of 'big' is not JSON")
    }))

  it.effect("arguments that are not JSON reject the call before the host sees it", () =>
    Effect.gen(function*() {
      const seen = yield* Ref.make(0)
      const outcome = yield* run(
        `const cyclic = {}; cyclic.self = cyclic
         const results = []
         for (const args of [cyclic, () => 1, 10n]) {
           try { await tools.echo(args) } catch (e) { results.push(e.name) }
         }
         return results`,
        { echo: (args) => Effect.as(Ref.update(seen, (n) => n + 1), args) }
      )
      assert.deepStrictEqual(outcome.result, ["TypeError", "TypeError", "TypeError"])
      assert.strictEqual(yield* Ref.get(seen), 0)
    }))
})

layer(Live, { excludeTestServices: true })("Sandbox: errors name the line and column of the program's code", (it) => {
  it.effect("an uncaught exception: name, message, position and the program's frames", () =>
    Effect.gen(function*() {
      const reason = yield* reasonOf(`const rows = [1, 2]
function first(list) {
  return list.missing.value
}
return first(rows)`)
      assert.deepInclude(reason, { _tag: "Exception", name: "TypeError", line: 3, column: 22 })
      assert.deepStrictEqual(reason._tag === "Exception" && reason.frames, [
        "first (line 3, column 22)",
        "(line 5, column 13)"
      ])
      assert.match(
        Sandbox.explain(reason),
        /^Uncaught TypeError: cannot read property 'value' of undefined \(line 3, column 22\)\n {4}at first/
      )
    }))

  it.effect("a syntax error: where it is, and that the code is a function body", () =>
    Effect.gen(function*() {
      const reason = yield* reasonOf(`const a = 1\nconst b = ;`)
      assert.deepStrictEqual(reason, {
        _tag: "InvalidSyntax",
        message: "unexpected token in expression: ';'",
        line: 2,
        column: 11
      })
      assert.include(Sandbox.explain(reason), "the body of an async function")
    }))

  it.effect("an unclosed block is blamed on the program's last line, not the wrapper", () =>
    Effect.map(
      reasonOf(`if (true) {\n  return 1`),
      (reason) => assert.deepInclude(reason, { _tag: "InvalidSyntax", line: 2 })
    ))

  it.effect("a thrown non-Error value is shown", () =>
    Effect.map(
      reasonOf(`throw { code: 42 }`),
      (reason) => assert.deepInclude(reason, { _tag: "Exception", name: "", message: `{"code":42}` })
    ))

  it.effect("a returned value that is not JSON", () =>
    Effect.gen(function*() {
      const fn = yield* reasonOf(`return () => 1`)
      assert.deepStrictEqual(fn, { _tag: "InvalidResult", message: "it is a function" })
      const cycle = yield* reasonOf(`const a = {}; a.a = a; return a`)
      assert.strictEqual(cycle._tag, "InvalidResult")
    }))

  it.effect("awaiting a promise nothing can settle ends the run at once", () =>
    Effect.map(
      reasonOf(`await new Promise(() => {})`),
      (reason) => assert.deepStrictEqual(reason, { _tag: "Stalled" })
    ))
})

layer(Live, { excludeTestServices: true })("Sandbox: limits", (it) => {
  it.effect("code longer than codeMaxSize is refused before it runs", () =>
    Effect.map(
      reasonOf(`return "${"x".repeat(100)}"`, {}, { codeMaxSize: 50 }),
      (reason) => assert.deepStrictEqual(reason, { _tag: "LimitExceeded", limit: "size", value: 50 })
    ))

  it.effect("the call after codeMaxToolCalls ends the run, even if the program catches the rejection", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(run(
        `for (let i = 0; i < 10; i++) {
           try { await tools.echo({ i }) } catch {}
         }
         return "went on"`,
        { echo: Effect.succeed },
        { codeMaxToolCalls: 3 }
      ))
      assert.deepStrictEqual(error.reason, { _tag: "LimitExceeded", limit: "tool-calls", value: 3 })
      assert.strictEqual(error.toolCalls, 4)
      assert.include(error.message, "more than 3 tool calls")
    }))

  it.effect("console output plus the returned value are bounded by codeMaxOutput; the logs so far are kept", () =>
    Effect.gen(function*() {
      const logged = yield* Effect.flip(
        run(`for (let i = 0; ; i++) console.log("line " + i)`, {}, { codeMaxOutput: 100 })
      )
      assert.deepStrictEqual(logged.reason, { _tag: "LimitExceeded", limit: "output", value: 100 })
      assert.isAbove(logged.logs.length, 5)
      assert.isAtMost(logged.logs.reduce((n, l) => n + l.text.length, 0), 100)
      const returned = yield* reasonOf(`console.log("x".repeat(60)); return "y".repeat(60)`, {}, { codeMaxOutput: 100 })
      assert.deepStrictEqual(returned, { _tag: "LimitExceeded", limit: "output", value: 100 })
    }))
})

describe("Sandbox: settings", () => {
  layer(
    Sandbox.layerConfig.pipe(
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({
        env: { TOOL_SEARCH_CODE_MAX_TOOL_CALLS: "1", TOOL_SEARCH_CODE_WORKERS: "1" }
      })))
    ),
    { excludeTestServices: true }
  )("layerConfig reads the TOOL_SEARCH_CODE_* variables", (it) => {
    it.effect("TOOL_SEARCH_CODE_MAX_TOOL_CALLS=1", () =>
      Effect.map(
        reasonOf(`await tools.echo({}); await tools.echo({})`, { echo: Effect.succeed }),
        (reason) => assert.deepStrictEqual(reason, { _tag: "LimitExceeded", limit: "tool-calls", value: 1 })
      ))
  })

  layer(Layer.empty)("invalid values", (it) => {
    it.effect("a stack beyond the maximum is refused with what is accepted", () =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(
          Layer.build(Sandbox.layerConfig).pipe(
            Effect.provide(
              ConfigProvider.layer(ConfigProvider.fromEnv({ env: { TOOL_SEARCH_CODE_MAX_STACK: "4096" } }))
            ),
            Effect.scoped
          )
        )
        assert.isTrue(Exit.isFailure(exit))
        assert.include(String(exit), "TOOL_SEARCH_CODE_MAX_STACK")
      }))
  })
})

layer(Live, { excludeTestServices: true })("Sandbox: toModel", (it) => {
  it.effect("the result and the logs, or the error message and the logs", () =>
    Effect.gen(function*() {
      const ok = yield* Effect.result(run(`console.info("hi"); return 1`))
      assert.deepStrictEqual(Sandbox.toModel(ok), { isFailure: false, result: { result: 1, logs: ["[info] hi"] } })
      const failed = yield* Effect.result(run(`console.log("before"); null.x`))
      const answer = Sandbox.toModel(failed)
      assert.isTrue(answer.isFailure)
      assert.deepStrictEqual(answer.result["logs"], ["before"])
      assert.match(String(answer.result["error"]), /^Uncaught TypeError: cannot read property 'x' of null \(line 1/)
    }))

  it.effect("fibers of a run do not outlive it", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(run(`return 1`))
      assert.deepStrictEqual((yield* Fiber.join(fiber)).result, 1)
    }))
})

describe("Sandbox: threads", () => {
  // `Worker.terminate` on a thread that has loaded WebAssembly can crash the process
  // (nodejs/node#56312): a thread that answers is asked to exit and ends on its own, exit code 0
  // (a terminated thread exits with 1)
  const exitCode = (started: (thread: Thread.Thread) => void) =>
    Effect.gen(function*() {
      const thread = yield* Effect.scoped(Effect.tap(Thread.spawn, (thread) => Effect.sync(() => started(thread))))
      return yield* Deferred.await(thread.exited)
    })

  it.live("a thread the sandbox no longer needs exits on its own, not terminated", () =>
    Effect.map(exitCode(() => {}), (code) => assert.strictEqual(code, 0)))

  it.live("so does a thread in the middle of a run", () =>
    Effect.map(
      exitCode((thread) =>
        thread.worker.postMessage(
          {
            _tag: "Start",
            run: 1,
            code: `await new Promise(() => {}); return 1`,
            tools: [],
            memoryBytes: 16 * 1024 * 1024,
            stackBytes: 256 * 1024,
            maxToolCalls: 1,
            maxOutput: 1000
          } satisfies Protocol.ToWorker
        )
      ),
      (code) => assert.strictEqual(code, 0)
    ))

  it.live("so does a thread busy computing", () =>
    Effect.map(
      exitCode((thread) =>
        thread.worker.postMessage(
          {
            _tag: "Start",
            run: 1,
            code: `while (true) {}`,
            tools: [],
            memoryBytes: 16 * 1024 * 1024,
            stackBytes: 256 * 1024,
            maxToolCalls: 1,
            maxOutput: 1000
          } satisfies Protocol.ToWorker
        )
      ),
      (code) => assert.strictEqual(code, 0)
    ))
})
