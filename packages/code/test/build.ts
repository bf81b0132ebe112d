// Vitest global setup: compiles the package, whose worker thread runs dist/src/internal/worker.js
// even when the tests run the sources. `tsc -b` on an up-to-date build takes a fraction of a second.
import { execFileSync } from "node:child_process"

export default function build(): void {
  const tsc = new URL("../../../node_modules/.bin/tsc", import.meta.url).pathname
  execFileSync(tsc, ["-b", new URL("..", import.meta.url).pathname], { stdio: "inherit" })
}
