// Every workspace is a package users can install: what `npm run test:consumer` proves by installing
// the tarballs, checked here on the manifests in a few milliseconds, so a new package that misses
// one of them fails `npm test` at once.
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"

const root = new URL("..", import.meta.url).pathname
const rootManifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  readonly workspaces: ReadonlyArray<string>
  readonly engines: { readonly node: string }
  readonly devDependencies: Readonly<Record<string, string>>
}

interface Manifest {
  readonly name: string
  readonly version: string
  readonly private?: boolean
  readonly license?: string
  readonly description?: string
  readonly repository?: { readonly url?: string; readonly directory?: string }
  readonly sideEffects?: boolean | ReadonlyArray<string>
  readonly engines?: { readonly node?: string }
  readonly files?: ReadonlyArray<string>
  readonly scripts?: Readonly<Record<string, string>>
  readonly exports?: Readonly<Record<string, Readonly<Record<string, string>>>>
  readonly dependencies?: Readonly<Record<string, string>>
  readonly peerDependencies?: Readonly<Record<string, string>>
}

const directories = readdirSync(join(root, "packages")).filter((d) =>
  existsSync(join(root, "packages", d, "package.json"))
)
const manifests = directories.map((dir) => ({
  dir,
  manifest: JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")) as Manifest
}))
const names = new Set(manifests.map((m) => m.manifest.name))
const license = readFileSync(join(root, "LICENSE"), "utf8")

/** The Node version a range such as `>=22.19` or `>=22.19.0` starts at, as [major, minor, patch]; else undefined. */
const floor = (range: string | undefined): ReadonlyArray<number> | undefined => {
  const match = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range?.trim() ?? "")
  return match === null ? undefined : [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)]
}
const atLeast = (a: ReadonlyArray<number>, b: ReadonlyArray<number>): boolean => {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0)
  return true
}

/** Every `.ts` file under a folder. */
const sources = (folder: string): ReadonlyArray<string> =>
  readdirSync(folder, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts")).map((f) =>
    join(folder, f)
  )

describe("one version, one Node range", () => {
  it("every package has the same version (changesets' fixed group)", () => {
    assert.deepStrictEqual([...new Set(manifests.map((m) => m.manifest.version))], [manifests[0]?.manifest.version])
  })

  it("no source states a version literally: each reads it from its package.json (PackageVersion)", () => {
    const literal = /\b(version|serviceVersion)\s*:\s*"\d+\.\d+\.\d+"/
    const offenders = manifests.flatMap(({ dir }) =>
      sources(join(root, "packages", dir, "src")).filter((file) => literal.test(readFileSync(file, "utf8")))
    )
    assert.deepStrictEqual(offenders, [])
  })

  it("the engines range starts no lower than what the packages' dependencies declare", () => {
    const ours = floor(rootManifest.engines.node)
    assert.isDefined(ours, rootManifest.engines.node)
    for (const { manifest } of manifests) {
      for (const dependency of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) {
        const installed = join(root, "node_modules", dependency, "package.json")
        if (names.has(dependency) || !existsSync(installed)) continue
        const theirs = floor((JSON.parse(readFileSync(installed, "utf8")) as Manifest).engines?.node)
        if (theirs === undefined || ours === undefined) continue
        assert.isTrue(
          atLeast(ours, theirs),
          `${dependency} needs Node ${theirs.join(".")}, engines says ${rootManifest.engines.node}`
        )
      }
    }
  })
})

describe("package manifests", () => {
  it("the workspaces are the packages/ folders", () => {
    assert.deepStrictEqual(rootManifest.workspaces, ["packages/*"])
    assert.isAtLeast(manifests.length, 6)
  })

  for (const { dir, manifest } of manifests) {
    it(`${manifest.name} is publishable`, () => {
      assert.notStrictEqual(manifest.private, true, "not private")
      assert.match(manifest.name, /^@tool-search\//)
      assert.strictEqual(manifest.license, "MIT")
      assert.isNotEmpty(manifest.description ?? "")
      assert.strictEqual(manifest.repository?.directory, `packages/${dir}`)
      assert.isDefined(manifest.sideEffects, "sideEffects says what a bundler may drop")
      assert.strictEqual(manifest.engines?.node, rootManifest.engines.node, "the Node versions CI runs")
      assert.includeMembers([...(manifest.files ?? [])], ["dist/src", "README.md", "CHANGELOG.md", "LICENSE"])
      assert.strictEqual(manifest.scripts?.["prepack"], "tsc -b", "packing builds dist/")
      assert.strictEqual(manifest.exports?.["."]?.["default"], "./dist/src/index.js")
      for (const file of ["README.md", "CHANGELOG.md"]) {
        assert.isTrue(existsSync(join(root, "packages", dir, file)), file)
      }
      assert.strictEqual(readFileSync(join(root, "packages", dir, "LICENSE"), "utf8"), license, "the root LICENSE")
    })

    it(`${manifest.name}: effect is a peer dependency; internal dependencies name a version range`, () => {
      for (const peer of ["effect", "@effect/platform-node"]) {
        assert.notProperty(manifest.dependencies ?? {}, peer, `${peer} is a peer dependency, not a dependency`)
      }
      assert.strictEqual(manifest.peerDependencies?.["effect"], `^${rootManifest.devDependencies["effect"]}`)
      for (const [dependency, range] of Object.entries(manifest.dependencies ?? {})) {
        if (names.has(dependency)) assert.match(range, /^\^\d+\.\d+\.\d+$/, `${dependency}: ${range}`)
        else assert.match(range, /^\d+\.\d+\.\d+$/, `${dependency} is pinned: ${range}`)
      }
    })
  }
})
