/**
 * `npx tsc -b && node dist/bench/sessions.js [sessions...]`: the in-memory `SessionStore` at
 * 1k, 10k and 100k sessions (or the counts given), per eviction strategy. For each count it fills
 * the store with that many sessions (no eviction happens at these sizes: `lru` holds them all,
 * `ttl` does not expire them), then times a mix of reads and writes of random sessions, the way
 * turns of many users touch it. Prints microseconds per operation; the figure should not grow
 * with the number of sessions.
 */
import { Eviction, SessionStore } from "@tool-search/agent"
import { Effect } from "effect"

const counts = process.argv.slice(2).map(Number).filter((n) => Number.isInteger(n) && n > 0)
const sizes = counts.length > 0 ? counts : [1_000, 10_000, 100_000]
const OPERATIONS = 200_000

const strategies = (n: number): ReadonlyArray<readonly [string, Eviction.Strategy]> => [
  ["lru", Eviction.lru(n)],
  ["ttl", Eviction.ttl("1 hour")],
  ["never", Eviction.never],
  ["lru+ttl", Eviction.composite(Eviction.lru(n), Eviction.ttl("1 hour"))]
]

const measure = (n: number, strategy: Eviction.Strategy) =>
  Effect.gen(function*() {
    const store = yield* SessionStore.makeMemory(strategy)
    const state = { accumulated: ["tool_a", "tool_b"], latest: ["tool_b"] }
    for (let i = 0; i < n; i++) yield* store.put(`session-${i}`, state)
    let seed = 42
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) % n
    const start = performance.now()
    for (let i = 0; i < OPERATIONS; i++) {
      const id = `session-${next()}`
      if (i % 2 === 0) yield* store.get(id)
      else yield* store.put(id, state)
    }
    const microseconds = ((performance.now() - start) * 1_000) / OPERATIONS
    const held = (yield* store.sessions).length
    return { microseconds, held }
  })

const program = Effect.gen(function*() {
  console.log(
    `SessionStore.layerMemory: µs per operation (${OPERATIONS.toLocaleString("en-US")} get/put, random sessions)`
  )
  console.log(["sessions", ...strategies(1).map(([name]) => name)].map((c) => c.padStart(10)).join(""))
  for (const n of sizes) {
    const cells: Array<string> = []
    for (const [, strategy] of strategies(n)) {
      const { held, microseconds } = yield* measure(n, strategy)
      if (held !== n) return yield* Effect.die(new Error(`expected ${n} sessions held, found ${held}`))
      cells.push(microseconds.toFixed(2))
    }
    console.log([n.toLocaleString("en-US"), ...cells].map((c) => c.padStart(10)).join(""))
  }
})

Effect.runPromise(program)
