// `npm run test:consumer`: the packages installed from their tarballs (consumer.test.ts). Kept out
// of `npm test`: it uses the npm registry and takes about a minute.
import { defineConfig } from "vitest/config"
import "../vitest.config.js" // Node 20: the reporter's Map.groupBy

export default defineConfig({
  test: { include: ["consumer/consumer.test.ts"], testTimeout: 600_000, hookTimeout: 600_000 }
})
