/**
 * The version of a tool-search package, read at run time from the `package.json` of that package:
 * the one source of every version the packages state (`tool-search --version`, the gateway's MCP
 * `serverInfo`, the client's `clientInfo`, the OpenTelemetry service version), so a release changes
 * the manifests and nothing else. The packages are versioned together (changesets' `fixed` group).
 *
 * A module finds its package's manifest by walking up from its own URL, so the lookup works from
 * the sources (`src/`), from the build (`dist/src/`) and from an installed tarball alike.
 *
 * @since 0.2.0
 */
import { Option, Schema } from "effect"
import { readFileSync } from "node:fs"

const Manifest = Schema.fromJsonString(Schema.Struct({ name: Schema.String, version: Schema.String }))
const decodeManifest = Schema.decodeUnknownOption(Manifest)

/** How many folders up from a module its package's `package.json` may be (`dist/src/commands/X.js`: 3). */
const MAX_DEPTH = 5

/**
 * The version in the `package.json` of the package `name`, found by walking up from `moduleUrl`
 * (pass `import.meta.url`); `"unknown"` when no manifest of that name is on the way up.
 *
 * @since 0.2.0
 * @category reading
 */
export const read = (name: string, moduleUrl: string | URL): string => {
  for (let depth = 1; depth <= MAX_DEPTH; depth++) {
    const manifest = new URL(`${"../".repeat(depth)}package.json`, moduleUrl)
    const found = Option.flatMap(text(manifest), decodeManifest)
    if (Option.isSome(found) && found.value.name === name) return found.value.version
  }
  return "unknown"
}

const text = (file: URL): Option.Option<string> => {
  try {
    return Option.some(readFileSync(file, "utf8"))
  } catch {
    return Option.none() // no manifest at this level: look further up
  }
}

/**
 * The version of `@tool-search/mcp`: what the gateway announces as its `serverInfo` and what the
 * import announces as its `clientInfo`.
 *
 * @since 0.2.0
 * @category constants
 */
export const mcp: string = read("@tool-search/mcp", import.meta.url)
