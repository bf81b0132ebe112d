/**
 * `npx tsc -b && node dist/bench/code.js [runs]`: what the code-mode sandbox costs. On a pool of
 * two worker threads, times (milliseconds, median and p95 of `runs` runs, default 30):
 *
 * - `first run`: a run on a new sandbox (a worker thread starts and compiles QuickJS);
 * - `return 1`: a trivial program (a fresh QuickJS instance per run, the round trip to the thread);
 * - `100 tool calls`: a program awaiting 100 calls of a host function in sequence;
 * - `200 records`: the docs example's shape — list 200 records, filter, act on 3 concurrently.
 *
 * Then the main thread's event loop while a program spins in `while (true) {}` for 2 seconds, against
 * 2 idle seconds: the largest delay of a 10 ms timer (it would be the whole 2 seconds if QuickJS ran
 * on the main thread).
 * Machine-dependent figures: compare runs on one machine, never assert them in a test.
 */
import { Sandbox } from "@tool-search/code"
import { Duration, Effect } from "effect"

const RUNS = Number(process.argv[2] ?? 30)

const records = Array.from(
  { length: 200 },
  (_, i) => ({ id: `r${i}`, team: i % 4 === 0 ? "ops" : "dev", score: i % 97 })
)
const call: Sandbox.CallTool = (tool, args) => Effect.succeed(tool === "list" ? records : args)

const programs = {
  "return 1": "return 1",
  "100 tool calls": "let n = 0\nfor (let i = 0; i < 100; i++) n += (await tools.echo({ i })).i\nreturn n",
  "200 records": `const all = await tools.list({})
const top = all.filter((r) => r.team === "ops").sort((a, b) => b.score - a.score).slice(0, 3)
await Promise.all(top.map((r) => tools.echo({ id: r.id })))
return top.map((r) => r.id)`
}

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN

const time = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const start = performance.now()
    yield* effect
    return performance.now() - start
  })

/** The largest lateness of a 10 ms interval timer on the main thread while `effect` runs. */
const lag = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    let last = performance.now()
    let worst = 0
    const timer = setInterval(() => {
      const now = performance.now()
      worst = Math.max(worst, now - last - 10)
      last = now
    }, 10)
    yield* effect.pipe(Effect.ensuring(Effect.sync(() => clearInterval(timer))))
    return worst
  })

const program = Effect.gen(function*() {
  const sandbox = yield* Sandbox.Sandbox
  const run = (code: string, limits: Partial<Sandbox.Limits> = {}) =>
    sandbox.run({ code, tools: ["echo", "list"], call, limits })
  const first = yield* time(run("return 1"))
  const rows: Array<{ readonly program: string; readonly median: number; readonly p95: number }> = [
    { program: "first run", median: first, p95: first }
  ]
  for (const [name, code] of Object.entries(programs)) {
    const times: Array<number> = []
    for (let i = 0; i < RUNS; i++) times.push(yield* time(run(code)))
    times.sort((a, b) => a - b)
    rows.push({ program: name, median: percentile(times, 0.5), p95: percentile(times, 0.95) })
  }
  console.log(`Sandbox: milliseconds per run (${RUNS} runs each, 2 worker threads)`)
  for (const r of rows) {
    console.log(
      `${r.program.padEnd(16)} median ${r.median.toFixed(1).padStart(7)}   p95 ${r.p95.toFixed(1).padStart(7)}`
    )
  }

  // the main thread's event loop while a program spins, against the same 2 seconds idle
  const idle = yield* lag(Effect.sleep(Duration.seconds(2)))
  const spinning = yield* lag(Effect.flip(run("while (true) {}", { codeTimeout: Duration.seconds(2) })))
  console.log(
    `largest delay of a 10 ms timer on the main thread over 2 s: idle ${idle.toFixed(1)} ms, ` +
      `while a program runs while (true) {} ${spinning.toFixed(1)} ms`
  )
}).pipe(Effect.provide(Sandbox.layer({ codeWorkers: 2 })))

Effect.runPromise(program).catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
