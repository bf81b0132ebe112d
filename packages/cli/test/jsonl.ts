// JSON-lines input files for the command line's tests (catalogs, benchmark queries).
import { writeFileSync } from "node:fs"

/** Writes `rows` to `path`, one JSON object a line, and returns `path`. */
export const writeJsonl = (path: string, rows: ReadonlyArray<object>): string => {
  writeFileSync(path, rows.map((row) => JSON.stringify(row)).join("\n"))
  return path
}
