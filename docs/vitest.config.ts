import { defineProject } from "vitest/config"
import { project } from "../vitest.shared.js"

const base = project({ name: "docs", include: ["examples.test.ts"] })

// code-mode.ts runs the sandbox, whose worker thread is the compiled packages/code: build it first
export default defineProject({ ...base, test: { ...base.test, globalSetup: ["../packages/code/test/build.ts"] } })
