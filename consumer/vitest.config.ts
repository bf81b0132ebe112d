// The `packages` project of `npm test`: the manifests of every package (manifests.test.ts). The
// install from tarballs runs apart, with `npm run test:consumer` (vitest.consumer.config.ts).
import { defineProject } from "vitest/config"
import { project } from "../vitest.shared.js"

export default defineProject(project({ name: "packages", include: ["manifests.test.ts"] }))
