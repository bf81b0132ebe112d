// The lock of an embedded database directory and of a journal: who holds it, and when a lock left
// behind is stale — by process id and start time where that is exact, by heartbeat where it is not
// (another pid namespace: a container restarted as PID 1, or sharing the directory).
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as ProcessLock from "../src/internal/processLock.js"

const lockPath = () => Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "tool-search-lock-")), "tool-search.lock")
const write = (path: string, owner: object, ageMillis = 0) => {
  Fs.writeFileSync(path, JSON.stringify(owner))
  const when = new Date(Date.now() - ageMillis)
  Fs.utimesSync(path, when, when)
}

/** Asserts that the lock at `path` is taken, then releases it. */
const expectTakenAndReleased = (path: string) => {
  const lock = ProcessLock.acquire(path)
  assert.isTrue("release" in lock)
  if ("release" in lock) lock.release()
}

describe("ProcessLock", () => {
  it("a restarted container's PID 1 takes over its dead predecessor's lock: same id, another start time", () => {
    const path = lockPath()
    const me = ProcessLock.self()
    // what a process with this very id wrote before it died (e.g. PID 1 in a container's last run)
    write(path, { ...me, start: `${Number(me.start ?? 0) - 1}` })
    const lock = ProcessLock.acquire(path)
    assert.isTrue("release" in lock, JSON.stringify(lock))
    if ("release" in lock) lock.release()
  })

  it("the older lock format (a process id alone) naming this process's id is a predecessor's", () => {
    const path = lockPath()
    Fs.writeFileSync(path, `${process.pid}\n`)
    expectTakenAndReleased(path)
  })

  it("a live owner is refused, surely; this process's own lock too", () => {
    const path = lockPath()
    const first = ProcessLock.acquire(path)
    assert.isTrue("release" in first)
    const again = ProcessLock.acquire(path)
    assert.deepInclude(again, { _tag: "Held", sure: true })
    if ("release" in first) first.release()
    assert.isFalse(Fs.existsSync(path))
  })

  it("a lock of another pid namespace is alive while its heartbeat is fresh, stale after", () => {
    const path = lockPath()
    const elsewhere = { pid: 1, start: "1", boot: ProcessLock.self().boot ?? "boot", pidns: "pid:[1]" }
    write(path, elsewhere)
    assert.deepInclude(ProcessLock.acquire(path), { _tag: "Held", sure: false })
    write(path, elsewhere, ProcessLock.STALE_AFTER + 1_000)
    expectTakenAndReleased(path)
  })

  it("a holder refreshes its heartbeat and says where its audit is read", () => {
    const path = lockPath()
    const lock = ProcessLock.acquire(path)
    if (!("release" in lock)) return assert.fail("not taken")
    lock.update({ audit: { port: 1234, token: "t" } })
    assert.deepStrictEqual(ProcessLock.holder(path)?.extra, { audit: { port: 1234, token: "t" } })
    lock.release()
    assert.isUndefined(ProcessLock.holder(path))
  })
})
