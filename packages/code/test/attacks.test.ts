// The sandbox's safety properties, each tested by the attack it stops: endless loops, memory bombs,
// deep recursion, prototype pollution of the bridge, reaching for host objects, huge outputs, a
// program calling a tool it was not given, two programs at once, interruption mid-run, and a
// program QuickJS itself cannot interrupt.
import { assert, describe, layer } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Ref } from "effect"
import { TestClock } from "effect/testing"
import { Sandbox } from "../src/index.js"
import { getSum, type Handlers, program, reasonOf, run } from "./fixtures.js"

const timeout = Duration.seconds(5)
const timeLimit: Sandbox.Reason = { _tag: "LimitExceeded", limit: "time", value: 5000 }

/**
 * Runs `code` in a fiber and returns once the program is running: when it called `tools.started()`
 * (every program here has that tool), or a tool of `handlers` that completes `started` itself.
 */
const runStarted = (code: string, handlers: (started: Deferred.Deferred<void>) => Handlers = () => ({})) =>
  Effect.gen(function*() {
    const started = yield* Deferred.make<void>()
    const done = yield* Deferred.make<void>()
    const fiber = yield* Effect.forkChild(
      run(code, { started: () => Deferred.succeed(started, undefined), ...handlers(started) }, {
        codeTimeout: timeout
      }).pipe(Effect.ensuring(Deferred.succeed(done, undefined)))
    )
    yield* Deferred.await(started)
    return { fiber, done }
  })

/** A tool that says it started, then never ends; `interrupted` completes when its call is interrupted. */
const slowTool = (interrupted: Deferred.Deferred<void>) => (started: Deferred.Deferred<void>): Handlers => ({
  slow: () =>
    Deferred.succeed(started, undefined).pipe(
      Effect.andThen(Effect.never),
      Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
    )
})

/** Moves the test clock a second at a time until `done`, giving real time to the threads in between. */
const advanceUntil = (done: Deferred.Deferred<void>): Effect.Effect<void> =>
  Effect.gen(function*() {
    while (!(yield* Deferred.isDone(done))) {
      yield* TestClock.adjust("1 second")
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
    }
  })

const failureOf = <A>(fiber: Fiber.Fiber<A, Sandbox.SandboxError>) =>
  Effect.map(Effect.flip(Fiber.join(fiber)), (error) => error.reason)

layer(Sandbox.layer({ codeWorkers: 2 }))("attacks", (it) => {
  // ---------------------------------------------------------------------------
  // Endless loops
  // ---------------------------------------------------------------------------

  describe("endless loops end with the time limit", () => {
    const loops = {
      "while (true) {}": "while (true) {}",
      "catching the interrupt": "while (true) { try { for (;;) {} } catch (e) {} }",
      "looping in finally": "try { for (;;) {} } finally { for (;;) {} }",
      "a microtask loop": "const spin = () => Promise.resolve().then(spin)\nspin()\nawait new Promise(() => {})",
      "catastrophic backtracking": "while (true) /(x+x+)+y/.test('x'.repeat(40))",
      "an endless generator": "for (const _ of (function* () { while (true) yield 1 })()) {}"
    }
    it.effect.each(Object.entries(loops))("%s", ([, code]) =>
      Effect.gen(function*() {
        const { fiber } = yield* runStarted(`await tools.started()\n${code}`)
        yield* TestClock.adjust(timeout)
        assert.deepStrictEqual(yield* failureOf(fiber), timeLimit)
      }))

    it.effect("the time limit counts tool calls too: a program waiting on a slow tool is stopped", () =>
      Effect.gen(function*() {
        const interrupted = yield* Deferred.make<void>()
        const { fiber } = yield* runStarted("await tools.slow()", slowTool(interrupted))
        yield* TestClock.adjust(timeout)
        assert.deepStrictEqual(yield* failureOf(fiber), timeLimit)
        yield* Deferred.await(interrupted) // the tool call was interrupted with the run
      }))

    it.effect("the message tells the model the limit and what to do", () =>
      Effect.gen(function*() {
        const { fiber } = yield* runStarted("console.log('working')\nawait tools.started()\nwhile (true) {}")
        yield* TestClock.adjust(timeout)
        const error = yield* Effect.flip(Fiber.join(fiber))
        assert.match(error.message, /^The program ran longer than 5s and was stopped\. Do less in one run/)
        assert.deepStrictEqual(error.logs, [{ level: "log", text: "working" }])
      }))
  })

  // ---------------------------------------------------------------------------
  // Two programs at once
  // ---------------------------------------------------------------------------

  it.effect("two programs at once: while one loops, the other runs and answers", () =>
    Effect.gen(function*() {
      const looping = yield* runStarted("await tools.started()\nwhile (true) {}")
      const answered = yield* run(`return await tools["get-sum"]({ a: 2, b: 3 })`, { "get-sum": getSum })
      assert.strictEqual(answered.result, 5)
      assert.isFalse(yield* Deferred.isDone(looping.done), "the looping program still runs")
      yield* TestClock.adjust(timeout)
      assert.deepStrictEqual(yield* failureOf(looping.fiber), timeLimit)
    }))
})

// -----------------------------------------------------------------------------
// Attacks that need no clock: run on the live clock, so a slow machine only makes them slower
// -----------------------------------------------------------------------------

layer(Sandbox.layer({ codeWorkers: 2 }), { excludeTestServices: true })(
  "attacks on memory, stack, bridge, output",
  (it) => {
    // ---------------------------------------------------------------------------
    // Memory bombs and deep recursion
    // ---------------------------------------------------------------------------

    describe("memory bombs end with the memory limit; the next run is unaffected", () => {
      const bombs = {
        "an array of arrays": "const a = []\nwhile (true) a.push([1, 2, 3, 4, 5, 6, 7, 8])",
        "a string growing": "let s = 'x'\nwhile (true) s = s.repeat(2) + 'y'",
        "a growing map": "const m = new Map()\nfor (let i = 0; ; i++) m.set(i, { i })",
        "an object's keys": "const o = {}\nfor (let i = 0; ; i++) o['k' + i] = i",
        "array buffers": "const b = []\nwhile (true) b.push(new ArrayBuffer(1 << 20))",
        "one huge typed array": "new Uint8Array(1e9)"
      }
      it.effect.each(Object.entries(bombs))("%s", ([, code]) =>
        Effect.gen(function*() {
          const reason = yield* reasonOf(code, {}, { codeMaxMemory: 8 })
          assert.deepInclude(reason, { _tag: "LimitExceeded", limit: "memory", value: 8 })
          assert.strictEqual((yield* run("return [1, 2, 3].length", {}, { codeMaxMemory: 8 })).result, 3)
        }))

      it.effect("the line that ran out is named (when QuickJS could still build its error)", () =>
        Effect.map(
          reasonOf("const b = []\nwhile (true) b.push(new ArrayBuffer(1 << 20))", {}, { codeMaxMemory: 8 }),
          (reason) => assert.deepInclude(reason, { _tag: "LimitExceeded", limit: "memory", line: 2 })
        ))

      it.effect("a program that catches running out still cannot take more than the limit", () =>
        Effect.gen(function*() {
          // array buffers are not counted by QuickJS's own limit: the WebAssembly memory's maximum stops them
          const outcome = yield* run(
            `const kept = []
           let megabytes = 0
           try { while (true) { kept.push(new ArrayBuffer(1 << 20)); megabytes++ } } catch (e) {}
           return megabytes`,
            {},
            { codeMaxMemory: 8 }
          )
          assert.isAtMost(outcome.result as number, 8 + 16) // the limit plus QuickJS's initial 16 MB
        }))
    })

    describe("deep recursion ends with the stack limit, wherever it recurses", () => {
      const recursions = {
        "a function": "function f() { return f() }\nf()",
        "toJSON": "const o = { toJSON() { return JSON.stringify(o) } }\nJSON.stringify(o)",
        "a getter": "const o = { get x() { return o.x } }\no.x",
        "a proxy trap": "const p = new Proxy({}, { get: (t, k) => p[k] })\np.x",
        "Array.prototype.map": "function f() { return [1].map(f) }\nf()",
        "JSON.parse of deep nesting": "JSON.parse('['.repeat(100000) + ']'.repeat(100000))",
        "an async function": "async function f() { return await f() }\nawait f()"
      }
      it.effect.each(Object.entries(recursions))("%s", ([, code]) =>
        Effect.gen(function*() {
          const reason = yield* reasonOf(code)
          assert.deepInclude(reason, { _tag: "LimitExceeded", limit: "stack", value: 512 })
          assert.strictEqual((yield* run("return 'still here'")).result, "still here")
        }))

      it.effect("a tool called at the bottom of a deep recursion returns normally", () =>
        Effect.map(
          run(`async function f(n) { return n === 0 ? tools.echo({ n }) : f(n - 1) }\nreturn await f(1000)`, {
            echo: Effect.succeed
          }),
          (outcome) => assert.deepStrictEqual(outcome.result, { n: 0 })
        ))
    })

    // ---------------------------------------------------------------------------
    // The bridge
    // ---------------------------------------------------------------------------

    describe("prototype pollution of the bridge", () => {
      it.effect("__proto__ in arguments and results stays data: no prototype on the host changes", () =>
        Effect.gen(function*() {
          const received = yield* Ref.make<unknown>(undefined)
          const outcome = yield* run(
            `const args = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}')
           await tools.record(args)
           return JSON.parse('{"__proto__": {"polluted": true}}')`,
            { record: (args) => Effect.as(Ref.set(received, args), "ok") }
          )
          const args = yield* Ref.get(received)
          assert.isTrue(Object.hasOwn(args as object, "__proto__"))
          assert.strictEqual(Object.getPrototypeOf(args), Object.prototype)
          assert.isTrue(Object.hasOwn(outcome.result as object, "__proto__"))
          assert.strictEqual(Object.getPrototypeOf(outcome.result), Object.prototype)
          assert.isUndefined(({} as { polluted?: unknown }).polluted)
        }))

      it.effect("a program that rewrites JSON, Promise and Object.prototype only changes its own world", () =>
        Effect.gen(function*() {
          const received = yield* Ref.make<ReadonlyArray<unknown>>([])
          const outcome = yield* run(
            `Object.prototype.polluted = true
           Object.prototype.toJSON = undefined
           JSON.stringify = () => '{"forged": true}'
           JSON.parse = () => ({ forged: true })
           Promise.prototype.then = function () { throw new Error("hijacked") }
           Array.prototype[Symbol.iterator] = function* () { yield "forged" }
           const sum = await tools["get-sum"]({ a: 2, b: 3 })
           return { sum, polluted: ({}).polluted }`,
            { "get-sum": (args) => Effect.andThen(Ref.update(received, (r) => [...r, args]), getSum(args)) }
          )
          assert.deepStrictEqual(yield* Ref.get(received), [{ a: 2, b: 3 }])
          assert.deepStrictEqual(outcome.result, { sum: 5, polluted: true })
          const next = yield* run(`return [({}).polluted, JSON.stringify({ a: 1 })]`)
          assert.deepStrictEqual(next.result, [null, `{"a":1}`], "a fresh QuickJS instance for every run")
        }))

      it.effect("tools has no prototype and cannot be changed", () =>
        Effect.map(
          run(
            `const before = tools.echo
           try { tools.echo = () => "replaced" } catch (e) {}
           try { tools.extra = () => 1 } catch (e) {}
           try { globalThis.tools = {} } catch (e) {}
           return [Object.getPrototypeOf(tools), tools.constructor, tools.echo === before, "extra" in tools,
             Object.isFrozen(tools), await tools.echo({ x: 1 })]`,
            { echo: Effect.succeed }
          ),
          (outcome) => assert.deepStrictEqual(outcome.result, [null, null, true, false, true, { x: 1 }])
        ))
    })

    describe("a program reaches no host object", () => {
      it.effect("no process, require, fetch, timers, module loader", () =>
        Effect.map(
          run(`return [typeof process, typeof require, typeof module, typeof exports, typeof Buffer, typeof fetch,
          typeof setTimeout, typeof setInterval, typeof setImmediate, typeof WebAssembly, typeof std, typeof os,
          typeof globalThis.global]`),
          (outcome) => assert.deepStrictEqual(outcome.result, new Array(13).fill("undefined"))
        ))

      it.effect("the global object holds the language's built-ins, tools and console: nothing else", () =>
        Effect.gen(function*() {
          const outcome = yield* run(`const seen = new Set()
          for (let o = globalThis; o !== null; o = Object.getPrototypeOf(o)) {
            for (const key of Reflect.ownKeys(o)) if (typeof key === "string") seen.add(key)
          }
          return [...seen].sort()`)
          // the ECMAScript built-ins QuickJS has, tools, console, and Object.prototype's own members
          const builtIns = new Set(
            [
              "Object Function Array Number Boolean String Symbol BigInt Math JSON Reflect Proxy Promise Date",
              "RegExp Map Set WeakMap WeakSet WeakRef FinalizationRegistry Iterator ArrayBuffer",
              "SharedArrayBuffer DataView Int8Array Uint8Array Uint8ClampedArray Int16Array Uint16Array",
              "Int32Array Uint32Array BigInt64Array BigUint64Array Float16Array Float32Array Float64Array",
              "Error EvalError RangeError ReferenceError SyntaxError TypeError URIError InternalError",
              "AggregateError parseInt parseFloat isNaN isFinite decodeURI decodeURIComponent encodeURI",
              "encodeURIComponent escape unescape Infinity NaN undefined eval globalThis tools console",
              "constructor toString toLocaleString valueOf hasOwnProperty isPrototypeOf propertyIsEnumerable",
              "__proto__ __defineGetter__ __defineSetter__ __lookupGetter__ __lookupSetter__"
            ].join(" ").split(" ")
          )
          const unexpected = (outcome.result as ReadonlyArray<string>).filter((name) => !builtIns.has(name))
          assert.deepStrictEqual(unexpected, [])
        }))

      it.effect("constructors of its own functions build functions in the sandbox, not on the host", () =>
        Effect.map(
          run(
            `return [
          constructor.constructor("return typeof process")(),
          Function("return typeof this.process")(),
          await tools.echo.constructor("return typeof require")(),
          console.log.constructor("return typeof globalThis.fetch")(),
          eval("typeof require"),
          (0, eval)("typeof process")
        ]`,
            { echo: Effect.succeed }
          ),
          (outcome) => assert.deepStrictEqual(outcome.result, new Array(6).fill("undefined"))
        ))

      it.effect("import() of any module is refused", () =>
        Effect.map(
          run(`const results = []
          for (const name of ["fs", "node:child_process", "./program.js", "data:text/javascript,1"]) {
            try { await import(name); results.push("loaded") } catch (e) { results.push(e.name) }
          }
          return results`),
          (outcome) => assert.deepStrictEqual(outcome.result, new Array(4).fill("ReferenceError"))
        ))
    })

    it.effect("a tool the program was not given does not exist inside it, and never reaches the host", () =>
      Effect.gen(function*() {
        const seen = yield* Ref.make<ReadonlyArray<string>>([])
        const sandbox = yield* Sandbox.Sandbox
        const outcome = yield* sandbox.run({
          code: `const tries = []
          for (const attempt of [
            () => tools.hidden({}),
            () => tools["hidden"]({}),
            () => Object.getPrototypeOf(tools).hidden({}),
            () => tools.visible.call({ name: "hidden" }, {})
          ]) {
            try { await attempt(); tries.push("called") } catch (e) { tries.push(e.name) }
          }
          return [tries, Object.keys(tools), "hidden" in tools]`,
          tools: ["visible"],
          call: (tool, args) => Effect.as(Ref.update(seen, (s) => [...s, tool]), args)
        })
        assert.deepStrictEqual(outcome.result, [["TypeError", "TypeError", "TypeError", "called"], ["visible"], false])
        assert.deepStrictEqual(yield* Ref.get(seen), ["visible"])
      }))

    // ---------------------------------------------------------------------------
    // Huge outputs
    // ---------------------------------------------------------------------------

    describe("huge outputs end with the output limit", () => {
      const outputs = {
        "one huge line": "console.log('x'.repeat(200000))",
        "many lines": "for (;;) console.error('again and again')",
        "a huge result": "return 'x'.repeat(200000)",
        "a huge object as a result": "return Array.from({ length: 50000 }, (_, i) => ({ i }))"
      }
      it.effect.each(Object.entries(outputs))("%s", ([, code]) =>
        Effect.map(
          reasonOf(code),
          (reason) => assert.deepStrictEqual(reason, { _tag: "LimitExceeded", limit: "output", value: 100_000 })
        ))
    })
  }
)

// -----------------------------------------------------------------------------
// Interruption, and a thread that cannot be interrupted: one worker, so reuse is visible
// -----------------------------------------------------------------------------

layer(Sandbox.layer({ codeWorkers: 1 }))("stopping a run", (it) => {
  it.effect("interrupting the fiber stops the program and frees its thread for the next run", () =>
    Effect.gen(function*() {
      const { fiber } = yield* runStarted("await tools.started()\nwhile (true) {}")
      yield* Fiber.interrupt(fiber)
      assert.strictEqual((yield* run("return 'next'")).result, "next")
    }))

  it.effect("interrupting the fiber during a tool call interrupts the call", () =>
    Effect.gen(function*() {
      const interrupted = yield* Deferred.make<void>()
      const { fiber } = yield* runStarted("await tools.slow()", slowTool(interrupted))
      yield* Fiber.interrupt(fiber)
      yield* Deferred.await(interrupted)
      assert.strictEqual((yield* run("return 'next'")).result, "next")
    }))

  it.effect("a native loop QuickJS cannot interrupt: the thread is terminated and replaced", () =>
    Effect.gen(function*() {
      // QuickJS polls no interrupt inside Array.prototype.indexOf: only terminating the thread ends it
      const { done, fiber } = yield* runStarted(
        "await tools.started()\nArray.prototype.indexOf.call({ length: 2 ** 40 }, 1)"
      )
      yield* advanceUntil(done)
      assert.deepStrictEqual(yield* failureOf(fiber), timeLimit)
      assert.strictEqual((yield* run("return 'a new thread'")).result, "a new thread")
    }))

  it.effect("runs wait for the one thread: a second program runs once the first is done", () =>
    Effect.gen(function*() {
      const first = yield* runStarted("await tools.started()\nreturn 1")
      const second = yield* Effect.forkChild(Effect.flatMap(Sandbox.Sandbox, (s) => s.run(program("return 2"))))
      yield* Fiber.join(first.fiber)
      assert.strictEqual((yield* Fiber.join(second)).result, 2)
    }))
})
