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
