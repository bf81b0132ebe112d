import { defineProject } from "vitest/config"
import { project } from "../vitest.shared.js"

// code-mode.ts runs the sandbox, whose worker thread is the compiled packages/code: build it first
export default defineProject(
  project({ name: "docs", include: ["examples.test.ts"], globalSetup: ["../packages/code/test/build.ts"] })
)
