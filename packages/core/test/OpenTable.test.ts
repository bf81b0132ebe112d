import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as OpenTable from "../src/internal/bm25f/OpenTable.js"
import * as Fnv from "../src/internal/fnv.js"

// The table behind the BM25F store's ids and the vocabulary's words and terms: random puts and
// removals of string keys, checked against a Map after every step. A table of two slots that
// doubles when half full, with keys whose hashes are cut to a few bits (some homed in the last
// slots), so clusters wrap around its end and removals move entries back across it.
describe("OpenTable", () => {
  it("property: after any puts and removals, every key is found with its value, and no removed key is", () => {
    const step = fc.record({ put: fc.boolean(), key: fc.integer({ min: 0, max: 30 }) })
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 120 }),
        fc.integer({ min: 0, max: 3 }),
        fc.boolean(),
        (steps, hashBits, high) => {
          const table = OpenTable.make(1)
          const keys: Array<string> = []
          const model = new Map<string, number>()
          // few hash bits: many keys share a hash, so the keys themselves must be compared; with
          // `high`, the odd keys' hashes have every other bit set, so they live in the last slots
          // and their clusters wrap around into those of the even keys
          const hashOf = (key: string) => {
            const low = Fnv.hash(key) & ((1 << hashBits) - 1)
            return high && Number(key.slice(1)) % 2 === 1 ? ~low : low
          }
          for (const { key: n, put } of steps) {
            const key = `k${n}`
            const at = OpenTable.find(table, hashOf(key), keys, key)
            const value = OpenTable.valueAt(table, at)
            assert.strictEqual(value, model.get(key) ?? -1, key)
            if (put && value < 0) {
              keys.push(key)
              OpenTable.put(table, at, hashOf(key), keys.length - 1)
              model.set(key, keys.length - 1)
            } else if (!put && value >= 0) {
              OpenTable.remove(table, at)
              model.delete(key)
            }
            assert.strictEqual(table.size, model.size)
            for (let m = 0; m <= 30; m++) {
              const other = `k${m}`
              const found = OpenTable.valueAt(table, OpenTable.find(table, hashOf(other), keys, other))
              assert.strictEqual(found, model.get(other) ?? -1, `${other} after ${put ? "put" : "remove"} ${key}`)
            }
          }
        }
      ),
      { numRuns: 300 }
    )
  })

  it("a removal moves back an entry that wrapped around the end and is homed at the hole itself", () => {
    // eight slots: a and b both homed at the last slot, b wrapped into the first; removing a must
    // move b back into its home, or b is no longer found
    const table = OpenTable.make(3)
    const keys = ["a", "b"]
    OpenTable.put(table, OpenTable.find(table, 7, keys, "a"), 7, 0)
    OpenTable.put(table, OpenTable.find(table, 15, keys, "b"), 15, 1)
    assert.strictEqual(OpenTable.find(table, 15, keys, "b"), 0)
    OpenTable.remove(table, OpenTable.find(table, 7, keys, "a"))
    assert.strictEqual(OpenTable.valueAt(table, OpenTable.find(table, 15, keys, "b")), 1)
    assert.strictEqual(OpenTable.valueAt(table, OpenTable.find(table, 7, keys, "a")), -1)
  })

  it("the attack: keys crafted to share FNV-1a's low bits get home slots of their own under the table hash", () => {
    // characters that differ only in bits 10 and up leave FNV-1a's low ten bits as they are,
    // whatever its offset: 64 such ids all start their probe at one slot of a 1,024-slot table
    const ids = Array.from({ length: 64 }, (_, i) => `mail/${String.fromCharCode(97 + 1024 * (i + 1))}send`)
    const slots = (hash: (id: string) => number) => new Set(ids.map((id) => hash(id) & 1023)).size
    assert.strictEqual(slots(Fnv.hash), 1)
    assert.strictEqual(slots((id) => Fnv.hashFrom(Fnv.TABLE_OFFSET, id)), 1)
    // mixed, they spread (64 random slots of 1,024: about 62 distinct)
    assert.isAbove(slots((id) => Fnv.tableHash(Fnv.TABLE_OFFSET, id)), 48)
  })
})
