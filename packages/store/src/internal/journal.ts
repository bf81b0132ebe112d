/**
 * The local journal: an append-only file of what the store has yet to write to the database, so
 * that what is held survives the process — a stop during an outage, a `kill -9` — and is written
 * by the next process that opens the journal's directory.
 *
 * - **Records** are lines, `<crc32> <json>`: a record torn by a crash (a power loss after the last
 *   `fsync`) or damaged on disk fails its checksum: it is skipped, counted, and said so.
 * - **Appends** are synchronous `write`s: once `append` returns, the record is in the operating
 *   system's cache, which a killed process does not lose; `sync` (`fsync`) makes it survive a
 *   power loss too, and the caller runs it on a timer.
 * - **Segments**: the journal is a sequence of files (`<instance>.<n>.journal`), a new one every
 *   `segmentBytes`; a segment whose records are all written is deleted. It holds at most
 *   `maxBytes`: an append beyond that is refused, and the caller counts what it loses.
 * - **One writer per journal**: each process writes its own instance's files, under a lock
 *   (`ProcessLock`). Files whose instance is gone (its lock is stale or missing) are orphans: a
 *   process opening the directory adopts them (`adoptOrphans`) and removes them once their records
 *   are in its own journal.
 *
 * @internal
 */
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { crc32 } from "node:zlib"
import * as ProcessLock from "./processLock.js"

/** Where the next record starts: a segment and an offset in it. */
export interface Position {
  readonly segment: number
  readonly offset: number
}

/** One record read back, and the position after it. */
export interface Record {
  readonly json: string
  readonly next: Position
}

/** A journal open for writing. */
export interface Journal {
  readonly directory: string
  readonly instance: string
  /** Appends a record; `undefined` when the journal is full (or the disk refused it). */
  readonly append: (json: string) => Position | undefined
  /** The records from `from` on, at most about `maxBytes` of them. */
  readonly read: (from: Position, maxBytes: number) => ReadonlyArray<Record>
  /** Where the next append goes. */
  readonly end: () => Position
  /** Where the first record held starts. */
  readonly start: () => Position
  /** Everything before `upTo` is written: segments wholly before it are deleted. */
  readonly ack: (upTo: Position) => void
  /** `fsync`: what was appended survives a power loss. */
  readonly sync: () => void
  /** Bytes held in the journal's segments. */
  readonly bytes: () => number
  /**
   * Closes the journal: with nothing held, its files go; otherwise they stay (synced) for the next
   * process to adopt.
   */
  readonly close: () => void
}

/** What an orphaned journal held. */
export interface Orphan {
  readonly instance: string
  /** Its records, in order. */
  readonly records: ReadonlyArray<string>
  /**
   * When records could not be read (cut short by a crash or a full disk, or damaged on disk): the
   * first one's position, how many lines were bad, and when the file was last written.
   */
  readonly damaged:
    | { readonly segment: string; readonly offset: number; readonly lines: number; readonly modified: number }
    | undefined
  /** Removes the orphan's files (once its records are safe elsewhere) and its lock. */
  readonly remove: () => void
}

export interface Options {
  readonly maxBytes: number
  readonly segmentBytes?: number
  /**
   * What the journal is for (the database, as a short digest): journals of processes that wrote for
   * another database, in a directory they share, are never adopted. Default `any`.
   */
  readonly scope?: string
}

const SUFFIX = ".journal"

const segmentName = (instance: string, n: number) => `${instance}.${String(n).padStart(6, "0")}${SUFFIX}`
const lockName = (instance: string) => `${instance}.lock`

/** A record's line. */
export const line = (json: string): string => `${crc32(json).toString(16).padStart(8, "0")} ${json}\n`

/** A line read back: its JSON when its checksum holds. */
export const check = (text: string): string | undefined => {
  const space = text.indexOf(" ")
  if (space !== 8) return undefined
  const json = text.slice(9)
  return Number.parseInt(text.slice(0, 8), 16) === crc32(json) && /^[0-9a-f]{8}$/.test(text.slice(0, 8))
    ? json
    : undefined
}

/**
 * Opens a new journal in `directory` for this process (a new instance id, its lock taken); fails
 * with the file system's error.
 */
export const open = (directory: string, options: Options): Journal => {
  Fs.mkdirSync(directory, { recursive: true, mode: 0o700 })
  const instance = `${options.scope ?? "any"}-${process.pid}-${randomBytes(4).toString("hex")}`
  const lock = ProcessLock.acquire(Path.join(directory, lockName(instance)))
  if (!("release" in lock)) {
    throw Object.assign(new Error(lock._tag === "Held" ? "its lock is held" : lock.message), {
      code: lock._tag === "Failed" ? lock.code : undefined
    })
  }
  const segmentBytes = options.segmentBytes ?? 4 * 1024 * 1024
  // live segments, oldest first, with their sizes
  const segments: Array<{ n: number; size: number }> = []
  let fd: number | undefined
  let acked: Position = { segment: 0, offset: 0 }

  const pathOf = (n: number) => Path.join(directory, segmentName(instance, n))
  const openSegment = (n: number) => {
    fd = Fs.openSync(pathOf(n), "a", 0o600)
    segments.push({ n, size: 0 })
  }
  openSegment(0)
  const current = () => segments[segments.length - 1] as { n: number; size: number } // never empty
  const total = () => segments.reduce((sum, s) => sum + s.size, 0)

  // a record cut short by a full disk: the next append first ends its line, so it stays one bad line
  let cut = false
  const append = (json: string): Position | undefined => {
    const text = `${cut ? "\n" : ""}${line(json)}`
    const size = Buffer.byteLength(text)
    if (total() + size > options.maxBytes) return undefined
    let written = 0
    try {
      if (current().size >= segmentBytes && !cut) {
        if (fd !== undefined) {
          Fs.fsyncSync(fd)
          Fs.closeSync(fd)
        }
        openSegment(current().n + 1)
      }
      written = Fs.writeSync(fd as number, text)
    } catch (e) {
      written = typeof e === "object" && e !== null && "bytesWritten" in e && typeof e.bytesWritten === "number"
        ? e.bytesWritten
        : 0
    }
    const segment = current()
    segment.size += written
    cut = written > 0 && written < size
    // the disk refused it (full): the caller counts it lost, or holds it in memory
    if (written < size) return undefined
    return { segment: segment.n, offset: segment.size }
  }

  const read = (from: Position, maxBytes: number): ReadonlyArray<Record> => {
    const out: Array<Record> = []
    let position = from
    let budget = maxBytes
    for (const segment of segments) {
      if (segment.n < position.segment) continue
      if (segment.n > position.segment) position = { segment: segment.n, offset: 0 }
      while (position.offset < segment.size && budget > 0) {
        const remaining = segment.size - position.offset
        let buffer = readAt(pathOf(segment.n), position.offset, Math.min(remaining, Math.max(budget, 1024 * 1024)))
        if (buffer.indexOf(10) === -1) buffer = readAt(pathOf(segment.n), position.offset, remaining) // one long record
        let start = 0
        for (let newline = buffer.indexOf(10); newline !== -1; newline = buffer.indexOf(10, start)) {
          const json = check(buffer.toString("utf8", start, newline))
          position = { segment: segment.n, offset: position.offset + newline + 1 - start }
          budget -= newline + 1 - start
          start = newline + 1
          if (json !== undefined) out.push({ json, next: position })
        }
        if (start === 0) return out // nothing complete (cannot happen: appends write whole lines)
      }
      if (budget <= 0) return out
    }
    return out
  }

  const ack = (upTo: Position) => {
    if (compare(upTo, acked) <= 0) return
    acked = upTo
    while (segments.length > 1 && (segments[0] as { n: number }).n < upTo.segment) {
      const gone = segments.shift() as { n: number }
      Fs.rmSync(pathOf(gone.n), { force: true })
    }
    // everything written and the segment is large: start afresh
    const segment = current()
    if (upTo.segment === segment.n && upTo.offset >= segment.size && segment.size >= segmentBytes) {
      if (fd !== undefined) Fs.closeSync(fd)
      openSegment(segment.n + 1)
      segments.shift()
      Fs.rmSync(pathOf(segment.n), { force: true })
    }
  }

  return {
    directory,
    instance,
    append,
    read,
    end: () => ({ segment: current().n, offset: current().size }),
    start: () =>
      compare(acked, { segment: (segments[0] as { n: number }).n, offset: 0 }) > 0
        ? acked
        : { segment: (segments[0] as { n: number }).n, offset: 0 },
    ack,
    sync: () => {
      if (fd !== undefined) Fs.fsyncSync(fd)
    },
    bytes: total,
    close: () => {
      const segment = current()
      const empty = compare(acked, { segment: segment.n, offset: segment.size }) >= 0 ||
        segments.every((s) => s.size === 0)
      if (fd !== undefined) {
        if (!empty) Fs.fsyncSync(fd)
        Fs.closeSync(fd)
        fd = undefined
      }
      if (empty) { for (const s of segments) Fs.rmSync(pathOf(s.n), { force: true }) }
      lock.release()
    }
  }
}

const modifiedAt = (path: string): number => {
  try {
    return Fs.statSync(path).mtimeMs
  } catch {
    return Date.now()
  }
}

const readAt = (path: string, offset: number, length: number): Buffer => {
  const buffer = Buffer.alloc(length)
  const handle = Fs.openSync(path, "r")
  try {
    const read = Fs.readSync(handle, buffer, 0, length, offset)
    return read === length ? buffer : buffer.subarray(0, read)
  } finally {
    Fs.closeSync(handle)
  }
}

/** Orders positions. */
export const compare = (a: Position, b: Position): number => a.segment - b.segment || a.offset - b.offset

/**
 * The journals in `directory` for `scope` whose process is gone, each locked for this process while
 * it is adopted: read them, keep their records, then `remove` them.
 */
export const adoptOrphans = (directory: string, scope = "any"): ReadonlyArray<Orphan> => {
  let names: ReadonlyArray<string>
  try {
    names = Fs.readdirSync(directory)
  } catch {
    return []
  }
  const instances = [
    ...new Set(
      names.filter((n) => n.endsWith(SUFFIX) && n.startsWith(`${scope}-`)).map((n) => n.split(".")[0] as string)
    )
  ]
  const orphans: Array<Orphan> = []
  for (const instance of instances) {
    const lock = ProcessLock.acquire(Path.join(directory, lockName(instance)))
    if (!("release" in lock)) continue // alive (or its heartbeat still fresh): not an orphan
    const files = names.filter((n) => n.startsWith(`${instance}.`) && n.endsWith(SUFFIX)).sort()
    const records: Array<string> = []
    let damaged: Orphan["damaged"]
    for (const file of files) {
      let text: string
      try {
        text = Fs.readFileSync(Path.join(directory, file), "utf8")
      } catch {
        continue
      }
      const lines = text.split("\n")
      let offset = 0
      for (const [i, part] of lines.entries()) {
        const last = i === lines.length - 1
        if (last && part === "") break // the final newline
        // a record that fails its checksum, or a last one without its newline: cut or damaged
        const json = last ? undefined : check(part)
        if (json === undefined) {
          damaged = damaged === undefined
            ? { segment: file, offset, lines: 1, modified: modifiedAt(Path.join(directory, file)) }
            : { ...damaged, lines: damaged.lines + 1 }
        } else {
          records.push(json)
        }
        offset += Buffer.byteLength(part) + 1
      }
    }
    orphans.push({
      instance,
      records,
      damaged,
      remove: () => {
        for (const file of files) Fs.rmSync(Path.join(directory, file), { force: true })
        lock.release()
      }
    })
  }
  return orphans
}
