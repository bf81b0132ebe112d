/**
 * `npm run bench:gateway [-- postgres://…]`: what the gateway costs.
 *
 * 1. The regex budget that keeps one session's search from stalling the others: a pattern with
 *    counted repetitions over 100k generated tool names, with and without the budget, and how long
 *    another fiber waits while the search runs. (What a gateway search loads is the agent's "no
 *    good match" rule: its figures are `npm run bench -- --min-score`.)
 * 2. The database on the request path: `tool-search serve --http` (a real process) in front of one
 *    upstream `echo` tool, without a database, on the embedded engine, and on the PostgreSQL server
 *    given (a scratch database is fine: the bench creates its own and drops it), each at 1 and 200
 *    clients of the official SDK calling `echo` one call after another: calls per second and the
 *    latency percentiles each client saw. On PostgreSQL, the statements the gateway sent per request
 *    (counted on the wire by a proxy between the gateway and the server): per `tools/list`, per
 *    `tools/call`, per `ToolSearch`, with the transactions among them.
 *
 * Environment: BENCH_CLIENTS (default `1,200`), BENCH_SECONDS (default 5 per run), BENCH_ROUNDS (default
 * 5): the modes' gateways run at once and take turns, round after round, and the medians are
 * reported (a shared machine's load moves between runs; turns spread it over every mode).
 * Wall-clock figures are for this machine, printed, never asserted.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { SearchDocument } from "@tool-search/core"
import { RegexIndex } from "@tool-search/core/internal/bench"
import { Effect, Fiber } from "effect"
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Generate from "./Generate.js"

// -----------------------------------------------------------------------------
// 1. The regex budget
// -----------------------------------------------------------------------------

const regexBudget = Effect.gen(function*() {
  const tools = Generate.catalog(100_000)
  const docs = tools.map(SearchDocument.fromTool)
  const pattern = "(.{0,30}){10}x"
  console.log(`## Regex budget: '${pattern}' over ${tools.length} generated names\n`)
  for (
    const [label, maxSteps] of [["with the budget (default)", RegexIndex.MAX_STEPS], [
      "without a budget",
      Infinity
    ]] as const
  ) {
    const index = yield* RegexIndex.make({ maxSteps })
    index.add(docs)
    // another session's request: how long it waits behind this search
    let waited = 0
    const started = performance.now()
    const search = yield* Effect.forkChild(Effect.result(index.search({ text: pattern, limit: 5, accept: () => true })))
    const ping = yield* Effect.forkChild(Effect.sync(() => {
      waited = performance.now() - started
    }))
    const outcome = yield* Fiber.join(search)
    const elapsed = performance.now() - started
    yield* Fiber.join(ping)
    const what = outcome._tag === "Failure"
      ? /stopped after (\d+) steps/.exec(outcome.failure.message)?.[0] ?? outcome.failure.message
      : `${outcome.success.length} hits`
    console.log(`- ${label}: ${elapsed.toFixed(0)} ms (${what}); a concurrent fiber waited ${waited.toFixed(1)} ms`)
  }
  const ordinary = yield* RegexIndex.make({})
  ordinary.add(docs)
  const started = performance.now()
  const hits = yield* ordinary.search({ text: "send.*message", limit: 5, accept: () => true }).pipe(Effect.orDie)
  console.log(
    `- an ordinary pattern ('send.*message'): ${(performance.now() - started).toFixed(0)} ms, ${hits.length} hits`
  )
})

// -----------------------------------------------------------------------------
// 2. The database on the request path
// -----------------------------------------------------------------------------

const root = new URL("../../", import.meta.url).pathname
const bin = Path.join(root, "packages/cli/bin/tool-search.js")
const echo = Path.join(root, "packages/cli/test/fixtures/counting-server.mjs")

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN

/** A `tool-search serve --http 0` process; resolves once it listens and its upstream is ready. */
const serve = async (env: Record<string, string>) => {
  const child = spawn(process.execPath, [bin, "serve", "--http", "0", "--upstream", `echo=node ${echo}`], {
    // one tool loaded at a time: each ToolSearch of the other tool is a change of the session
    // (deferred always: the server's two tools are loaded by a search, as many would be)
    env: {
      ...process.env,
      // the clients are one principal (no token): its quotas as large as the gateway's
      TOOL_SEARCH_MAX_SESSIONS: "1000",
      TOOL_SEARCH_MAX_PRINCIPAL_SESSIONS: "1000",
      TOOL_SEARCH_MAX_PRINCIPAL_CALLS: "1000",
      TOOL_SEARCH_MAX_LOADED_TOOLS: "1",
      TOOL_SEARCH_DEFER: "always",
      ...env
    },
    stdio: ["ignore", "ignore", "pipe"]
  })
  // a bench that fails midway leaves no gateway behind
  process.once("exit", () => child.kill("SIGTERM"))
  let err = ""
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString()
      const listening = /listening on (http:\/\/\S+)/.exec(err)
      if (listening !== null && /MCP server 'echo' is ready/.test(err)) resolve(listening[1] as string)
    })
    child.once("exit", (code) => reject(new Error(`the gateway exited with ${code}: ${err}`)))
  })
  return {
    url,
    /** The process's CPU time so far, in milliseconds (Linux: /proc). */
    cpu: () => {
      try {
        const stat = Fs.readFileSync(`/proc/${child.pid}/stat`, "utf8")
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
        return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 // utime + stime, at 100 ticks/s
      } catch {
        return Number.NaN
      }
    },
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve())
        child.kill("SIGTERM")
      })
  }
}

/** `n` clients, each with `echo` loaded (connected 20 at a time, each tried up to 3 times). */
const clients = async (url: string, n: number) => {
  const connect = async (attempt = 1): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> => {
    try {
      const client = new Client({ name: "bench", version: "1" })
      const transport = new StreamableHTTPClientTransport(new URL(url))
      await client.connect(transport)
      await client.callTool({ name: "ToolSearch", arguments: { query: "select:echo" } })
      return { client, transport }
    } catch (e) {
      if (attempt >= 3) throw e
      await sleep(500)
      return connect(attempt + 1)
    }
  }
  const all: Array<{ client: Client; transport: StreamableHTTPClientTransport }> = []
  for (let i = 0; i < n; i += 20) {
    all.push(...await Promise.all(Array.from({ length: Math.min(20, n - i) }, () => connect())))
  }
  return all
}

/** Every client calls `echo`, one call after another, for `seconds`: calls per second and latencies. */
const load = async (sessions: Awaited<ReturnType<typeof clients>>, seconds: number) => {
  const latencies: Array<number> = []
  const end = performance.now() + seconds * 1000
  const started = performance.now()
  await Promise.all(sessions.map(async ({ client }, c) => {
    for (let n = 0; performance.now() < end; n++) {
      const t = performance.now()
      await client.callTool({ name: "echo", arguments: { token: `${c}-${n}` } })
      latencies.push(performance.now() - t)
    }
  }))
  const elapsed = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  return {
    calls: latencies.length,
    perSecond: latencies.length / elapsed,
    p50: percentile(latencies, 0.5),
    p95: percentile(latencies, 0.95)
  }
}

/**
 * A proxy between the gateway and the PostgreSQL server that counts, on the wire, the statements the
 * gateway sends: each Execute (extended protocol) or simple Query, and among them the transactions
 * (BEGIN), by the text of the statement each Execute runs.
 */
const countingProxy = async (target: URL) => {
  const counts = { statements: 0, transactions: 0 }
  const server = Net.createServer((client) => {
    const upstream = Net.connect(Number(target.port || 5432), target.hostname)
    client.pipe(upstream)
    upstream.pipe(client)
    client.on("error", () => upstream.destroy())
    upstream.on("error", () => client.destroy())
    let buffer = Buffer.alloc(0)
    let started = false
    const prepared = new Map<string, string>() // statement name → text
    let unnamed = ""
    let portal = ""
    client.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk])
      for (;;) {
        if (!started) {
          if (buffer.length < 8) return
          const length = buffer.readInt32BE(0)
          if (buffer.length < length) return
          const code = buffer.readInt32BE(4)
          buffer = buffer.subarray(length)
          if (code !== 80877103 && code !== 80877104) started = true // not an SSL or GSS request
          continue
        }
        if (buffer.length < 5) return
        const type = String.fromCharCode(buffer[0] as number)
        const length = buffer.readInt32BE(1)
        if (buffer.length < 1 + length) return
        const body = buffer.subarray(5, 1 + length)
        buffer = buffer.subarray(1 + length)
        const cstrings = () => body.toString("utf8").split("\0")
        if (type === "P") {
          const [name = "", text = ""] = cstrings()
          if (name === "") unnamed = text
          else prepared.set(name, text)
        } else if (type === "B") {
          const [, name = ""] = cstrings()
          portal = name === "" ? unnamed : prepared.get(name) ?? ""
        } else if (type === "E") {
          counts.statements++
          if (/^\s*BEGIN/i.test(portal)) counts.transactions++
        } else if (type === "Q") {
          counts.statements++
          if (/^\s*BEGIN/i.test(cstrings()[0] ?? "")) counts.transactions++
        }
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
  const port = (server.address() as Net.AddressInfo).port
  const url = new URL(target.toString())
  url.hostname = "127.0.0.1"
  url.port = String(port)
  return { url: url.toString(), counts, close: () => server.close() }
}

/** A scratch database on the server at `url`, dropped by `drop`. */
const scratch = async (url: string) => {
  const name = `tool_search_bench_${process.pid}`
  const { PgClient } = await import("@effect/sql-pg")
  const { Redacted } = await import("effect")
  const admin = (statement: string) =>
    Effect.runPromise(Effect.scoped(
      Effect.gen(function*() {
        const sql = yield* PgClient.PgClient
        yield* sql.unsafe(statement)
      }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))
    ))
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await admin(`CREATE DATABASE ${name}`)
  const target = new URL(url)
  target.pathname = `/${name}`
  return { url: target, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const median = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

const state = async (postgres: string | undefined) => {
  const counts = (process.env.BENCH_CLIENTS ?? "1,200").split(",").map(Number).filter((n) => n > 0)
  const seconds = Number(process.env.BENCH_SECONDS ?? "5")
  const rounds = Number(process.env.BENCH_ROUNDS ?? "5")
  console.log(
    `\n## The database on the request path: ${counts.join(" and ")} clients; ${rounds} rounds of ${seconds} s per ` +
      `mode, the modes taking turns (medians) (${Os.cpus().length} cores, Node ${process.version}; load average ` +
      `${Os.loadavg().map((l) => l.toFixed(1)).join(" ")}; the clients run in this process)\n`
  )
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "tool-search-bench-gateway-"))
  const database = postgres === undefined ? undefined : await scratch(postgres)
  const proxy = database === undefined ? undefined : await countingProxy(database.url)
  const modes: ReadonlyArray<readonly [string, Record<string, string>]> = [
    ["no database", {}],
    ["embedded", { TOOL_SEARCH_DATABASE: Path.join(dir, "db"), TOOL_SEARCH_JOURNAL: Path.join(dir, "journal-e") }],
    ...(proxy === undefined
      ? []
      : [
        ["postgresql", { TOOL_SEARCH_DATABASE: proxy.url, TOOL_SEARCH_JOURNAL: Path.join(dir, "journal-p") }] as const
      ])
  ]
  // every mode's gateway at once, so that the rounds take turns under the same conditions
  const gateways = await Promise.all(
    modes.map(([mode, env]) =>
      serve({ TOOL_SEARCH_SESSION_SECRET_FILE: Path.join(dir, `secret-${mode}`), ...env }).then((g) => ({ mode, ...g }))
    )
  )
  const rows: Array<
    { mode: string; clients: number; perSecond: number; p50: number; p95: number; cpuPerCall: number }
  > = []
  for (const n of counts) {
    const sessions = await Promise.all(gateways.map((g) => clients(g.url, n)))
    const results = gateways.map(() => [] as Array<Awaited<ReturnType<typeof load>> & { cpuPerCall: number }>)
    for (const [i] of gateways.entries()) await load(sessions[i]!, Math.min(2, seconds)) // warm up
    for (let r = 0; r < rounds; r++) {
      for (const [i, g] of gateways.entries()) {
        await sleep(1500) // what the last run left to write, written
        const cpuBefore = g.cpu()
        const result = await load(sessions[i]!, seconds)
        await sleep(1500)
        results[i]!.push({ ...result, cpuPerCall: (g.cpu() - cpuBefore) / result.calls })
      }
    }
    for (const [i, g] of gateways.entries()) {
      const runs = results[i]!
      const row = {
        mode: g.mode,
        clients: n,
        perSecond: median(runs.map((x) => x.perSecond)),
        p50: median(runs.map((x) => x.p50)),
        p95: median(runs.map((x) => x.p95)),
        cpuPerCall: median(runs.map((x) => x.cpuPerCall))
      }
      rows.push(row)
      console.log(
        `- ${g.mode}, ${n} client(s): ${row.perSecond.toFixed(0)} calls/s (runs ${
          runs.map((x) => x.perSecond.toFixed(0)).join(", ")
        }); p50 ${row.p50.toFixed(2)} ms, p95 ${row.p95.toFixed(2)} ms; the gateway's CPU ${
          row.cpuPerCall.toFixed(3)
        } ms per call`
      )
    }
    const pg = gateways.findIndex((g) => g.mode === "postgresql")
    if (pg >= 0 && proxy !== undefined && n === counts[0]) {
      // statements per request, by kind, counted on the wire once the writer has written (≤ 1 s)
      const per = async (label: string, times: number, request: () => Promise<unknown>) => {
        await sleep(1500)
        const before = { ...proxy.counts }
        for (let i = 0; i < times; i++) await request()
        await sleep(1500)
        const statements = (proxy.counts.statements - before.statements) / times
        const transactions = (proxy.counts.transactions - before.transactions) / times
        console.log(
          `  - postgresql, per ${label}: ${statements.toFixed(2)} statements, ${
            transactions.toFixed(2)
          } transactions (${times} requests from one client, the uses written once a second included)`
        )
      }
      const { client } = sessions[pg]![0]!
      await per("tools/list", 200, () => client.listTools())
      await per("tools/call of a loaded tool", 200, () => client.callTool({ name: "echo", arguments: { token: "x" } }))
      let search = 0
      await per(
        "ToolSearch that loads one tool and unloads another (a session change)",
        50,
        () =>
          client.callTool({
            name: "ToolSearch",
            arguments: { query: `select:${search++ % 2 === 0 ? "echo2" : "echo"}` }
          })
      )
    }
    await Promise.all(sessions.flat().map(({ transport }) => transport.close().catch(() => undefined)))
  }
  for (const g of gateways) await g.stop()
  console.log("\n| clients | mode | calls/s | of no database | p50 | p95 | p50 overhead | gateway CPU per call |")
  console.log("|---|---|---|---|---|---|---|---|")
  for (const row of rows) {
    const base = rows.find((r) => r.mode === "no database" && r.clients === row.clients)
    console.log(
      `| ${row.clients} | ${row.mode} | ${row.perSecond.toFixed(0)} | ${
        base === undefined ? "" : `${((100 * row.perSecond) / base.perSecond).toFixed(0)}%`
      } | ${row.p50.toFixed(2)} ms | ${row.p95.toFixed(2)} ms | ${
        base === undefined ? "" : `${(row.p50 - base.p50).toFixed(2)} ms`
      } | ${row.cpuPerCall.toFixed(3)} ms |`
    )
  }
  proxy?.close()
  await database?.drop()
  Fs.rmSync(dir, { recursive: true, force: true })
}

const postgres = process.argv.slice(2).find((a) => a.startsWith("postgres"))
const only = process.argv.includes("--state") ? "state" : process.argv.includes("--regex") ? "regex" : "all"

Effect.runPromise(only === "state" ? Effect.void : regexBudget)
  .then(() => only === "regex" ? undefined : state(postgres))
  .then(() => process.exit(0), (e) => {
    console.error(e)
    process.exit(1)
  })
