// What every test project of `npm test` shares (each `vitest.config.ts` spreads it).
import type { UserWorkspaceConfig } from "vitest/config"

/**
 * Sources instead of build output, and a hang guard: a test that is merely slow on a loaded
 * machine (a child process starting, a property test, the offline model) must not fail, and no
 * test asserts how long anything took. 60 seconds only stops a test that would never end.
 */
export const shared = {
  resolve: { conditions: ["@tool-search/source"] },
  ssr: { resolve: { conditions: ["@tool-search/source"] } },
  test: { testTimeout: 60_000, hookTimeout: 60_000 }
} satisfies UserWorkspaceConfig

/** A project of `shared` whose tests are `include`d. */
export const project = (test: { readonly name?: string; readonly include: Array<string> }): UserWorkspaceConfig => ({
  ...shared,
  test: { ...shared.test, ...test }
})
