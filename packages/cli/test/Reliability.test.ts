// The reliability suite: `serve --database` under what production does to a database — connections
// cut during traffic (`pg_terminate_backend`: a failover, a pooler, an idle timeout), a PostgreSQL
// restart and an outage during traffic, a full disk, a stop (SIGTERM) and a kill (`kill -9`) of the
// gateway while the database is down, two instances racing for one session. Each scenario drives
// clients of the official SDK over HTTP and then compares what the clients saw with what ran
// upstream and with what the audit holds: no call that ran fails at its client, and every call
// that ran is in the audit exactly once (or, after a kill, as a call whose outcome never came).
//
// The runs here are short. `npm run bench:reliability` runs the same scenarios longer (20 s of
// traffic, a 15 s outage: TOOL_SEARCH_RELIABILITY_SECONDS, TOOL_SEARCH_RELIABILITY_OUTAGE) and
// prints their figures (lines starting with `reliability:`).
import { assert, describe, it } from "@effect/vitest"
import { Audit, Database, WriteBehind } from "@tool-search/store"
import { Context, Effect, Exit, Layer, Redacted, Scope } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, beforeAll } from "vitest"
import * as Cluster from "./cluster.js"
import {
  alice,
  call,
  callNow,
  connect,
  connectNow,
  gateway,
  names,
  storeSettings,
  until,
  upstream
} from "./databaseGateway.js"
import { node, start, upstream as upstreamFlag } from "./gateway.js"

const SECONDS = Number(process.env.TOOL_SEARCH_RELIABILITY_SECONDS ?? "1.5")
const OUTAGE = Number(process.env.TOOL_SEARCH_RELIABILITY_OUTAGE ?? "1")
const CLIENTS = Number(process.env.TOOL_SEARCH_RELIABILITY_CLIENTS ?? "4")
const CUT_EVERY = Number(process.env.TOOL_SEARCH_RELIABILITY_CUT_EVERY ?? "0.3")

if (Cluster.unavailable !== undefined) {
  console.warn(`the reliability suite is skipped: ${Cluster.unavailable}`)
}

const counting = new URL("./fixtures/counting-server.mjs", import.meta.url).pathname

/** A figure for the bench's report (the test asserts properties, never these numbers). */
const report = (line: string) => console.log(`reliability: ${line}`)

// -----------------------------------------------------------------------------
// Traffic and what it left
// -----------------------------------------------------------------------------

/** What the clients saw: the tokens of calls answered, and of calls that failed (with why). */
interface Seen {
  readonly ok: Array<string>
  readonly failed: Array<{ readonly token: string; readonly error: string }>
}

/**
 * When traffic runs: from `start` (the clients are connected) for `seconds`, or, without seconds,
 * until `stop`. `ready` resolves at the start. `disconnect` closes the clients' connections at
 * once, as a client does that knows its server is gone: a call in flight then fails at once
 * instead of at the SDK's request timeout (60 s), which is all a killed server leaves it.
 */
const window = (seconds?: number) => {
  let end = Number.POSITIVE_INFINITY
  let started = () => {}
  const ready = new Promise<void>((resolve) => {
    started = resolve
  })
  const closers: Array<() => Promise<void>> = []
  return {
    ready,
    start: () => {
      if (seconds !== undefined) end = Date.now() + seconds * 1000
      started()
    },
    stop: () => {
      end = 0
    },
    running: () => Date.now() < end,
    /** Registers how to close one client's connection (`traffic` does, for each of its sessions). */
    onDisconnect: (close: () => Promise<void>) => void closers.push(close),
    disconnect: () => Promise.all(closers.map((close) => close())).then(() => undefined)
  }
}
type Window = ReturnType<typeof window>

/**
 * `clients` sessions on `url`, each loading `echo` and then — once all are connected (the window
 * starts) — calling it with a fresh token, one call after another, while the window runs.
 */
const traffic = async (url: string, clients: number, prefix: string, during: Window): Promise<Seen> => {
  const seen: Seen = { ok: [], failed: [] }
  const sessions = await Promise.all(Array.from({ length: clients }, async () => {
    const session = await connectNow(url, alice)
    during.onDisconnect(() => session.transport.close().catch(() => undefined))
    await callNow(session.client, "ToolSearch", { query: "select:echo" })
    return session
  }))
  during.start()
  await Promise.all(sessions.map(async (session, c) => {
    for (let n = 0; during.running(); n++) {
      const token = `${prefix}-${c}-${n}`
      try {
        const result = await callNow(session.client, "echo", { token })
        if (result.isError || result.text !== token) seen.failed.push({ token, error: result.text })
        else seen.ok.push(token)
      } catch (e) {
        seen.failed.push({ token, error: e instanceof Error ? e.message : String(e) })
        if (!during.running()) break
      }
    }
    await session.transport.close().catch(() => undefined)
  }))
  return seen
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The `echo` calls the audit of `location` holds: answered (by token), and calls whose outcome never came. */
const audited = (location: Database.Location) =>
  Effect.gen(function*() {
    const entries = yield* Audit.readAt(location, { limit: 100_000, since: 0 })
    const tokens = new Map<string, number>()
    let unfinished = 0
    for (const e of entries) {
      if (e._tag !== "Call" || e.toolName !== "echo") continue
      if (e.outcome === "unfinished") {
        unfinished++
        continue
      }
      const token = (e.arguments as { readonly token?: string } | undefined)?.token ?? "?"
      tokens.set(token, (tokens.get(token) ?? 0) + 1)
    }
    const gaps = entries.flatMap((e) => e._tag === "Gap" ? [e] : [])
    return { tokens, unfinished, gaps }
  }).pipe(Effect.orDie)

/**
 * The comparison every scenario ends with: no call that ran failed at its client; every call that
 * ran is audited exactly once, as answered; nothing is audited that did not run.
 */
const compare = (
  name: string,
  seen: Seen,
  ran: ReadonlyArray<string>,
  audit: Effect.Success<ReturnType<typeof audited>>
) => {
  const ranSet = new Set(ran)
  const failedThatRan = seen.failed.filter((f) => ranSet.has(f.token))
  const twice = [...audit.tokens].filter(([, n]) => n > 1)
  const missing = ran.filter((t) => !audit.tokens.has(t))
  const phantom = [...audit.tokens.keys()].filter((t) => !ranSet.has(t))
  report(
    `${name}: ${seen.ok.length} calls answered, ${seen.failed.length} failed at the client (${failedThatRan.length} of ` +
      `them had run upstream); ${ran.length} ran upstream; audit: ${audit.tokens.size} calls, ${twice.length} twice, ` +
      `${missing.length} missing, ${audit.unfinished} unfinished, ${audit.gaps.length} gap rows`
  )
  assert.deepStrictEqual(failedThatRan, [], "a call that ran upstream failed at its client")
  assert.deepStrictEqual(twice, [], "a call is in the audit twice")
  assert.deepStrictEqual(missing.slice(0, 10), [], "a call that ran is missing from the audit")
  assert.deepStrictEqual(phantom.slice(0, 10), [], "the audit has a call that never ran")
  assert.deepStrictEqual([...seen.ok].sort(), [...ran].sort(), "what the clients got is what ran")
  assert.isAbove(seen.ok.length, 0)
}

// -----------------------------------------------------------------------------
// Databases
// -----------------------------------------------------------------------------

let databases = 0

/** A new database on the server at `url`; its location. */
const freshDatabase = async (url: string): Promise<Database.Location> => {
  const name = `tool_search_reliability_${process.pid}_${databases++}`
  await Cluster.psql(url, `CREATE DATABASE ${name}`)
  const target = new URL(url)
  target.pathname = `/${name}`
  return { _tag: "Postgres", url: Redacted.make(target.toString()) }
}

const databaseName = (location: Database.Location) =>
  location._tag === "Postgres" ? new URL(Redacted.value(location.url)).pathname.slice(1) : ""

/**
 * A database layer on `location` built once (so the test can watch what it holds), as one gateway
 * process opens it, with a journal in a fresh directory.
 */
const openDatabase = (location: Database.Location, scope: Scope.Scope) =>
  Effect.gen(function*() {
    const journal = Fs.mkdtempSync(Path.join(Os.tmpdir(), "tool-search-journal-"))
    const context = yield* Layer.build(
      Database.layer(location, { timeout: "2 seconds", writeBehind: { journal } })
    ).pipe(Scope.provide(scope), Effect.orDie)
    const layer: Layer.Layer<Database.Database | SqlClient | WriteBehind.WriteBehind, Database.DatabaseUnavailable> =
      Layer.succeedContext(context)
    return { layer, writeBehind: Context.get(context, WriteBehind.WriteBehind), journal }
  })

// -----------------------------------------------------------------------------
// The scenarios
// -----------------------------------------------------------------------------

// -----------------------------------------------------------------------------
// The scenarios, on a PostgreSQL server of the suite's own (cut, stopped, restarted, its disk filled)
// -----------------------------------------------------------------------------

/** A small file system for the cluster, when this machine lets the test mount one (root, tmpfs). */
const mountSmall = (): string | undefined => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "tool-search-disk-"))
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=256m,mode=0777", "tmpfs", dir], { stdio: "ignore" })
    return dir
  } catch {
    Fs.rmSync(dir, { recursive: true, force: true })
    return undefined
  }
}

describe.skipIf(Cluster.unavailable !== undefined)(
  `reliability on a PostgreSQL server of the suite's own${
    Cluster.unavailable === undefined ? "" : ` (skipped: ${Cluster.unavailable})`
  }`,
  () => {
    let cluster: Cluster.Cluster
    let disk: string | undefined
    beforeAll(async () => {
      // TOOL_SEARCH_RELIABILITY_SIMULATE_DISK: the simulated full disk even where a tmpfs can be mounted
      disk = process.env.TOOL_SEARCH_RELIABILITY_SIMULATE_DISK === undefined ? mountSmall() : undefined
      cluster = await Cluster.make(disk)
    }, 180_000)
    afterAll(async () => {
      await cluster?.remove()
      if (disk !== undefined) {
        try {
          execFileSync("umount", ["-l", disk])
          Fs.rmSync(disk, { recursive: true, force: true })
        } catch {
          // left for the system to clean up
        }
      }
    }, 60_000)

    /**
     * Traffic against an in-process gateway on a fresh database of the cluster, while `disturb`
     * runs (from a third of the way in); then the comparison, and how long after the disturbance
     * ended the held entries took to be written.
     */
    const disturbed = (name: string, disturb: (location: Database.Location) => Promise<void>) =>
      Effect.gen(function*() {
        const location = yield* Effect.promise(() => freshDatabase(cluster.url))
        const work = upstream()
        const scope = yield* Scope.make()
        const db = yield* openDatabase(location, scope)
        const a = yield* gateway(db.layer, work, scope, undefined, storeSettings({ payloads: true }))
        const during = window(SECONDS + OUTAGE)
        let writeBack = Number.NaN
        const disturbance = (async () => {
          await during.ready
          await sleep((SECONDS * 1000) / 3)
          await disturb(location)
          writeBack = await until(async () => (await Effect.runPromise(db.writeBehind.held)).entries === 0)
        })()
        const seen = yield* Effect.promise(() => traffic(a.url, CLIENTS, name, during))
        yield* Effect.promise(() => disturbance)
        yield* Scope.close(scope, Exit.void)
        report(`${name}: what was held was written ${writeBack} ms after the database answered again`)
        compare(name, seen, work.calls.filter((c) => c.startsWith(`${name}-`)), yield* audited(location))
      })

    it.live(
      `PostgreSQL restarted during traffic from ${CLIENTS} clients`,
      () => disturbed("restart", () => cluster.restart()),
      { timeout: 180_000 }
    )

    it.live(`a ${OUTAGE} s PostgreSQL outage at full load`, () =>
      disturbed("outage", async () => {
        await cluster.stop("immediate")
        await sleep(OUTAGE * 1000)
        await cluster.start()
      }), { timeout: 180_000 })

    it.live("a full disk during traffic", () =>
      disturbed("disk", async (location) => {
        const dir = disk
        if (dir === undefined) {
          // no small file system here: the server's own answer to a full disk (SQLSTATE 53100), by a trigger
          report("disk: simulated (no tmpfs could be mounted): inserts answer SQLSTATE 53100 for the outage")
          const target = location._tag === "Postgres" ? Redacted.value(location.url) : ""
          await Cluster.psql(
            target,
            `CREATE FUNCTION full_disk() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$;
            CREATE TRIGGER full_disk BEFORE INSERT ON tool_search_audit_calls FOR EACH ROW EXECUTE FUNCTION full_disk()`
          )
          await sleep(OUTAGE * 1000)
          await Cluster.psql(target, "DROP TRIGGER full_disk ON tool_search_audit_calls")
          return
        }
        const filler = Path.join(dir, "filler")
        const free = Fs.statfsSync(dir)
        execFileSync("fallocate", ["-l", String(free.bavail * free.bsize), filler])
        report(`disk: ${dir} (tmpfs) filled for ${OUTAGE} s`)
        await sleep(OUTAGE * 1000)
        Fs.rmSync(filler)
      }), { timeout: 180_000 })

    /**
     * A gateway process on the cluster stopped by `signal` while the database is down, then a new
     * one started on the same journal: what the first held is written by the second.
     */
    const stoppedDuringOutage = (signal: "SIGTERM" | "SIGKILL") =>
      Effect.gen(function*() {
        const name = signal === "SIGTERM" ? "term" : "kill"
        const location = yield* Effect.promise(() => freshDatabase(cluster.url))
        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "tool-search-stop-"))
        const ran = Path.join(dir, "ran")
        const env = {
          TOOL_SEARCH_DATABASE: location._tag === "Postgres" ? Redacted.value(location.url) : "",
          TOOL_SEARCH_JOURNAL: Path.join(dir, "journal"),
          TOOL_SEARCH_SESSION_SECRET_FILE: Path.join(dir, "secret"),
          TOOL_SEARCH_DATABASE_TIMEOUT: "2 seconds",
          TOOL_SEARCH_AUDIT_PAYLOADS: "true",
          TOOL_SEARCH_DEFER: "always" // the server's two tools: loaded by a search, as many would be
        }
        // the file on its command line: a server the gateway starts gets none of the gateway's environment
        const args = ["--http", "0", "--upstream", upstreamFlag("echo", [node, counting, ran])]
        const first = start(args, env)
        const url = yield* Effect.promise(() => first.url())
        yield* Effect.promise(() => first.ready("echo"))
        const during = window()
        const clients = traffic(url, CLIENTS, name, during)
        yield* Effect.promise(async () => {
          await during.ready
          await sleep((SECONDS * 1000) / 2)
          await cluster.stop("immediate")
          await sleep(OUTAGE * 1000) // calls go on meanwhile
          first.child.kill(signal)
          await first.exited
          during.stop()
          // killed, the gateway answers no call in flight: its clients learn it is gone (a stopped
          // one answers them before it exits, so its clients are left to end on their own)
          if (signal === "SIGKILL") await during.disconnect()
        })
        const seen = yield* Effect.promise(() => clients)
        const journals = Fs.readdirSync(env.TOOL_SEARCH_JOURNAL).filter((f) => f.endsWith(".journal"))
        assert.isAbove(journals.length, 0, "what was held is in the journal")
        yield* Effect.promise(() => cluster.start())
        const ranUpstream = Fs.readFileSync(ran, "utf8").split("\n").filter((t) => t.startsWith(`${name}-`))
        // the next process writes what the first held
        const second = start(args, env)
        yield* Effect.promise(() => second.url())
        const wrote = yield* Effect.promise(() =>
          until(async () => {
            const audit = await Effect.runPromise(audited(location))
            return audit.tokens.size + audit.unfinished >= ranUpstream.length
          }, 120)
        )
        yield* Effect.promise(() => second.stop())
        report(`${signal} during an outage: the next process wrote what was held within ${wrote} ms of starting`)
        const audit = yield* audited(location)
        if (signal === "SIGTERM") return compare(`SIGTERM during an outage`, seen, ranUpstream, audit)
        // killed: calls in flight ran upstream without an answer; each is in the audit as unfinished.
        // An intent is recorded right before the upstream is asked, so a call killed in between is
        // unfinished without having run: unfinished entries may outnumber the calls that ran
        // unanswered, never the calls the clients were left without an answer for.
        const answered = new Set(seen.ok)
        const inFlight = ranUpstream.filter((t) => !answered.has(t))
        report(
          `kill -9 during an outage: ${seen.ok.length} answered, ${inFlight.length} in flight at the kill; audit: ` +
            `${audit.tokens.size} calls, ${audit.unfinished} unfinished, ${audit.gaps.length} gap rows`
        )
        for (const t of seen.ok) assert.strictEqual(audit.tokens.get(t), 1, t)
        const ranSet = new Set(ranUpstream)
        for (const t of audit.tokens.keys()) assert.isTrue(ranSet.has(t), `audited as answered but never ran: ${t}`)
        assert.isAtLeast(audit.tokens.size + audit.unfinished, ranUpstream.length, "every call that ran is there")
        assert.isAtMost(audit.unfinished, seen.failed.length, "no unfinished call the clients were not left without")
        assert.deepStrictEqual(audit.gaps, [])
      })

    it.live("SIGTERM during an outage: nothing held is lost", () => stoppedDuringOutage("SIGTERM"), {
      timeout: 240_000
    })

    it.live(
      "kill -9 during an outage: nothing held is lost (a call in flight is there as unfinished)",
      () => stoppedDuringOutage("SIGKILL"),
      { timeout: 240_000 }
    )

    it.live(
      `connections cut every ${CUT_EVERY} s during ${SECONDS} s of traffic from ${CLIENTS} clients: nothing fails, nothing is lost or written twice`,
      () =>
        Effect.gen(function*() {
          const location = yield* Effect.promise(() => freshDatabase(cluster.url))
          const work = upstream()
          const scope = yield* Scope.make()
          const a = yield* gateway(
            Database.layer(location, { timeout: "2 seconds" }),
            work,
            scope,
            undefined,
            storeSettings({ payloads: true })
          )
          const during = window(SECONDS)
          let cuts = 0
          const cutter = (async () => {
            await during.ready
            while (during.running()) {
              await sleep(CUT_EVERY * 1000)
              const killed = await Cluster.psql(
                cluster.url,
                `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
             WHERE datname = '${databaseName(location)}' AND application_name = 'tool-search'`
              )
              cuts += Number(killed)
            }
          })()
          const seen = yield* Effect.promise(() => traffic(a.url, CLIENTS, "cut", during))
          yield* Effect.promise(() => cutter)
          yield* Scope.close(scope, Exit.void) // closing writes what is held
          report(`connections cut: ${cuts} backends terminated in ${SECONDS} s`)
          assert.isAbove(cuts, 0)
          compare("connections cut", seen, work.calls.filter((c) => c.startsWith("cut-")), yield* audited(location))
        }),
      { timeout: 120_000 }
    )

    it.live(
      "they race: loads of both are kept, a third resumes with both, a fresh session works on either at once, an unload reaches the other",
      () =>
        Effect.gen(function*() {
          const location = yield* Effect.promise(() => freshDatabase(cluster.url))
          const work = upstream()
          const limits = { maxSessions: 100, sessionIdleTimeout: 3600, maxLoadedTools: 2 }
          const open = () =>
            Effect.flatMap(Scope.make(), (scope) => gateway(Database.layer(location), work, scope, limits))
          const a = yield* open()
          const b = yield* open()
          const c = yield* open() // resumes each session from the store (it never served it)
          // a session opened on one instance is served by the other at once
          const rounds = Math.round(Math.max(5, SECONDS * 5))
          let notFound = 0
          for (let i = 0; i < rounds; i++) {
            const onA = yield* connect(a.url, alice)
            const onB = yield* Effect.promise(() =>
              connectNow(b.url, alice, onA.id).then((s) => callNow(s.client, "ToolSearch", { query: "select:echo" }))
                .catch(() => undefined)
            )
            if (onB === undefined || onB.isError) notFound++
          }
          // two loads at the same moment, one on each instance: both kept
          let lostLoads = 0
          for (let i = 0; i < rounds; i++) {
            const onA = yield* connect(a.url, alice)
            const onB = yield* connect(b.url, alice, onA.id)
            yield* Effect.all([
              call(onA.client, "ToolSearch", { query: "select:send_email" }),
              call(onB.client, "ToolSearch", { query: "select:create_issue" })
            ], { concurrency: 2 })
            const onC = yield* connect(c.url, alice, onA.id)
            const resumed = yield* names(onC.client)
            if (!resumed.includes("send_email") || !resumed.includes("create_issue")) lostLoads++
          }
          report(
            `two instances: ${notFound} of ${rounds} fresh sessions not found on the other instance; ${lostLoads} of ${rounds} concurrent loads lost`
          )
          assert.strictEqual(notFound, 0)
          assert.strictEqual(lostLoads, 0)
          // an unload on one instance reaches the other's live session, and its client (whose event
          // stream is on the instance that initialized the session)
          const onA = yield* connect(a.url, alice)
          yield* call(onA.client, "ToolSearch", { query: "select:send_email,create_issue" })
          assert.includeMembers(yield* names(onA.client), ["send_email", "create_issue"])
          const onB = yield* connect(b.url, alice, onA.id)
          yield* call(onB.client, "ToolSearch", { query: "select:read_file" }) // at most 2: one is unloaded
          yield* Effect.promise(() => until(() => onA.listChanged() > 0))
          const after = yield* names(onA.client)
          assert.include(after, "read_file")
          assert.strictEqual(after.filter((n) => ["send_email", "create_issue"].includes(n)).length, 1)
          assert.deepStrictEqual(yield* names(onB.client), after)
        }),
      { timeout: 240_000 }
    )
  }
)
