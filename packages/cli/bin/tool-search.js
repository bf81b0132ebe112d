#!/usr/bin/env node
// The `tool-search` command. The TypeScript sources are compiled on `npm install` (the root
// `prepare` script runs `tsc -b`); this file only forwards to the compiled entry point.
import { existsSync } from "node:fs"

const entry = new URL("../dist/src/bin.js", import.meta.url)
if (!existsSync(entry)) {
  console.error("tool-search is not built yet: run `npm install` (or `npm run build`) at the repository root")
  process.exit(2)
}
await import(entry.href)
