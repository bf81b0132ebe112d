import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import * as Analyzer from "../src/Analyzer.js"
import { Bm25f, CatalogTool, SearchDocument } from "../src/index.js"
import { idf } from "../src/internal/bm25f/Idf.js"
import * as Proximity from "../src/internal/bm25f/Proximity.js"
import * as Scorer from "../src/internal/bm25f/Scorer.js"
import * as Bm25fIndex from "../src/internal/bm25fIndex.js"
import { byScore } from "../src/internal/TopK.js"
import type { Hit } from "../src/SearchStrategy.js"

const doc = (input: CatalogTool.Input) => SearchDocument.fromTool(CatalogTool.make(input))
const all = () => true
const search = (index: Bm25f.Index, text: string, limit: number, accept: (id: string) => boolean = all) =>
  Effect.runSync(index.search({ text, limit, accept }))

const inOrder: Bm25f.Proximity = { weight: 0.25, window: 1, ordered: true }
const eitherWay: Bm25f.Proximity = { weight: 0.25, window: 3, ordered: false }

describe("BM25F: term proximity", () => {
  const tools = [
    // the same words: one says "send email", the other has them apart and the other way round
    doc({ id: "z_adjacent", name: "alpha", description: "send email now people" }),
    doc({ id: "a_apart", name: "beta", description: "email people now send" }),
    doc({ id: "weather", name: "weather_now", description: "Current weather in a city" }),
    doc({ id: "files", name: "list_files", description: "List the files in a folder" })
  ]

  it("a proximity of weight 0 is no proximity", () => {
    const without = Bm25fIndex.make(Bm25f.defaults)
    const zero = Bm25fIndex.make({ ...Bm25f.defaults, proximity: { ...inOrder, weight: 0 } })
    without.add(tools)
    zero.add(tools)
    for (const q of ["send email", "email people. Then list the files", "weather", "now send \"email\""]) {
      assert.deepStrictEqual(search(zero, q, 10), search(without, q, 10), q)
    }
  })

  it("adjacent request terms held adjacent in order gain weight · best score; held apart, they do not", () => {
    const plain = Bm25fIndex.plain(Bm25f.defaults)
    const without = Bm25fIndex.make(plain)
    const close = Bm25fIndex.make({ ...plain, proximity: inOrder })
    without.add(tools)
    close.add(tools)
    const before = search(without, "send email", 10)
    // the same words and lengths: tied, so the id decides
    assert.deepStrictEqual(before.map((h) => h.id), ["a_apart", "z_adjacent"])
    assert.strictEqual(before[0]?.score, before[1]?.score)
    const after = search(close, "send email", 10)
    assert.deepStrictEqual(after.map((h) => h.id), ["z_adjacent", "a_apart"])
    // one pair, held at distance 1: proximity 1
    assert.closeTo((after[0] as Hit).score, (before[0] as Hit).score * 1.25, 1e-12)
    assert.strictEqual(after[1]?.score, before[0]?.score)
    // either way within 3: "email … send" is 3 apart, 1/3 of the adjacent pair's gain
    const loose = Bm25fIndex.make({ ...plain, proximity: eitherWay })
    loose.add(tools)
    const base = (before[0] as Hit).score
    assert.deepStrictEqual(
      search(loose, "send email", 10).map((h) => [h.id, h.score]),
      [["z_adjacent", base + 0.25 * base], ["a_apart", base + 0.25 * base * (1 / 3)]]
    )
  })

  it("terms in two texts are never close: a name's last word and the description's first", () => {
    const split = [doc({ id: "x", name: "mail_send", description: "email a contact" })]
    const without = Bm25fIndex.make(Bm25f.defaults)
    const close = Bm25fIndex.make({ ...Bm25f.defaults, proximity: { weight: 1, window: 4, ordered: false } })
    without.add([...tools, ...split])
    close.add([...tools, ...split])
    const score = (index: Bm25f.Index) => search(index, "send email", 10).find((h) => h.id === "x")?.score
    assert.strictEqual(score(close), score(without))
  })

  it("only the first DEPTH hits are re-scored: a close hit below them keeps its score and place", () => {
    // DEPTH + 5 tools hold both words apart; one holds them adjacent, in a longer text: it ranks last
    const apart = Array.from(
      { length: Proximity.DEPTH + 5 },
      (_, i) => doc({ id: `a${String(i).padStart(2, "0")}`, name: "tool", description: "send report email" })
    )
    const below = doc({ id: "z", name: "tool", description: "send email report report report report report report" })
    const plain = Bm25fIndex.plain(Bm25f.defaults)
    const without = Bm25fIndex.make(plain)
    const close = Bm25fIndex.make({ ...plain, proximity: { ...inOrder, weight: 1 } })
    without.add([...apart, below])
    close.add([...apart, below])
    const before = search(without, "send email", 100)
    assert.strictEqual(before.at(-1)?.id, "z")
    assert.deepStrictEqual(search(close, "send email", 100), before)
    assert.strictEqual(close.score("z", "send email"), without.score("z", "send email"))
  })

  it("`score` is the re-scored score `search` gives", () => {
    const close = Bm25fIndex.make({ ...Bm25f.defaults, proximity: inOrder })
    close.add(tools)
    for (const hit of search(close, "send email now", 10)) {
      assert.strictEqual(close.score(hit.id, "send email now"), hit.score)
    }
  })

  // Random catalogs of more tools than the re-scored depth, from a small vocabulary so that most
  // requests match more of them than that.
  const WORDS = ["send", "email", "list", "file", "get", "status", "user", "report", "weather"]
  const word = fc.constantFrom(...WORDS)
  const words = (min: number, max: number) => fc.array(word, { minLength: min, maxLength: max })
  const tool = fc.record({
    id: fc.integer({ min: 0, max: 299 }),
    name: words(1, 3).map((ws) => ws.join("_")),
    description: words(0, 6).map((ws) => ws.join(" ")),
    parameters: fc.array(fc.tuple(word, words(0, 4).map((ws) => ws.join(" "))), { maxLength: 2 })
  })
  // half the tools say "send email", so requests that do have more close hits than the depth
  const toDoc = (t: typeof tool extends fc.Arbitrary<infer A> ? A : never) =>
    doc({
      id: `t${t.id}`,
      name: t.name,
      description: t.id % 2 === 0 ? `${t.description} send email` : t.description,
      parameters: {
        type: "object",
        properties: Object.fromEntries(
          t.parameters.map(([name, description]) => [name, { type: "string", description }])
        )
      }
    })
  const batch = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.array(tool, { minLength: 1, maxLength: 200, size: "max" }).map((ts) => ({ add: ts.map(toDoc) }))
    },
    {
      weight: 1,
      arbitrary: fc.array(fc.integer({ min: 0, max: 299 }), { maxLength: 10 }).map((ids) => ({
        remove: ids.map((id) => `t${id}`)
      }))
    }
  )
  const request = fc.tuple(fc.boolean(), words(1, 4), fc.constantFrom("", ". Then ", " \""), words(0, 3)).map((
    [sending, a, glue, b]
  ) => `${sending ? "send email " : ""}${a.join(" ")}${glue}${b.join(" ")}${glue === " \"" ? "\"" : ""}`)

  /**
   * The re-scored ranking written from its definition, with nothing kept between requests: the
   * exhaustive ranking's first `DEPTH` hits each gain `weight · best · Σ pair weight / distance /
   * Σ pair weight`, distances read from every text of every tool.
   */
  const reference = (
    parameters: Bm25f.Parameters,
    proximity: Bm25f.Proximity,
    docs: ReadonlyArray<SearchDocument.SearchDocument>,
    ranking: ReadonlyArray<Hit>,
    text: string
  ): ReadonlyArray<Hit> => {
    const analyzer = Analyzer.make(parameters.analyzer)
    const textsOf = new Map(
      docs.map((
        d
      ) => [d.id, Bm25fIndex.fieldValues(d).flatMap((v) => (typeof v === "string" ? [v] : v)).map(analyzer.terms)])
    )
    const df = (term: string) => docs.filter((d) => (textsOf.get(d.id) ?? []).some((ts) => ts.includes(term))).length
    const query = analyzer.weightedQueryTerms(text, parameters.quotedWeight)
    const pairs = query.terms.slice(1).map((b, i) => {
      const a = query.terms[i] as string
      const weight = Math.min(query.weights[i] as number, query.weights[i + 1] as number) *
        (idf(docs.length, df(a)) + idf(docs.length, df(b)))
      return { a, b, weight }
    })
    const total = pairs.reduce((sum, p) => sum + p.weight, 0)
    const best = ranking[0]?.score ?? 0
    const head = ranking.slice(0, Proximity.DEPTH).map((hit) => {
      let sum = 0
      for (const { a, b, weight } of pairs) {
        let least = Number.POSITIVE_INFINITY
        for (const terms of textsOf.get(hit.id) ?? []) {
          terms.forEach((x, i) =>
            terms.forEach((y, j) => {
              const d = proximity.ordered ? j - i : Math.abs(j - i)
              if (x === a && y === b && d > 0) least = Math.min(least, d)
            })
          )
        }
        if (least <= proximity.window) sum += weight / least
      }
      return sum > 0 ? { ...hit, score: hit.score + proximity.weight * best * (sum / total) } : hit
    })
    return [...head.sort(byScore), ...ranking.slice(Proximity.DEPTH)]
  }

  it("property: a search is the first `limit` hits of the exhaustive ranking with its first DEPTH hits re-scored, pruned or not", () => {
    const variants: ReadonlyArray<readonly [Bm25f.Parameters, Bm25f.Proximity]> = [
      [Bm25f.defaults, inOrder],
      [Bm25f.defaults, eitherWay],
      [Bm25fIndex.plain(Bm25f.defaults), { weight: 1, window: 2, ordered: false }]
    ]
    // every term may be skipped, however few tools hold it; or none
    const bold = Scorer.boldPruning
    const never = { ...bold, minSkippedDf: Number.POSITIVE_INFINITY }
    fc.assert(
      fc.property(
        fc.array(batch, { minLength: 1, maxLength: 4 }),
        fc.array(fc.tuple(request, fc.constantFrom(1, 3, 10, 49, 50, 51, 70), fc.constantFrom(1, 1, 2)), {
          minLength: 1,
          maxLength: 4
        }),
        fc.integer({ min: 0, max: variants.length - 1 }),
        (batches, requests, variant) => {
          const [parameters, proximity] = variants[variant] as readonly [Bm25f.Parameters, Bm25f.Proximity]
          const close = Bm25fIndex.make({ ...parameters, proximity }, bold)
          const reading = Bm25fIndex.make(parameters, never)
          const live = new Map<string, SearchDocument.SearchDocument>()
          for (const b of batches) {
            if ("add" in b) {
              close.add(b.add)
              reading.add(b.add)
              for (const d of b.add) live.set(d.id, d)
            } else {
              close.remove(b.remove)
              reading.remove(b.remove)
              for (const id of b.remove) live.delete(id)
            }
          }
          for (const [text, limit, every] of requests) {
            const accept = (id: string) => Number(id.slice(1)) % every === 0
            const ranking = search(reading, text, live.size, accept)
            const expected = reference(parameters, proximity, [...live.values()], ranking, text).slice(0, limit)
            assert.deepStrictEqual(search(close, text, limit, accept), expected, `${text} (limit ${limit})`)
          }
        }
      ),
      { numRuns: 100 }
    )
  })
})
