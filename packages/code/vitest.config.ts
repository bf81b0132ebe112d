import { defineProject } from "vitest/config"
import { project } from "../../vitest.shared.js"

const base = project({ include: ["test/**/*.test.ts"] })

// The sandbox's worker thread runs compiled JavaScript (dist/), even when the tests run the sources:
// build it first, so the tests never run a stale worker.
export default defineProject({ ...base, test: { ...base.test, globalSetup: ["./test/build.ts"] } })
