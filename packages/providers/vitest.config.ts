import { defineProject } from "vitest/config"

export default defineProject({
  resolve: { conditions: ["@tool-search/source"] },
  ssr: { resolve: { conditions: ["@tool-search/source"] } },
  test: { include: ["test/**/*.test.ts"] }
})
