// The local journal: what is appended reads back in order, across segments; what is written is
// dropped; a journal left by a process that is gone is adopted by the next, up to a damaged
// record (a crash before the last sync), and says where it was damaged.
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Journal from "../src/internal/journal.js"

const directory = () => Fs.mkdtempSync(Path.join(Os.tmpdir(), "tool-search-journal-test-"))

describe("Journal", () => {
  it("property: records read back in order, whole, across segments; a written prefix is dropped", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 300 }), { maxLength: 60 }), fc.nat(60), (texts, cut) => {
        const dir = directory()
        const journal = Journal.open(dir, { maxBytes: 10 * 1024 * 1024, segmentBytes: 512 })
        const records = texts.map((t) => JSON.stringify({ t }))
        const ends = records.map((r) => journal.append(r))
        assert.isTrue(ends.every((e) => e !== undefined))
        const all = journal.read(journal.start(), 1e9)
        assert.deepStrictEqual(all.map((r) => r.json), records)
        // what is written (the first `cut` records) is acknowledged; the rest still reads back
        const upTo = Math.min(cut, records.length)
        if (upTo > 0) journal.ack(ends[upTo - 1]!)
        const from = upTo > 0 ? ends[upTo - 1]! : journal.start()
        assert.deepStrictEqual(journal.read(from, 1e9).map((r) => r.json), records.slice(upTo))
        journal.close()
        Fs.rmSync(dir, { recursive: true, force: true })
      }),
      { numRuns: 60 }
    )
  })

  it("bounded: an append beyond maxBytes is refused", () => {
    const dir = directory()
    const journal = Journal.open(dir, { maxBytes: 1024 * 1024 })
    const big = JSON.stringify({ t: "x".repeat(600 * 1024) })
    assert.isDefined(journal.append(big))
    assert.isUndefined(journal.append(big))
    journal.close()
  })

  it("a journal closed with records held is adopted by the next process, and removed once taken", () => {
    const dir = directory()
    const first = Journal.open(dir, { maxBytes: 1024 * 1024, segmentBytes: 256 })
    const records = Array.from({ length: 20 }, (_, i) => JSON.stringify({ i }))
    for (const r of records) first.append(r)
    first.close() // nothing acknowledged: the files stay, synced
    const orphans = Journal.adoptOrphans(dir)
    assert.strictEqual(orphans.length, 1)
    assert.deepStrictEqual(orphans[0]!.records, records)
    assert.isUndefined(orphans[0]!.damaged)
    orphans[0]!.remove()
    assert.deepStrictEqual(Fs.readdirSync(dir).filter((f) => f.endsWith(".journal")), [])
    assert.deepStrictEqual(Journal.adoptOrphans(dir), [])
  })

  it("a live journal is not adopted; a torn or corrupted record is counted, and the others are read", () => {
    const dir = directory()
    const live = Journal.open(dir, { maxBytes: 1024 * 1024 })
    live.append(JSON.stringify({ live: true }))
    assert.deepStrictEqual(Journal.adoptOrphans(dir), [])
    live.close()
    // a crash before the last sync: the final record is half there
    const segment = Fs.readdirSync(dir).find((f) => f.endsWith(".journal"))!
    const file = Path.join(dir, segment)
    Fs.appendFileSync(file, Journal.line(JSON.stringify({ next: 1 })))
    Fs.appendFileSync(file, Journal.line(JSON.stringify({ torn: true })).slice(0, 15))
    const torn = Journal.adoptOrphans(dir)[0]!
    assert.deepStrictEqual(torn.records, [JSON.stringify({ live: true }), JSON.stringify({ next: 1 })])
    assert.strictEqual(torn.damaged?.segment, segment)
    torn.remove()
    const again = Journal.open(dir, { maxBytes: 1024 * 1024 })
    for (const i of [1, 2, 3]) again.append(JSON.stringify({ i }))
    again.close()
    const name = Fs.readdirSync(dir).find((f) => f.endsWith(".journal"))!
    const bytes = Fs.readFileSync(Path.join(dir, name))
    const second = bytes.indexOf(10) + 12 // inside the second record's JSON
    bytes[second] = bytes[second] === 0x31 ? 0x32 : 0x31
    Fs.writeFileSync(Path.join(dir, name), bytes)
    // a flipped byte: that record fails its checksum; the others are read
    const corrupted = Journal.adoptOrphans(dir)[0]!
    assert.deepStrictEqual(corrupted.records, [JSON.stringify({ i: 1 }), JSON.stringify({ i: 3 })])
    assert.strictEqual(corrupted.damaged?.lines, 1)
  })
})
