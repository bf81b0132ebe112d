// What every test project of `npm test` shares (each `vitest.config.ts` spreads it).
import { fileURLToPath } from "node:url"
import type { UserWorkspaceConfig } from "vitest/config"

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url))

/**
 * Sources instead of build output, and a hang guard: a test that is merely slow on a loaded
 * machine (a child process starting, a property test, the offline model) must not fail, and no
 * test asserts how long anything took. 60 seconds only stops a test that would never end.
 *
 * `isolate: false`: a worker runs one test file after another and keeps the modules it imported
 * (Effect, the sources), instead of a new worker importing them all again for each file, which was
 * most of the suite's time on 2 cores. A test file leaves the process as it found it (environment
 * variables it sets are given back in `afterAll`).
 *
 * `maxWorkers: 2`: two test files at a time. Vitest's default is one worker fewer than the cores,
 * which on the 2-core machines `npm test` must fit on is one file after another, while much of the
 * suite's time is spent waiting on the processes its tests start (the binary, gateways, MCP servers,
 * PostgreSQL). It is set per project: Vitest takes each project's own, and a root value does not
 * reach them.
 *
 * Each embedded PostgreSQL a test creates starts from one template instead of running initdb
 * (`vitest.pglite.ts`), kept in the run's shared directory (`vitest.globalSetup.ts`), which is also
 * the run's `TMPDIR`: what tests leave in temporary directories goes when the run ends.
 */
export const shared = {
  resolve: { conditions: ["@tool-search/source"] },
  ssr: { resolve: { conditions: ["@tool-search/source"] } },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    isolate: false,
    maxWorkers: 2,
    globalSetup: [here("./vitest.globalSetup.ts")],
    setupFiles: [here("./vitest.pglite.ts")]
  }
} satisfies UserWorkspaceConfig

/** A project of `shared` whose tests are `include`d; its own `globalSetup` runs after the shared one. */
export const project = (
  test: { readonly name?: string; readonly include: Array<string>; readonly globalSetup?: Array<string> }
): UserWorkspaceConfig => ({
  ...shared,
  test: { ...shared.test, ...test, globalSetup: [...shared.test.globalSetup, ...(test.globalSetup ?? [])] }
})
