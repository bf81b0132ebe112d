import { defineProject } from "vitest/config"
import { project } from "../../vitest.shared.js"

// The sandbox's worker thread runs compiled JavaScript (dist/), even when the tests run the sources:
// build it first, so the tests never run a stale worker.
export default defineProject(project({ include: ["test/**/*.test.ts"], globalSetup: ["./test/build.ts"] }))
