import { defineProject } from "vitest/config"
import { project } from "../../vitest.shared.js"

const base = project({ include: ["test/**/*.test.ts"] })

// code mode runs programs in @tool-search/code's sandbox, whose worker thread is compiled
// JavaScript (packages/code/dist): build it first
export default defineProject({ ...base, test: { ...base.test, globalSetup: ["../code/test/build.ts"] } })
