/**
 * An exclusive lock on an embedded database directory, held by one process at a time.
 *
 * PGlite runs PostgreSQL in single-user mode inside the process: two processes opening the same
 * directory would each believe they own it and silently lose each other's writes (seen on this
 * machine: two writers of 300 rows each, 300 rows lost). The lock file holds the owner's process
 * id; it is created atomically (`wx`), and a lock whose process is gone (a `kill -9`) is taken
 * over. Taking over renames the stale file aside first, so of two processes racing for the same
 * stale lock only one wins.
 *
 * @internal
 */
import * as Fs from "node:fs"
import * as Path from "node:path"

/** The lock file's name inside the database directory. */
export const LOCK_FILE = "tool-search.lock"

/** Why the lock could not be taken: a live owner, or a file-system error. */
export type Refusal =
  | { readonly _tag: "Held"; readonly pid: number; readonly path: string }
  | { readonly _tag: "Failed"; readonly path: string; readonly message: string }

/** A held lock; `release` removes it (only if it is still ours). */
export interface Lock {
  readonly path: string
  readonly release: () => void
}

/** Takes the lock of `directory` (created when missing), or says why not. */
export const acquire = (directory: string, pid: number = process.pid): Lock | Refusal => {
  const path = Path.join(directory, LOCK_FILE)
  try {
    Fs.mkdirSync(directory, { recursive: true })
  } catch (e) {
    return { _tag: "Failed", path, message: messageOf(e) }
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      Fs.writeFileSync(path, `${pid}\n`, { flag: "wx", mode: 0o600 })
      return { path, release: () => releaseIfOurs(path, pid) }
    } catch (e) {
      if (!isCode(e, "EEXIST")) return { _tag: "Failed", path, message: messageOf(e) }
    }
    const owner = readOwner(path)
    if (owner === undefined) continue // removed meanwhile: try again
    // This process holds it already (a second open here would be just as unsafe) or another live one.
    if (owner === pid || isAlive(owner)) return { _tag: "Held", pid: owner, path }
    // Stale: move it aside, then check that what
    // we moved is the stale lock we read and not a fresh one another process just wrote.
    const aside = `${path}.stale-${pid}-${attempt}`
    try {
      Fs.renameSync(path, aside)
    } catch (e) {
      if (isCode(e, "ENOENT")) continue
      return { _tag: "Failed", path, message: messageOf(e) }
    }
    const moved = readOwner(aside)
    if (moved !== owner && moved !== undefined && isAlive(moved)) {
      // A live owner's lock: put it back where it was (unless it was recreated) and give up.
      try {
        Fs.linkSync(aside, path)
      } catch {
        // someone else holds the path now; either way it is not ours
      }
      Fs.rmSync(aside, { force: true })
      return { _tag: "Held", pid: moved, path }
    }
    Fs.rmSync(aside, { force: true })
  }
  const owner = readOwner(path)
  return owner === undefined
    ? { _tag: "Failed", path, message: "the lock file keeps changing" }
    : { _tag: "Held", pid: owner, path }
}

const releaseIfOurs = (path: string, pid: number): void => {
  if (readOwner(path) === pid) Fs.rmSync(path, { force: true })
}

const readOwner = (path: string): number | undefined => {
  try {
    const text = Fs.readFileSync(path, "utf8").trim()
    const pid = /^\d{1,10}$/.test(text) ? Number(text) : Number.NaN
    // An unreadable or foreign file counts as a stale lock held by no process.
    return Number.isSafeInteger(pid) && pid > 0 ? pid : 0
  } catch {
    return undefined
  }
}

/** Whether a process with this id exists (signal 0 checks without signalling). */
const isAlive = (pid: number): boolean => {
  if (pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return isCode(e, "EPERM") // exists, owned by another user
  }
}

const isCode = (e: unknown, code: string): boolean =>
  typeof e === "object" && e !== null && "code" in e && e.code === code

const messageOf = (e: unknown): string => e instanceof Error ? e.message : String(e)
