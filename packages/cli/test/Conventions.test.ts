// The conventions every command follows: usage errors are one line on stderr with a hint and exit
// code 2, help marks each flag's default, `-` reads the catalog from standard input, Ctrl-C stops
// the work, bad tools can be skipped. Each command runs in process (`runCli`: the exit code and
// the output the binary's runtime would give); the real binary checks what only a process has: a
// usage error's exit code through the runtime, and a signal.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Services from "../src/demo/Services.js"
import { Cli } from "../src/index.js"
import { runBinary } from "./binary.js"
import { runCli } from "./runCli.js"

const dir = mkdtempSync(join(tmpdir(), "tool-search-conventions-"))
const lines = (tools: ReadonlyArray<object>) => tools.map((t) => JSON.stringify(t)).join("\n")
const tools = [
  { id: "t1", name: "slack_send_message", description: "Send a message to a Slack channel" },
  { id: "t2", name: "read_file", description: "Read a file from disk" }
]
const catalog = join(dir, "tools.jsonl")
writeFileSync(catalog, lines(tools))
const queries = join(dir, "queries.jsonl")
writeFileSync(queries, lines([{ id: "q1", query: "send a slack message", relevant: ["t1"] }]))

const commands = Cli.cli.subcommands.flatMap((group) => group.commands.map((c) => c.name))

/** Per command: a command line with one bad value, and one missing a required flag (if it has any). */
const cases: Readonly<
  Record<string, { readonly badValue: ReadonlyArray<string>; readonly missing?: ReadonlyArray<string> }>
> = {
  search: { badValue: ["search", "x", "--catalog", catalog, "--max", "many"], missing: ["search", "x"] },
  toc: { badValue: ["toc", "--catalog", catalog, "--strict=maybe"], missing: ["toc"] },
  // serve needs an upstream from --upstream or --config: neither flag is required on its own
  serve: { badValue: ["serve", "--upstream", "a=b", "--http", "eighty"] },
  demo: { badValue: ["demo", "--json=maybe"] },
  chat: { badValue: ["chat", "--max-iterations", "many"] },
  run: { badValue: ["run", "a task", "--max-iterations", "many"], missing: ["run"] },
  bench: {
    badValue: ["bench", "--tools", catalog, "--queries", queries, "--k", "ten"],
    missing: ["bench", "--tools", catalog]
  },
  "bench-executor": { badValue: ["bench-executor", "--turns", "many"] },
  "bench-disclosure": { badValue: ["bench-disclosure", "--system-prompt-tokens", "many"] },
  audit: { badValue: ["audit", "--limit", "many"] }
}

/** What a run printed and its exit code, in process or through the binary. */
type Run = { readonly status: number | null; readonly stdout: string; readonly stderr: string }

/** Runs the command line in process, as the binary would (`runCli`), with `input` on stdin. */
const inProcess = (argv: ReadonlyArray<string>, input?: string): Effect.Effect<Run> =>
  runCli(argv, {}, input === undefined ? {} : { input })

/** One line on stderr, naming the command, ending with the hint; nothing on stdout; exit code 2. */
const expectUsageError = (
  run: Run,
  command: string,
  what: RegExp
) => {
  assert.strictEqual(run.status, 2, `${command}: ${run.stderr}`)
  assert.strictEqual(run.stdout, "", `${command}: nothing on stdout`)
  const errorLines = run.stderr.trimEnd().split("\n")
  assert.lengthOf(errorLines, 1, `${command}: one line on stderr, got ${run.stderr}`)
  assert.match(errorLines[0] ?? "", what)
  assert.match(errorLines[0] ?? "", new RegExp(`\\(try 'tool-search ${command} --help'\\)$`))
}

describe("tool-search conventions", () => {
  it("the cases below cover every command", () => {
    assert.sameMembers(Object.keys(cases), commands)
  })

  it.effect("a bad value: one line on stderr with a hint, exit code 2, for every command", () =>
    Effect.gen(function*() {
      for (const command of commands) {
        expectUsageError(yield* inProcess(cases[command]?.badValue ?? []), command, /: invalid value for --/)
      }
    }))

  it.effect("an unknown flag or a missing required flag: the same one line, for every command", () =>
    Effect.gen(function*() {
      for (const command of commands) {
        const unknown = yield* runCli([command, "--no-such-flag"])
        assert.strictEqual(unknown.exit._tag, "Failure")
        assert.strictEqual(unknown.status, 2)
        assert.strictEqual(unknown.out, "")
        assert.strictEqual(
          unknown.err,
          `tool-search ${command}: unknown flag --no-such-flag (try 'tool-search ${command} --help')`
        )
        const missing = cases[command]?.missing
        if (missing === undefined) continue
        const run = yield* runCli(missing)
        assert.strictEqual(run.status, 2)
        assert.strictEqual(run.out, "")
        assert.match(
          run.err,
          new RegExp(
            `^tool-search ${command}: missing (required flag --[a-z-]+|argument <[a-z]+>) \\(try 'tool-search ${command} --help'\\)$`
          )
        )
      }
    }))

  it("an unknown command: one line, exit code 2", async () => {
    const run = await runBinary(["serach", "x"])
    assert.strictEqual(run.status, 2)
    assert.strictEqual(run.stdout, "")
    assert.match(
      run.stderr,
      /^tool-search: unknown command 'serach' \(did you mean 'search'\?\) \(try 'tool-search --help'\)\n$/
    )
  }, 120_000)

  it.effect("--help on stdout, exit code 0; every flag shows its default, or says it is required or optional", () =>
    Effect.gen(function*() {
      const runs: Array<Run> = []
      for (const command of commands) runs.push(yield* inProcess([command, "--help"]))
      runs.forEach((run, i) => {
        assert.strictEqual(run.status, 0, commands[i])
        assert.strictEqual(run.stderr, "", commands[i])
        const section = /\nFLAGS\n([\s\S]*?)\n\n/.exec(run.stdout)?.[1] ?? ""
        const flagLines = section.split("\n").filter((l) => /^\s+--/.test(l))
        assert.isNotEmpty(flagLines, `${commands[i]} lists its flags`)
        for (const line of flagLines) assert.match(line, /\((default: [^)]*|required|optional(; [^)]*)?)\)/, line)
      })
      const help = (command: string) => runs[commands.indexOf(command)]?.stdout ?? ""
      // --config alone is enough for serve, --catalog or --upstream for chat and run: none is "(required)"
      for (const command of ["serve", "chat", "run"]) {
        assert.notMatch(help(command), /--(upstream|catalog) .*\(required\)/, command)
      }
      assert.match(
        help("serve"),
        /--upstream .*\(optional; serve needs at least one server, from --upstream or --config/
      )
      // the demo's description states its catalog's size, derived from the catalog
      assert.include(help("demo"), `an offline agent with ${Services.tools.length} tools`)
    }))

  it("flags get defaults only through Flags.withDefault, which writes the default into the help", () => {
    const src = new URL("../src/", import.meta.url).pathname
    const files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"))
    const offenders = files.filter((f) =>
      f !== "Flags.ts" && readFileSync(join(src, f), "utf8").includes("Flag.withDefault(")
    )
    assert.deepStrictEqual(offenders, [])
  })

  it.effect(
    "with --json, every failure is one JSON object on stdout and exit code 2, for every command that takes --json",
    () =>
      Effect.gen(function*() {
        const database = join(dir, "never-written")
        /** Per command with --json: a failure found while running, and a bad value (a parse error). */
        const failures: Readonly<Record<string, { readonly args: ReadonlyArray<string>; readonly subject: string }>> = {
          search: { args: ["search", "x", "--catalog", join(dir, "missing.jsonl")], subject: "catalog" },
          toc: { args: ["toc", "--catalog", join(dir, "missing.jsonl")], subject: "catalog" },
          demo: { args: ["demo", "--database", "mysql://db/x"], subject: "settings" },
          chat: { args: ["chat", "--catalog", catalog], subject: "model" },
          run: { args: ["run", "a task", "--catalog", catalog], subject: "model" },
          bench: { args: ["bench", "--tools", catalog, "--queries", join(dir, "missing.jsonl")], subject: "queries" },
          "bench-executor": { args: ["bench-executor", "--tools", "many"], subject: "arguments" },
          "bench-disclosure": { args: ["bench-disclosure", "--system-prompt-tokens", "many"], subject: "arguments" },
          audit: { args: ["audit", "--database", database], subject: "database" }
        }
        const withJson = commands.filter((c) => failures[c] !== undefined)
        assert.sameMembers(withJson, commands.filter((c) => c !== "serve"), "every command but serve takes --json")
        const runs: Array<Run> = []
        for (const c of withJson) runs.push(yield* inProcess([...(failures[c]?.args ?? []), "--json"]))
        runs.push(yield* inProcess(["search", "x", "--catalog", catalog, "--json", "--max", "many"])) // a parse error, before the command runs
        runs.forEach((run, i) => {
          const command = withJson[i] ?? "search"
          const expected = failures[command]?.subject ?? ""
          assert.strictEqual(run.status, 2, `${command}: ${run.stdout}${run.stderr}`)
          assert.strictEqual(run.stderr, "", `${command}: nothing on stderr`)
          const lines = run.stdout.trimEnd().split("\n")
          assert.lengthOf(lines, 1, `${command}: one line on stdout, got ${run.stdout}`)
          const error = JSON.parse(lines[0] ?? "").error
          assert.deepStrictEqual(Object.keys(error), ["command", "subject", "message", "exitCode"])
          assert.strictEqual(error.command, `tool-search ${command}`)
          assert.strictEqual(error.subject, i === withJson.length ? "arguments" : expected, command)
          assert.strictEqual(error.exitCode, 2)
          assert.isNotEmpty(error.message)
        })
        assert.include(JSON.parse(runs[withJson.length]?.stdout ?? "").error.message, "invalid value for --max: 'many'")
      })
  )

  it.effect("--catalog - reads the catalog from standard input", () =>
    Effect.gen(function*() {
      const run = yield* inProcess(["search", "send a slack message", "--catalog", "-", "--json"], lines(tools))
      assert.strictEqual(run.status, 0, run.stderr)
      assert.strictEqual(JSON.parse(run.stdout).results[0].id, "t1")
    }))

  it("work over a second shows progress on stderr, and Ctrl-C (SIGINT) stops it with exit code 130", async () => {
    // standard input stays open, so loading the catalog cannot end before the signal
    let sent = false
    const run = await runBinary(["search", "x", "--catalog", "-"], {
      onStderr: (stderr, kill) => {
        if (!sent && stderr.includes("tool-search: loading <stdin>…")) {
          sent = true
          kill("SIGINT")
        }
      }
    })
    assert.isTrue(sent, run.stderr)
    assert.strictEqual(run.status, 130)
    assert.strictEqual(run.stdout, "")
  }, 120_000)

  it.effect("--skip-invalid loads a catalog with bad tools and lists each one left out on stderr", () =>
    Effect.gen(function*() {
      const bad = join(dir, "bad.jsonl")
      writeFileSync(bad, [lines(tools), `{"name":"bad name"}`, `{"name":`].join("\n"))
      const strict = yield* inProcess(["search", "slack", "--catalog", bad])
      assert.strictEqual(strict.status, 2)
      assert.match(
        strict.stderr,
        /^tool-search: .*bad\.jsonl:3: Invalid tool 'bad name'.*--skip-invalid leaves bad tools out/
      )
      const run = yield* inProcess(["search", "slack", "--catalog", bad, "--skip-invalid", "--json"])
      assert.strictEqual(run.status, 0, run.stderr)
      assert.strictEqual(JSON.parse(run.stdout).results[0].id, "t1")
      const stderr = run.stderr.trimEnd().split("\n")
      assert.match(stderr[0] ?? "", /^tool-search: skipped .*bad\.jsonl:3: Invalid tool 'bad name'/)
      assert.match(stderr[1] ?? "", /^tool-search: skipped .*bad\.jsonl:4: invalid JSON/)
      assert.match(stderr[2] ?? "", /2 invalid tools left out, 2 loaded$/)
    }))
})
