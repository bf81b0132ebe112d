import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Option } from "effect"
import { TestConsole } from "effect/testing"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { named, parseSince, toJson, toLine, visible } from "../src/commands/Audit.js"
import { runCli } from "./runCli.js"

const tempDir = () => Fs.mkdtempSync(Path.join(Os.tmpdir(), "tool-search-audit-"))

describe("tool-search audit", () => {
  // the live clock: the database dates what it writes with its own, and refuses entries dated decades ago
  it.live(
    "shows the demo's reveals and calls when the demo ran with a database (TOOL_SEARCH_DATABASE)",
    () =>
      Effect.gen(function*() {
        const database = Path.join(tempDir(), "db")
        const demo = yield* runCli(["demo", "--json"], { TOOL_SEARCH_DATABASE: database })
        assert.isTrue(Exit.isSuccess(demo.exit), demo.err)
        const events = demo.out.split("\n").map((l) => JSON.parse(l))
        const searches = events.filter((e) => e.type === "search")
        const calls = events.filter((e) => e.type === "tool-result")

        const json = yield* runCli(["audit", "--json", "--session", "demo"], { TOOL_SEARCH_DATABASE: database })
        assert.isTrue(Exit.isSuccess(json.exit), json.err)
        const entries = json.out.split("\n").map((l) => JSON.parse(l))
        const reveals = entries.filter((e) => e.type === "reveal")
        const recorded = entries.filter((e) => e.type === "call")
        // every search and every call of the demo, nothing else
        assert.deepStrictEqual(
          reveals.map((r) => r.query).sort(),
          searches.map((s) => s.query).sort()
        )
        assert.strictEqual(recorded.length, calls.length)
        assert.deepStrictEqual(
          recorded.map((c) => `${c.tool}:${c.outcome}`).sort(),
          calls.map((c) => `${c.name}:${c.failure ?? "ok"}`).sort()
        )
        assert.isTrue(recorded.some((c) => c.outcome === "not-active"))
        assert.isTrue(recorded.some((c) => c.path.length > 0)) // the forks' calls
        for (const c of recorded) assert.notProperty(c, "arguments") // payloads are off by default
        const summary = events[events.length - 1]
        assert.strictEqual(summary.type, "summary")
        assert.strictEqual(new Set(entries.map((e) => e.turn)).size, summary.turns.length) // a turn id per turn

        const human = yield* runCli(["audit", "--database", database, "--since", "1 hour", "--limit", "5"])
        assert.isTrue(Exit.isSuccess(human.exit), human.err)
        const lines = human.out.split("\n")
        assert.strictEqual(lines.length, 5)
        assert.match(lines[0]!, /^\d{4}-\d{2}-\d{2} [\d:.]+ {2}session demo · turn [0-9a-f]{8}/)
        assert.isTrue(lines.some((l) => / reveal {2}ToolSearch "/.test(l)))
      }).pipe(Effect.provide(TestConsole.layer)),
    120_000
  )

  it.effect("refuses what it cannot read, in one line", () =>
    Effect.gen(function*() {
      const missing = Path.join(tempDir(), "never-written")
      const none = yield* runCli(["audit", "--database", missing])
      assert.isTrue(Exit.isFailure(none.exit))
      assert.include(none.err, `no database at ${missing} yet`)
      assert.isFalse(Fs.existsSync(missing)) // reading creates nothing
      const memory = yield* runCli(["audit"], { TOOL_SEARCH_DATABASE: "memory" })
      assert.include(memory.err, "an in-memory database ends with its process")
      const scheme = yield* runCli(["audit", "--database", "mysql://db/x"])
      assert.include(scheme.err, "--database")
      assert.include(scheme.err, "only postgres:// URLs are supported")
      const since = yield* runCli(["audit", "--database", tempDir(), "--since", "yesterday-ish"])
      assert.include(since.err, "--since: expected a time")
    }))

  it.effect("demo, chat and run read their database in one place: --database, else TOOL_SEARCH_DATABASE, else none", () =>
    Effect.gen(function*() {
      const read = (flag: Option.Option<string>, env: Record<string, string>) =>
        named("demo", flag).pipe(Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env })))
      const where = (settings: Option.Option<{ readonly database: { readonly _tag: string } }>) =>
        Option.map(settings, (s) => s.database._tag)
      assert.deepStrictEqual(yield* read(Option.none(), {}), Option.none())
      assert.deepStrictEqual(
        where(yield* read(Option.none(), { TOOL_SEARCH_DATABASE: "memory" })),
        Option.some("Memory")
      )
      const dir = tempDir()
      assert.deepStrictEqual(
        where(yield* read(Option.some(dir), { TOOL_SEARCH_DATABASE: "memory" })),
        Option.some("Embedded")
      )
      const bad = yield* Effect.flip(read(Option.none(), { TOOL_SEARCH_DATABASE: "mysql://db/x" }))
      assert.include(bad.message, "TOOL_SEARCH_DATABASE")
      assert.strictEqual(bad.subject, "settings")
    }))

  it("--since reads times and durations back from now", () => {
    const now = Date.parse("2026-11-30T12:00:00Z")
    assert.strictEqual(parseSince("2 hours", now), now - 2 * 3_600_000)
    assert.strictEqual(parseSince("2026-11-30T10:00:00Z", now), Date.parse("2026-11-30T10:00:00Z"))
    assert.strictEqual(parseSince("2026-11-29", now), Date.parse("2026-11-29"))
    assert.isString(parseSince("soon", now))
  })

  it("a name or a query cannot forge a line: control characters and text-moving ones are shown escaped", () => {
    const forged = "rm_rf\n2026-12-01  call  x  ok\u001b[2K\u202e"
    const line = toLine({
      _tag: "Call",
      at: 0,
      turnId: "turn\r1234",
      sessionId: "s\u2028x",
      path: [],
      callId: "1",
      toolName: forged,
      toolId: null,
      source: "evil\u001b]0;title\u0007",
      target: "a\\nb",
      outcome: "ok",
      durationMs: 1,
      principal: "alice\tbob",
      recordedAt: 3_600_000
    })
    assert.notMatch(line, /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/)
    assert.strictEqual(line.split("\n").length, 1)
    assert.include(line, "rm_rf\\n2026-12-01  call")
    assert.include(line, "\\x1b[2K\\u202e")
    assert.include(line, "a\\\\nb") // a literal backslash-n stays distinguishable from an escaped newline
    assert.include(line, " · alice\\tbob")
    assert.include(line, "(written 1.0 h later)")
    assert.strictEqual(visible("plain text: été"), "plain text: été")
    // JSON keeps the exact text (JSON escapes control characters itself)
    assert.strictEqual(
      JSON.parse(JSON.stringify(toJson({ _tag: "Gap", at: 0, lostFrom: 0, lostUntil: 0, entries: null, reason: "x" })))
        .entries,
      null
    )
    assert.match(
      toLine({ _tag: "Gap", at: 0, lostFrom: 0, lostUntil: 0, entries: null, reason: "torn\njournal" }),
      /an unknown number of entries .*torn\\njournal/
    )
  })
})
