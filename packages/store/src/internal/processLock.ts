/**
 * An exclusive lock held by one process at a time, as a file: the embedded database's directory,
 * an instance's journal.
 *
 * The file says who holds it: the process id, the process's start time and the machine's boot id
 * (so a process id reused later, or reused by a restarted container's PID 1, is not mistaken for
 * the owner), and the pid namespace it was written from. The owner refreshes the file's time every
 * `HEARTBEAT` while it holds the lock.
 *
 * Whether the owner is alive:
 * - written from this pid namespace on this boot: exactly, by its process id and start time;
 * - written elsewhere (another container sharing the directory, a container restarted into a new
 *   namespace, a machine since rebooted, an older format): by its heartbeat — stale once the file
 *   has not been refreshed for `STALE_AFTER`. Such a lock is reported as held but not surely
 *   (`sure: false`): the caller may try again until it goes stale.
 *
 * Taking over a stale lock renames it aside first, so of two processes racing for the same stale
 * lock only one wins. Node has no `flock`; this is what an ordinary file can do.
 *
 * @internal
 */
import * as Fs from "node:fs"
import * as Path from "node:path"

/** How often a holder refreshes its lock file. */
export const HEARTBEAT = 2_000

/** A lock not refreshed for this long (and not provably alive) is stale. */
export const STALE_AFTER = 3 * HEARTBEAT

/** Who holds a lock. */
export interface Owner {
  readonly pid: number
  /** The process's start time, in clock ticks after boot (Linux), when known. */
  readonly start?: string
  readonly boot?: string
  readonly pidns?: string
  /** What the holder adds (the embedded database: where its audit can be read). */
  readonly extra?: Readonly<Record<string, unknown>>
}

/** Why the lock could not be taken: a live owner, or a file-system error. */
export type Refusal =
  // `sure`: the owner is known alive; otherwise its heartbeat is still fresh, and it may be gone
  | { readonly _tag: "Held"; readonly owner: Owner; readonly path: string; readonly sure: boolean }
  | { readonly _tag: "Failed"; readonly path: string; readonly message: string; readonly code: string | undefined }

/** A held lock: `release` removes it (only if it is still ours); `update` rewrites what it says. */
export interface Lock {
  readonly path: string
  readonly owner: Owner
  readonly update: (extra: Readonly<Record<string, unknown>>) => void
  readonly release: () => void
}

/** This process, as a lock file names it. */
export const self = (pid: number = process.pid): Owner => {
  const start = startTime(pid)
  const boot = bootId()
  const pidns = pidNamespace()
  return {
    pid,
    ...(start === undefined ? {} : { start }),
    ...(boot === undefined ? {} : { boot }),
    ...(pidns === undefined ? {} : { pidns })
  }
}

/** Locks held by this process: a second acquire of one of them is refused like another process's. */
const heldHere = new Set<string>()

/** Takes the lock at `path` (its directory created when missing), or says why not. */
export const acquire = (path: string, options: { readonly owner?: Owner } = {}): Lock | Refusal => {
  const owner = options.owner ?? self()
  try {
    Fs.mkdirSync(Path.dirname(path), { recursive: true })
  } catch (e) {
    return failed(path, e)
  }
  if (heldHere.has(path)) return { _tag: "Held", owner, path, sure: true }
  for (let attempt = 0;; attempt++) {
    try {
      Fs.writeFileSync(path, serialize(owner), { flag: "wx", mode: 0o600 })
      return held(path, owner)
    } catch (e) {
      if (!isCode(e, "EEXIST")) return failed(path, e)
    }
    const found = read(path)
    if (found === undefined) continue // removed meanwhile: try again
    const state = liveness(found.owner, found.modified)
    if (state !== "dead") return { _tag: "Held", owner: found.owner, path, sure: state === "alive" }
    // Stale: move it aside, then check that what we moved is the stale lock we read and not a
    // fresh one another process just wrote.
    const aside = `${path}.stale-${owner.pid}-${attempt}`
    try {
      Fs.renameSync(path, aside)
    } catch (e) {
      if (isCode(e, "ENOENT")) continue
      return failed(path, e)
    }
    const moved = read(aside)
    if (
      moved !== undefined && !sameOwner(moved.owner, found.owner) && liveness(moved.owner, moved.modified) !== "dead"
    ) {
      // A live owner's lock: put it back where it was (unless it was recreated) and give up.
      try {
        Fs.linkSync(aside, path)
      } catch {
        // someone else holds the path now; either way it is not ours
      }
      Fs.rmSync(aside, { force: true })
      return { _tag: "Held", owner: moved.owner, path, sure: true }
    }
    Fs.rmSync(aside, { force: true })
    if (attempt > 5) return { _tag: "Failed", path, message: "the lock file keeps changing", code: undefined }
  }
}

/** Whether the lock at `path` is held by a live process (other than a stale one), without taking it. */
export const holder = (path: string): Owner | undefined => {
  const found = read(path)
  return found === undefined || liveness(found.owner, found.modified) === "dead" ? undefined : found.owner
}

/**
 * Whether the owner of a lock last refreshed at `modified` is alive: `dead` and `alive` are sure;
 * `unknown` is a lock from elsewhere whose heartbeat is still fresh.
 */
export const liveness = (owner: Owner, modified: number, now: number = Date.now()): "alive" | "dead" | "unknown" => {
  const here = self(owner.pid)
  const comparable = owner.boot !== undefined && owner.boot === here.boot && owner.pidns !== undefined &&
    owner.pidns === here.pidns && owner.start !== undefined
  if (comparable) return here.start !== undefined && here.start === owner.start ? "alive" : "dead"
  if (owner.boot === undefined && owner.pidns === undefined && owner.start === undefined) {
    // The older format, or a system without /proc: the process id is all there is. Our own id is
    // a previous process's (a container's PID 1 restarted): this process's own locks are known.
    return owner.pid !== process.pid && isAlive(owner.pid) ? "alive" : "dead"
  }
  return now - modified >= STALE_AFTER ? "dead" : "unknown"
}

// -----------------------------------------------------------------------------
// Internals
// -----------------------------------------------------------------------------

const held = (path: string, owner: Owner): Lock => {
  heldHere.add(path)
  let current = owner
  const timer = setInterval(() => {
    try {
      const now = new Date()
      Fs.utimesSync(path, now, now)
    } catch {
      // gone (released, or removed by hand): nothing to refresh
    }
  }, HEARTBEAT)
  timer.unref()
  return {
    path,
    owner,
    update: (extra) => {
      current = { ...owner, extra }
      const temp = `${path}.${owner.pid}.tmp`
      Fs.writeFileSync(temp, serialize(current), { mode: 0o600 })
      Fs.renameSync(temp, path)
    },
    release: () => {
      clearInterval(timer)
      heldHere.delete(path)
      const found = read(path)
      if (found !== undefined && sameOwner(found.owner, current)) Fs.rmSync(path, { force: true })
    }
  }
}

const serialize = (owner: Owner): string => `${JSON.stringify(owner)}\n`

const sameOwner = (a: Owner, b: Owner): boolean => a.pid === b.pid && a.start === b.start && a.boot === b.boot

/** The lock file's owner and when it was last refreshed; an unreadable or foreign file is a lock of no live process. */
const read = (path: string): { readonly owner: Owner; readonly modified: number } | undefined => {
  try {
    const text = Fs.readFileSync(path, "utf8").trim()
    const modified = Fs.statSync(path).mtimeMs
    return { owner: parse(text), modified }
  } catch {
    return undefined
  }
}

/** A lock file's text: JSON, or the older format (the process id alone). */
export const parse = (text: string): Owner => {
  if (/^\d{1,10}$/.test(text)) return { pid: Number(text) }
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value !== "object" || value === null || !("pid" in value) || typeof value.pid !== "number") {
      return { pid: 0 }
    }
    const field = (key: string): string | undefined =>
      key in value && typeof (value as Record<string, unknown>)[key] === "string"
        ? (value as Record<string, string>)[key]
        : undefined
    const extra = "extra" in value && typeof value.extra === "object" && value.extra !== null
      ? value.extra as Record<string, unknown>
      : undefined
    const start = field("start")
    const boot = field("boot")
    const pidns = field("pidns")
    return {
      pid: Number.isSafeInteger(value.pid) && value.pid > 0 ? value.pid : 0,
      ...(start === undefined ? {} : { start }),
      ...(boot === undefined ? {} : { boot }),
      ...(pidns === undefined ? {} : { pidns }),
      ...(extra === undefined ? {} : { extra })
    }
  } catch {
    return { pid: 0 }
  }
}

/** The start time of process `pid` in clock ticks after boot (field 22 of `/proc/<pid>/stat`), on Linux. */
const startTime = (pid: number): string | undefined => {
  if (pid <= 0) return undefined
  try {
    const stat = Fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    // the command name (field 2) is in parentheses and may hold spaces: count from after it
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return fields[19] // field 22 overall: fields 3.. start at index 0
  } catch {
    return undefined
  }
}

const bootId = (): string | undefined => {
  try {
    return Fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()
  } catch {
    return undefined
  }
}

const pidNamespace = (): string | undefined => {
  try {
    return Fs.readlinkSync("/proc/self/ns/pid")
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

const failed = (path: string, e: unknown): Refusal => ({
  _tag: "Failed",
  path,
  message: e instanceof Error ? e.message : String(e),
  code: typeof e === "object" && e !== null && "code" in e && typeof e.code === "string" ? e.code : undefined
})

/** Whether `e` is a Node system error with this code. */
export const isCode = (e: unknown, code: string): boolean =>
  typeof e === "object" && e !== null && "code" in e && e.code === code
