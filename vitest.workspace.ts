// The one list of test projects. Vitest 5 ignores this file on its own; vitest.config.ts imports it.
export default [
  "packages/core",
  "packages/embeddings-offline",
  "packages/code",
  "packages/agent",
  "packages/store",
  "packages/providers",
  "packages/mcp",
  "packages/cli",
  "docs",
  "consumer"
]
