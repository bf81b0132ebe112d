// The `packages` project of `npm test`: the manifests of every package (manifests.test.ts). The
// install from tarballs runs apart, with `npm run test:consumer` (vitest.consumer.config.ts).
import { defineProject } from "vitest/config"

export default defineProject({ test: { name: "packages", include: ["manifests.test.ts"] } })
