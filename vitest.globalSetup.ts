// The run's temporary directory for what test workers share (the embedded database's template,
// `vitest.pglite.ts`), removed when the run ends. Every project of the run gets the same one.
//
// It is also the run's `TMPDIR`: every temporary directory a test makes (`os.tmpdir()`), and those of
// the processes it starts, is made below it and removed with it, whether or not the test removes its
// own (databases of 40 MB each used to stay in /tmp after every run). A cache meant to outlive the
// run (the conformance runner's install) goes below `TOOL_SEARCH_TEST_SYSTEM_TMPDIR`, the system's.
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
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
  if (process.env["TOOL_SEARCH_TEST_SYSTEM_TMPDIR"] === undefined) {
    process.env["TOOL_SEARCH_TEST_SYSTEM_TMPDIR"] = tmpdir()
    const temporary = join(directory, "tmp")
    mkdirSync(temporary, { recursive: true })
    // as open as /tmp: a test may run a program as another user below it (a PostgreSQL server's initdb)
    chmodSync(directory, 0o755)
    chmodSync(temporary, 0o1777)
    process.env["TMPDIR"] = temporary
  }
  project.provide("pgliteTemplateDirectory", directory)
  return () => rmSync(directory, { recursive: true, force: true })
}
