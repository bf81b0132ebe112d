// The run's temporary directory for what test workers share (the embedded database's template,
// `vitest.pglite.ts`), removed when the run ends. Every project of the run gets the same one.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TestProject } from "vitest/node"

declare module "vitest" {
  export interface ProvidedContext {
    pgliteTemplateDirectory: string | undefined
  }
}

const KEY = "TOOL_SEARCH_TEST_SHARED_DIRECTORY"

export default function setup(project: TestProject) {
  const directory = process.env[KEY] ??= mkdtempSync(join(tmpdir(), "tool-search-test-"))
  project.provide("pgliteTemplateDirectory", directory)
  return () => rmSync(directory, { recursive: true, force: true })
}
