import { defineProject } from "vitest/config"
import { project } from "../../vitest.shared.js"

// code mode runs programs in @tool-search/code's sandbox, whose worker thread is compiled
// JavaScript (packages/code/dist): build it first
export default defineProject(project({ include: ["test/**/*.test.ts"], globalSetup: ["../code/test/build.ts"] }))
