import { defineProject } from "vitest/config"
import { project } from "../../vitest.shared.js"

export default defineProject(project({ include: ["test/**/*.test.ts"] }))
