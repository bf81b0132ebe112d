import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { Bm25f, CatalogTool, SearchDocument } from "../src/index.js"
import * as FieldWeights from "../src/internal/bm25f/FieldWeights.js"
import * as Bm25fIndex from "../src/internal/bm25fIndex.js"

const FIELDS = Bm25fIndex.FIELDS.length
// weights in quarters, as a user sets them
const weights = fc.array(fc.nat({ max: 20 }), { minLength: FIELDS, maxLength: FIELDS })
  .map((ws) => Float64Array.from(ws, (w) => w / 4))
const counts = fc.array(fc.nat({ max: 50 }), { minLength: FIELDS, maxLength: FIELDS }).map((cs) =>
  Float64Array.from(cs)
)
const share = fc.double({ min: 0, max: 1, noNaN: true })
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b))

describe("BM25F field weights that adapt to the catalog", () => {
  it("property: PRMS mapping at 0 is the fixed weights, and at any share keeps a term's weight over its fields", () => {
    fc.assert(
      fc.property(weights, share, counts, counts, (base, gamma, occurrences, lengths) => {
        // a field's length is at least the occurrences of one term in it
        const totals = lengths.map((l, f) => l + (occurrences[f] as number))
        const off = FieldWeights.mapped(base, 0, occurrences, totals, new Float64Array(FIELDS))
        assert.deepStrictEqual([...off], [...base])
        const out = FieldWeights.mapped(base, gamma, occurrences, totals, new Float64Array(FIELDS))
        let before = 0
        let after = 0
        for (let f = 0; f < FIELDS; f++) {
          assert.isAtLeast(out[f] as number, 0)
          if ((occurrences[f] as number) > 0) {
            before += base[f] as number
            after += out[f] as number
          }
        }
        assert.isTrue(close(after, before), `${after} against ${before}`)
      })
    )
  })

  it("PRMS maps a term to the field whose text it fills", () => {
    // one occurrence in each field; the name's text is 10 words, the description's 1,000
    const out = FieldWeights.mapped(
      Float64Array.of(1, 0, 0, 0, 1, 0, 0),
      1,
      Float64Array.of(1, 0, 0, 0, 1, 0, 0),
      Float64Array.of(10, 0, 0, 0, 1000, 0, 0),
      new Float64Array(FIELDS)
    )
    assert.isAbove(out[0] as number, 1.9)
    assert.isBelow(out[4] as number, 0.1)
  })

  it("property: informativeness at 0 is the fixed weights; a field of rarer words than the catalog's weighs more", () => {
    fc.assert(
      fc.property(
        weights,
        fc.double({ min: 0.1, max: 3, noNaN: true }),
        counts,
        counts,
        (base, beta, mass, lengths) => {
          assert.deepStrictEqual(
            [...FieldWeights.informative(base, 0, mass, lengths, new Float64Array(FIELDS))],
            [...base]
          )
          const out = FieldWeights.informative(base, beta, mass, lengths, new Float64Array(FIELDS))
          const overall = mass.reduce((s, m) => s + m, 0) / lengths.reduce((s, l) => s + l, 0)
          for (let f = 0; f < FIELDS; f++) {
            const mean = (mass[f] as number) / (lengths[f] as number)
            if (!(mean > 0) || !(overall > 0) || !Number.isFinite(mean) || (base[f] as number) === 0) continue
            if (mean > overall) assert.isAbove(out[f] as number, base[f] as number)
            if (mean < overall) assert.isBelow(out[f] as number, base[f] as number)
          }
        }
      )
    )
  })

  it("property: boilerplate at 0 is the fixed weights, and a term in more tools' field never weighs more there", () => {
    fc.assert(
      fc.property(weights, fc.double({ min: 0, max: 4, noNaN: true }), counts, (base, beta, fieldDf) => {
        const n = 50
        if (beta === 0) {
          assert.deepStrictEqual([...FieldWeights.boilerplate(base, 0, fieldDf, n, new Float64Array(FIELDS))], [
            ...base
          ])
        }
        const out = FieldWeights.boilerplate(base, beta, fieldDf, n, new Float64Array(FIELDS))
        const more = FieldWeights.boilerplate(
          base,
          beta,
          fieldDf.map((d) => Math.min(n, d + 1)),
          n,
          new Float64Array(FIELDS)
        )
        for (let f = 0; f < FIELDS; f++) {
          assert.isAtMost(out[f] as number, base[f] as number)
          assert.isAtMost(more[f] as number, out[f] as number)
        }
      })
    )
  })

  it("a parameter name every tool carries stops deciding the ranking under boilerplate", () => {
    // every tool has a `subscription` parameter; only the billing tool says it in its description
    const tools = ["vm_list", "disk_list", "net_list", "ip_list", "billing_show"].map((name) =>
      SearchDocument.fromTool(CatalogTool.make({
        name,
        description: name === "billing_show" ? "Show the subscription's bill" : `List the ${name.split("_")[0]}s`,
        parameters: {
          type: "object",
          properties: {
            subscription: { type: "string" },
            ...(name === "vm_list" ? {} : { tenant: { type: "string" } })
          }
        }
      }))
    )
    const parameters = {
      ...Bm25f.defaults,
      fusion: undefined,
      weights: { ...Bm25f.defaults.weights, parameterNames: 3 }
    }
    const score = (p: Bm25f.Parameters, id: string) => {
      const index = Bm25fIndex.make(p)
      index.add(tools)
      return index.score(id, "subscription")
    }
    const fixed = score(parameters, "vm_list")
    const adapted = score({ ...parameters, boilerplate: 4 }, "vm_list")
    assert.isAbove(fixed, 0)
    assert.isBelow(adapted, fixed / 10)
    // the tool whose description says it still matches, and ranks first
    assert.isAbove(score({ ...parameters, boilerplate: 4 }, "billing_show"), 0)
    const index = Bm25fIndex.make({ ...parameters, boilerplate: 4 })
    index.add(tools)
    const best = Effect.runSync(index.search({ text: "subscription", limit: 1, accept: () => true }))
    assert.deepStrictEqual(best.map((h) => h.id), ["billing_show"])
  })
})
