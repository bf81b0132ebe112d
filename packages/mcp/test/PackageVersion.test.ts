import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { Gateway, McpConnection, PackageVersion } from "../src/index.js"

const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  readonly name: string
  readonly version: string
}

describe("PackageVersion", () => {
  it("reads the version of the package named, from its sources and from its build", () => {
    assert.strictEqual(PackageVersion.read("@tool-search/mcp", import.meta.url), manifest.version)
    assert.strictEqual(
      PackageVersion.read("@tool-search/mcp", new URL("../dist/src/commands/Deep.js", import.meta.url)),
      manifest.version
    )
  })

  it("never takes another package's manifest on the way up", () => {
    assert.strictEqual(PackageVersion.read("@tool-search/core", import.meta.url), "unknown")
  })

  it("the gateway's serverInfo, the import's clientInfo and the package state the one version", () => {
    assert.strictEqual(PackageVersion.mcp, manifest.version)
    assert.strictEqual(Gateway.defaults.version, manifest.version)
    assert.strictEqual(McpConnection.clientInfo.version, manifest.version)
  })
})
