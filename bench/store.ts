// What the store costs, per engine: opening (a new embedded directory, an existing one, memory, a
// PostgreSQL server), a session write and read, an audit append; and what it adds to an install.
//
//   npm run bench:store                       # the embedded engine
//   npm run bench:store -- postgres://…       # and a PostgreSQL server (a scratch database is fine)
//
// Latencies are per operation, sequential, after 50 warm-up operations: p50 and p95 of 500.
import { Eviction } from "@tool-search/agent"
import { Audit, Database, Sessions } from "@tool-search/store"
import { Effect, Layer, Redacted } from "effect"
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"

const RUNS = 500
const WARMUP = 50

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN
const ms = (n: number) => `${n.toFixed(n < 1 ? 3 : 1)} ms`

const time = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const start = performance.now()
    yield* effect
    return performance.now() - start
  })

const latency = <E, R>(name: string, op: (i: number) => Effect.Effect<unknown, E, R>) =>
  Effect.gen(function*() {
    for (let i = 0; i < WARMUP; i++) yield* op(-i - 1)
    const samples: Array<number> = []
    for (let i = 0; i < RUNS; i++) samples.push(yield* time(op(i)))
    samples.sort((a, b) => a - b)
    return `${name}: p50 ${ms(percentile(samples, 0.5))}, p95 ${ms(percentile(samples, 0.95))}`
  })

/** Opens the database (and applies migrations), then closes it: the time to open. */
const opened = (location: Database.Location) => time(Effect.scoped(Layer.build(Database.layer(location))))

const operations = (label: string, location: Database.Location) =>
  Effect.gen(function*() {
    const sessions = yield* Sessions.make({ eviction: Eviction.lru(1_000), namespace: `bench-${Date.now()}` })
    const audit = yield* Audit.make({})
    const tools = Array.from({ length: 8 }, (_, i) => `tool_${i}`)
    const lines = [
      yield* latency("session write (end of a turn)", (i) =>
        sessions.put(`s${Math.abs(i) % 200}`, { accumulated: tools, latest: tools.slice(0, 3) })),
      yield* latency("session read (start of a turn)", (i) =>
        sessions.get(`s${Math.abs(i) % 200}`)),
      yield* latency("audit append (one call)", (i) =>
        audit.record({
          _tag: "Call",
          at: Date.now(),
          turnId: "bench",
          sessionId: `s${i}`,
          path: [],
          callId: `c${i}`,
          toolName: "tool_1",
          toolId: "tool_1",
          source: "bench",
          outcome: "ok",
          durationMs: 1
        }))
    ]
    console.log(`\n${label} (${Database.describe(location)})`)
    for (const line of lines) console.log(`  ${line}`)
  }).pipe(Effect.scoped, Effect.provide(Database.layer(location)))

const sizeOf = (dir: string): number => {
  let total = 0
  for (const entry of Fs.readdirSync(dir, { withFileTypes: true })) {
    const path = Path.join(dir, entry.name)
    total += entry.isDirectory() ? sizeOf(path) : entry.isFile() ? Fs.statSync(path).size : 0
  }
  return total
}

/** The installed package's folder (found from its main entry: not every package exports package.json). */
const packageDir = (name: string) => {
  let dir = Path.dirname(createRequire(import.meta.url).resolve(name))
  while (!Fs.existsSync(Path.join(dir, "package.json"))) dir = Path.dirname(dir)
  return dir
}

const program = Effect.gen(function*() {
  console.log(`tool-search store: costs on this machine (${Os.cpus().length} cores, Node ${process.version})`)
  for (const name of ["@electric-sql/pglite", "@effect/sql-pg"]) {
    console.log(`  install: ${name} ${(sizeOf(packageDir(name)) / 1e6).toFixed(1)} MB on disk`)
  }
  const dir = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "tool-search-bench-")), "db")
  const embedded: Database.Location = { _tag: "Embedded", path: dir }
  console.log(`  open a new embedded directory (initdb + migrations): ${ms(yield* opened(embedded))}`)
  console.log(`  open it again: ${ms(yield* opened(embedded))}`)
  console.log(`  embedded directory on disk: ${(sizeOf(dir) / 1e6).toFixed(1)} MB`)
  console.log(`  open an in-memory database: ${ms(yield* opened({ _tag: "Memory" }))}`)
  // A process that opens the embedded database through the store (a new directory is created by a
  // first PGlite and opened anew: initdb's memory stays with the instance that ran it), resident
  // memory after a collection (V8 frees the closed instance's memory at its next one).
  const openIn = (path: string) => {
    const started = performance.now()
    const rss = execFileSync(process.execPath, [
      "--expose-gc",
      "--input-type=module",
      "-e",
      `const { Database } = await import(${JSON.stringify(packageDir("@tool-search/store") + "/dist/src/index.js")});
       const { Effect, Layer } = await import(${JSON.stringify(packageDir("effect") + "/dist/index.js")});
       await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
         yield* Layer.build(Database.layer({ _tag: "Embedded", path: ${JSON.stringify(path)} }))
         globalThis.gc(); yield* Effect.sleep("200 millis"); globalThis.gc()
         console.log(process.memoryUsage().rss)
       })))`
    ], { encoding: "utf8" })
    return { ms: performance.now() - started, rss: Number(rss.trim().split("\n").pop()) }
  }
  const fresh = openIn(Path.join(Path.dirname(dir), "fresh"))
  const existing = openIn(dir)
  console.log(
    `  a process that opens a new embedded directory: ${ms(fresh.ms)}, ${(fresh.rss / 1e6).toFixed(0)} MB resident; ` +
      `an existing one: ${ms(existing.ms)}, ${(existing.rss / 1e6).toFixed(0)} MB resident`
  )
  yield* operations("embedded", embedded)
  const url = process.argv[2]
  if (url !== undefined && url.startsWith("postgres")) {
    const server: Database.Location = { _tag: "Postgres", url: Redacted.make(url) }
    console.log(`\n  open a PostgreSQL server connection (+ migrations): ${ms(yield* opened(server))}`)
    yield* operations("postgresql", server)
  }
  Fs.rmSync(Path.dirname(dir), { recursive: true, force: true })
})

Effect.runPromise(program).catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e))
  process.exitCode = 1
})
