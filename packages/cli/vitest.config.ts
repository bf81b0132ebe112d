import { defineProject } from "vitest/config"
import { project } from "../../vitest.shared.js"

// Isolated, unlike the other projects: these files start gateways, databases and processes, and one
// of them (ServeDatabase's "the database lost mid-run") failed once in a shared worker, never alone;
// until that is understood, each file gets a fresh worker, as it always had.
export default defineProject(project({ include: ["test/**/*.test.ts"], isolate: true }))
