// The packages as a user gets them: every publishable workspace is packed (its `prepack` builds
// `dist/`), the tarballs are installed into an empty project with `npm install` alone (no workspace
// links; only the npm registry is used), and the project compiles and runs the README example,
// an app that adds deferral to an effect/ai Toolkit, a program in the code-mode sandbox, and the
// `tool-search` command. A second
// project installs `@tool-search/core` alone, which must not pull the offline model's weights.
//
// The supported Node versions are tested here: what the project runs (every package imported, the
// README example, the toolkit app, `tool-search --version` and `search`) runs on the machine's
// Node, then again on each of `nodes` below, installed from npm (`node-<os>-<cpu>`) into a folder
// of its own so the machine's Node is never replaced. The demo, whose data files the tarball must
// hold, runs on the machine's Node only (`npm start` runs it in CI as well).
//
// Run by `npm run test:consumer` (a step of `.ci/run`), not by `npm test`: it needs the registry
// and takes a few minutes.
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "vitest"

const root = new URL("..", import.meta.url).pathname
const rootManifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  readonly devDependencies: Readonly<Record<string, string>>
}
/** The version the repository pins, so the consumer builds with what CI tests. */
const pinned = (name: string): string => {
  const version = rootManifest.devDependencies[name]
  if (version === undefined) throw new Error(`the root package.json pins no ${name}`)
  return `${name}@${version}`
}

/**
 * The Node versions tested besides the machine's: the LTS lines the packages support
 * (`engines`: `>=22.19`), pinned to exact releases like every other dependency.
 */
const nodes = ["22.23.5", "24.22.3"] as const

/** The npm package with the Node binary of this platform, or undefined where there is none. */
const nodePackage = (): string | undefined =>
  ["linux", "darwin"].includes(process.platform) && ["x64", "arm64"].includes(process.arch)
    ? `node-${process.platform}-${process.arch}`
    : undefined

const work = mkdtempSync(join(tmpdir(), "tool-search-consumer-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** The environment of the nested npm runs, without what the outer `npm run` put there. */
const env = Object.fromEntries(
  Object.entries(process.env).filter(([key]) =>
    !/^npm_(package|lifecycle|config_(workspace|workspaces|include_workspace_root|prefix|global))/i.test(key) &&
    key !== "INIT_CWD"
  )
)

interface Run {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a command to completion; generous timeouts, no wall-clock assertion. */
const run = (
  command: string,
  args: ReadonlyArray<string>,
  cwd: string,
  timeout = 120_000,
  environment: NodeJS.ProcessEnv = env
): Run => {
  const result = spawnSync(command, args, {
    cwd,
    env: environment,
    encoding: "utf8",
    timeout,
    maxBuffer: 64 * 1024 * 1024
  })
  return { status: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? String(result.error ?? "") }
}

/** `run` without blocking, for work that may overlap another (installing the Node versions). */
const runInBackground = (command: string, args: ReadonlyArray<string>, cwd: string, timeout: number) =>
  new Promise<Run>((resolve) => {
    const child = spawn(command, args, { cwd, env, timeout })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => void (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()))
    child.on("error", (error) => resolve({ status: null, stdout, stderr: `${stderr}${String(error)}` }))
    child.on("close", (status) => resolve({ status, stdout, stderr }))
  })

/**
 * Installs Node `version` from npm into a folder of its own (its package's `node` bin must not
 * shadow the machine's) and resolves to the folder of its `node` binary.
 */
const installNode = async (version: string): Promise<string> => {
  const pkg = nodePackage()
  if (pkg === undefined) throw new Error(`no npm package with Node for ${process.platform}-${process.arch}`)
  const folder = join(work, `node-${version}`)
  mkdirSync(folder)
  writeFileSync(join(folder, "package.json"), JSON.stringify({ name: `node-${version}`, private: true }))
  const result = await runInBackground(
    "npm",
    ["install", "--no-audit", "--no-fund", "--loglevel=error", `${pkg}@${version}`],
    folder,
    600_000
  )
  expectSuccess(result, `npm install ${pkg}@${version}`)
  return join(folder, "node_modules", pkg, "bin")
}

const expectSuccess = (result: Run, what: string): Run => {
  assert.strictEqual(result.status, 0, `${what} failed:\n${result.stdout}\n${result.stderr}`)
  return result
}

interface Workspace {
  readonly name: string
  readonly private?: boolean
  readonly location: string
}

interface Packed {
  readonly name: string
  readonly filename: string
  readonly files: ReadonlyArray<{ readonly path: string }>
}

const publishable: ReadonlyArray<Workspace> = (JSON.parse(
  expectSuccess(run("npm", ["query", ".workspace"], root), "npm query")
    .stdout
) as ReadonlyArray<Workspace>).filter((w) => w.private !== true)

const tarballs = join(work, "tarballs")
const app = join(work, "app")
const coreOnly = join(work, "core-only")
let packed: ReadonlyArray<Packed> = []
const tarballOf = (name: string): string => {
  const found = packed.find((p) => p.name === name)
  if (found === undefined) throw new Error(`${name} was not packed`)
  return join(tarballs, found.filename)
}

const compilerOptions = {
  target: "ES2022",
  module: "NodeNext",
  moduleResolution: "NodeNext",
  lib: ["ES2022", "DOM"], // effect's declarations name CryptoKey and Transferable
  types: ["node"],
  strict: true,
  exactOptionalPropertyTypes: true,
  skipLibCheck: false,
  rootDir: ".",
  outDir: "out"
}

/** The first `ts` block after the README's "## Example" heading. */
const readmeExample = (): string => {
  const readme = readFileSync(join(root, "README.md"), "utf8")
  const match = /\n## Example\n[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)
  if (match?.[1] === undefined) throw new Error("README.md has no ```ts block under ## Example")
  return match[1]
}

/** A Node to run the project's programs with: its binary, and how test messages name it. */
interface OnNode {
  readonly node: string
  readonly label: string
}

const machine: OnNode = { node: process.execPath, label: "" }

/** The other Node versions being installed: each resolves to its bin folder, or to why it failed. */
let installs: ReadonlyArray<
  Promise<{ readonly version: string; readonly bin: string } | { readonly version: string; readonly error: string }>
> = []

const expectImports = (on: OnNode) => {
  writeFileSync(
    join(app, "imports.mjs"),
    `for (const name of ${JSON.stringify(packed.map((p) => p.name))}) {
  const module = await import(name)
  console.log(name, Object.keys(module).length)
}\n`
  )
  const out = expectSuccess(run(on.node, ["imports.mjs"], app), `importing the packages${on.label}`).stdout
  for (const p of packed) assert.match(out, new RegExp(`^${p.name} [1-9]`, "m"), on.label)
}

const expectReadmeRuns = (on: OnNode) => {
  const out = expectSuccess(run(on.node, ["out/readme.js"], app), `the README example${on.label}`).stdout
  assert.match(out, /\[\s*'slack_send'\s*\]/, on.label)
}

const expectToolkitRuns = (on: OnNode) => {
  const out = expectSuccess(run(on.node, ["out/toolkit.js"], app), `the toolkit app${on.label}`).stdout
  assert.deepStrictEqual(out.trim().split("\n"), [
    "request: read_file, ToolSearch",
    "call: get_weather not-active",
    "request: read_file, ToolSearch",
    "call: ToolSearch ok",
    "request: read_file, ToolSearch, get_weather",
    "call: get_weather ok",
    "request: read_file, ToolSearch, get_weather",
    `answer: Done: get_weather returned {"city":"Paris","forecast":"sunny"}`
  ], on.label)
}

/**
 * The installed command, run by `on.node`: its version and a search of the sample catalog, and with
 * `demo` its help and the demo (whose data files must be in the tarball).
 */
const expectCommandRuns = (on: OnNode, options: { readonly demo: boolean }) => {
  const bin = join(app, "node_modules", "@tool-search", "cli", "bin", "tool-search.js")
  const cli = (args: ReadonlyArray<string>, what: string) =>
    expectSuccess(run(on.node, [bin, ...args], app, 300_000), `tool-search ${what}${on.label}`).stdout
  const version = (JSON.parse(readFileSync(join(root, "packages", "cli", "package.json"), "utf8")) as {
    readonly version: string
  }).version
  assert.strictEqual(cli(["--version"], "--version").trim(), `tool-search v${version}`)
  const search = cli(
    ["search", "upload a file to blob storage", "--catalog", join(root, "examples", "tools.jsonl"), "--json"],
    "search"
  )
  assert.strictEqual(JSON.parse(search).results[0]?.id, "storage/upload_blob", on.label)
  if (!options.demo) return
  assert.match(cli(["--help"], "--help"), /^\s+serve\s/m)
  const demo = cli(["demo", "--json"], "demo").trim().split("\n")
  const summary = JSON.parse(demo.at(-1) ?? "{}") as { type?: string; turns?: ReadonlyArray<{ stopReason: string }> }
  assert.strictEqual(summary.type, "summary", on.label)
  assert.isNotEmpty(summary.turns ?? [])
  for (const turn of summary.turns ?? []) assert.strictEqual(turn.stopReason, "answered", on.label)
}

describe("the packages installed from their tarballs", () => {
  it("every publishable workspace packs with its compiled dist, types, licence and no tests", () => {
    assert.includeMembers(publishable.map((w) => w.name), [
      "@tool-search/core",
      "@tool-search/agent",
      "@tool-search/mcp",
      "@tool-search/cli",
      "@tool-search/embeddings-offline",
      "@tool-search/code"
    ])
    mkdirSync(tarballs)
    const out = expectSuccess(
      run(
        "npm",
        ["pack", ...publishable.flatMap((w) => ["--workspace", w.location]), "--pack-destination", tarballs, "--json"],
        root,
        600_000
      ),
      "npm pack"
    )
    packed = JSON.parse(out.stdout) as ReadonlyArray<Packed>
    assert.sameMembers(packed.map((p) => p.name), publishable.map((w) => w.name))
    const license = readFileSync(join(root, "LICENSE"), "utf8")
    for (const p of packed) {
      const files = p.files.map((f) => f.path)
      for (const needed of ["package.json", "LICENSE", "README.md", "dist/src/index.js", "dist/src/index.d.ts"]) {
        assert.include(files, needed, `${p.name} ships ${needed}`)
      }
      assert.isEmpty(files.filter((f) => /(^|\/)test\/|\.test\.|tsbuildinfo/.test(f)), `${p.name} ships no tests`)
      const location = publishable.find((w) => w.name === p.name)?.location ?? ""
      assert.strictEqual(readFileSync(join(root, location, "LICENSE"), "utf8"), license, `${p.name}'s LICENSE`)
    }
  }, 600_000)

  it("npm install of the tarballs into an empty project", () => {
    // the other Node versions install meanwhile, each apart from the machine's
    installs = nodePackage() === undefined
      ? []
      : nodes.map((version) =>
        installNode(version).then(
          (bin) => ({ version, bin }),
          (error: unknown) => ({ version, error: String(error) })
        )
      )
    mkdirSync(app)
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }))
    expectSuccess(
      run(
        "npm",
        [
          "install",
          "--no-audit",
          "--no-fund",
          ...packed.map((p) => join(tarballs, p.filename)),
          pinned("effect"),
          pinned("@effect/platform-node"),
          pinned("typescript"),
          pinned("@types/node")
        ],
        app,
        600_000
      ),
      "npm install"
    )
    for (const p of packed) {
      assert.isTrue(existsSync(join(app, "node_modules", p.name, "dist", "src", "index.js")), `${p.name} has its dist`)
    }
  }, 600_000)

  it("every installed package imports", () => expectImports(machine))

  it("the repository's own entries (the benchmark's indexes, the test kits) are not exported to an installed package", () => {
    writeFileSync(
      join(app, "internal.mjs"),
      `for (const name of ["@tool-search/core/internal/bench", "@tool-search/core/test-kit"]) {
  try {
    await import(name)
    console.log(name, "imported")
  } catch (error) {
    console.log(name, error.code)
  }
}\n`
    )
    const out = expectSuccess(run(process.execPath, ["internal.mjs"], app), "importing the internal entries").stdout
    assert.deepStrictEqual(out.trim().split("\n"), [
      "@tool-search/core/internal/bench ERR_PACKAGE_PATH_NOT_EXPORTED",
      "@tool-search/core/test-kit ERR_PACKAGE_PATH_NOT_EXPORTED"
    ])
  })

  it("the README example and the toolkit app type-check against the installed declarations", () => {
    writeFileSync(join(app, "readme.ts"), readmeExample())
    writeFileSync(join(app, "toolkit.ts"), readFileSync(join(root, "consumer", "app", "toolkit.ts"), "utf8"))
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({ compilerOptions, include: ["readme.ts", "toolkit.ts"] })
    )
    expectSuccess(run("npx", ["--no", "--", "tsc", "-p", "."], app, 300_000), "tsc")
  }, 300_000)

  it("the README example runs: an effect/ai Toolkit with a deferred tool, found and called by the executor", () =>
    expectReadmeRuns(machine))

  it("the toolkit app runs its own loop: a call to a deferred tool is corrected, the tool found, then called", () =>
    expectToolkitRuns(machine))

  it("a program runs in the sandbox of the installed @tool-search/code: its worker thread and QuickJS ship", () => {
    writeFileSync(
      join(app, "code.mjs"),
      `import { Sandbox } from "@tool-search/code"
import { Effect } from "effect"
const run = Effect.flatMap(Sandbox.Sandbox, (sandbox) => sandbox.run({
  code: "const sum = await tools.add({ a: 2, b: 3 })\\nconsole.log('sum', sum)\\nreturn [sum, typeof process]",
  tools: ["add"],
  call: (_, args) => Effect.succeed(args.a + args.b)
}))
console.log(JSON.stringify(await Effect.runPromise(run.pipe(Effect.provide(Sandbox.layer({ codeWorkers: 1 }))))))
`
    )
    const out = expectSuccess(run("node", ["code.mjs"], app), "a program in the sandbox").stdout
    assert.deepStrictEqual(JSON.parse(out), {
      result: [5, "undefined"],
      logs: [{ level: "log", text: "sum 5" }],
      toolCalls: 1
    })
  })

  it("npx tool-search --help lists the commands", () => {
    const out = expectSuccess(run("npx", ["--no", "--", "tool-search", "--help"], app), "npx tool-search --help").stdout
    for (const command of ["search", "toc", "serve", "demo", "chat", "run", "bench"]) {
      assert.match(out, new RegExp(`^\\s+${command}\\s`, "m"))
    }
  })

  it(
    "tool-search --version states the packed version; search and the demo (its data in the tarball) run",
    () => expectCommandRuns(machine, { demo: true }),
    300_000
  )

  for (const version of nodes) {
    it.skipIf(nodePackage() === undefined)(
      `on Node ${version} (from npm): the packages import, the README example, the toolkit app and the command run`,
      async () => {
        const installed = (await Promise.all(installs)).find((i) => i.version === version)
        if (installed === undefined || "error" in installed) throw new Error(installed?.error ?? "not installed")
        const node = join(installed.bin, "node")
        assert.strictEqual(expectSuccess(run(node, ["--version"], app), "node --version").stdout.trim(), `v${version}`)
        const on: OnNode = { node, label: ` on Node ${version}` }
        expectImports(on)
        expectReadmeRuns(on)
        expectToolkitRuns(on)
        expectCommandRuns(on, { demo: false })
      },
      900_000
    )
  }

  it("@tool-search/core alone pulls no model weights; semantic search then names the package to install", () => {
    mkdirSync(coreOnly)
    writeFileSync(join(coreOnly, "package.json"), JSON.stringify({ name: "core-only", private: true, type: "module" }))
    expectSuccess(
      run(
        "npm",
        ["install", "--no-audit", "--no-fund", tarballOf("@tool-search/core"), pinned("effect")],
        coreOnly,
        600_000
      ),
      "npm install @tool-search/core"
    )
    assert.isFalse(existsSync(join(coreOnly, "node_modules", "@energetic-ai")), "no @energetic-ai packages")
    assert.isFalse(existsSync(join(coreOnly, "node_modules", "@tool-search", "embeddings-offline")))
    writeFileSync(
      join(coreOnly, "semantic.mjs"),
      `import { CatalogTool, Query, Strategies, ToolCatalog } from "@tool-search/core"
import { Effect, Layer } from "effect"
const program = Effect.gen(function*() {
  const catalog = yield* ToolCatalog.ToolCatalog
  yield* catalog.register([CatalogTool.make({ name: "send_mail", description: "Send an e-mail" })])
  return yield* catalog.search(Query.keywords("mail"), { limit: 1 })
}).pipe(Effect.provide(ToolCatalog.layer.pipe(Layer.provide(Strategies.layer("semantic")))))
const exit = await Effect.runPromiseExit(program)
console.log(exit._tag === "Failure" ? String(exit.cause) : "found")
`
    )
    const out = expectSuccess(run("node", ["semantic.mjs"], coreOnly), "semantic search without the model").stdout
    assert.include(out, "SearchFailed")
    assert.include(out, "npm install @tool-search/embeddings-offline")
  }, 600_000)
})
