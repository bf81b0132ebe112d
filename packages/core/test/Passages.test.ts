import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Excerpt from "../src/internal/excerpt.js"
import * as Passages from "../src/internal/passages.js"
import * as UriTemplate from "../src/internal/uriTemplate.js"

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff

// Texts shaped like documents: headings, paragraphs, blank lines, fences, long runs, emoji.
const piece = fc.oneof(
  fc.constantFrom("# Title", "## Returns", "### Laptops", "#hashtag", "####### seven", "```", "~~~", "", "", "\n"),
  fc.string({ maxLength: 40 }),
  fc.array(fc.constantFrom("word ", "Sentence. ", "🙂", "한국어 ", "\t", "x"), { maxLength: 400 }).map((a) =>
    a.join("")
  )
)
const documentText = fc.array(piece, { maxLength: 40 }).map((lines) => lines.join("\n"))
const sizes = fc.record({ target: fc.integer({ min: 1, max: 300 }), max: fc.integer({ min: 2, max: 600 }) })

describe("passages", () => {
  it("are ordered, disjoint, bounded, never split a character, and cover every non-blank character", () => {
    fc.assert(
      fc.property(documentText, sizes, (text, size) => {
        const spans = Passages.split(text, size)
        const max = size.max
        const covered = new Uint8Array(text.length)
        let previousEnd = 0
        for (const span of spans) {
          assert.isAtLeast(span.offset, previousEnd)
          assert.isAtLeast(span.length, 1)
          assert.isAtMost(span.length, max)
          const end = span.offset + span.length
          assert.isAtMost(end, text.length)
          assert.isFalse(isLow(text.charCodeAt(span.offset)), "starts inside a character")
          if (end < text.length) assert.isFalse(isHigh(text.charCodeAt(end - 1)), "ends inside a character")
          for (let i = span.offset; i < end; i++) covered[i] = 1
          previousEnd = end
        }
        for (let i = 0; i < text.length; i++) {
          if (/\S/.test(text[i] as string)) assert.strictEqual(covered[i], 1, `character ${i} is in no passage`)
        }
      }),
      { numRuns: 300 }
    )
  })

  it("start at headings and carry the path of headings above them", () => {
    const text = [
      "Intro paragraph.",
      "",
      "# Customer handbook",
      "",
      "Welcome.",
      "",
      "## Returns",
      "",
      "You may return most items within 30 days.",
      "",
      "### Laptops",
      "",
      "Opened laptops carry a 15% restocking fee.",
      "",
      "## Shipping ##",
      "Ships in two days."
    ].join("\n")
    const spans = Passages.split(text, { target: 10, max: 200 })
    const at = (needle: string) => spans.find((s) => text.slice(s.offset, s.offset + s.length).includes(needle))
    assert.strictEqual(at("Intro")?.heading, "")
    assert.strictEqual(at("Welcome")?.heading, "Customer handbook")
    assert.strictEqual(at("30 days")?.heading, "Customer handbook › Returns")
    assert.strictEqual(at("restocking")?.heading, "Customer handbook › Returns › Laptops")
    assert.strictEqual(at("two days")?.heading, "Customer handbook › Shipping")
    const laptops = at("### Laptops")
    assert.isTrue(laptops !== undefined && text.slice(laptops.offset).startsWith("### Laptops"))
  })

  it("keep a fenced code block whole, its blank lines and # lines included", () => {
    const text = "# Code\n\n```sh\n# not a heading\n\necho hi\n```\n\nAfter."
    const spans = Passages.split(text, { target: 1000, max: 1000 })
    assert.strictEqual(spans.length, 1)
    assert.strictEqual(spans[0]?.heading, "Code")
  })

  it("cut a long paragraph at sentence ends", () => {
    const sentence = "This sentence has exactly forty chars. "
    const text = sentence.repeat(20).trim()
    const spans = Passages.split(text, { target: 100, max: 120 })
    assert.isAbove(spans.length, 5)
    for (const s of spans.slice(0, -1)) assert.isTrue(text.slice(s.offset, s.offset + s.length).endsWith("."))
  })

  it("hostile lines (a huge heading-like line, a huge run of spaces) are split, not backtracked", () => {
    const heading = `#${" #".repeat(100_000)} x`
    const spaces = `a${" ".repeat(200_000)}b`
    const spans = Passages.split(`${heading}\n${spaces}`, { target: 800, max: 1600 })
    assert.isAbove(spans.length, 100)
    assert.isTrue(spans.every((s) => s.heading === ""))
  })
})

describe("excerpts", () => {
  it("center on the window with the most query words, cut at words, bounded", () => {
    const text = `${
      "Filler words about shipping. ".repeat(30)
    }Opened laptops carry a 15% restocking fee within 30 days. ${"More filler about warranty. ".repeat(30)}`
    const out = Excerpt.excerpt(text, "restocking fee laptops", 200)
    assert.include(out, "restocking fee")
    assert.include(out, "laptops")
    assert.isAtMost(out.length, 202)
    assert.isTrue(out.startsWith("…") && out.endsWith("…"))
  })

  it("show the beginning without a query or without a match, and short texts whole", () => {
    assert.strictEqual(Excerpt.excerpt("short   text", "zzz", 200), "short text")
    const long = "Alpha beta gamma. ".repeat(40)
    assert.isTrue(Excerpt.excerpt(long, undefined, 50).startsWith("Alpha beta"))
    assert.isTrue(Excerpt.excerpt(long, "unmatched", 50).startsWith("Alpha beta"))
  })

  it("are bounded for any text and query", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2000 }), fc.string({ maxLength: 100 }), (text, query) => {
        assert.isAtMost(Excerpt.excerpt(text, query, 100).length, 102)
      })
    )
  })
})

describe("URI templates", () => {
  it("match the concrete URIs of their family and nothing else", () => {
    const t = UriTemplate.compile("demo://resource/dynamic/text/{resourceId}")
    assert.isTrue(typeof t !== "string")
    if (typeof t === "string") return
    assert.isTrue(t.matches("demo://resource/dynamic/text/42"))
    assert.isFalse(t.matches("demo://resource/dynamic/text/42/more"))
    assert.isFalse(t.matches("demo://resource/dynamic/blob/42"))
    const files = UriTemplate.compile("file:///logs{/day}{?level}")
    if (typeof files === "string") return assert.fail(files)
    assert.isTrue(files.matches("file:///logs/2026-11-30?level=warn"))
    assert.isTrue(files.matches("file:///logs"))
    const any = UriTemplate.compile("https://wiki.example.com/{+path}")
    if (typeof any === "string") return assert.fail(any)
    assert.isTrue(any.matches("https://wiki.example.com/a/b/c.md"))
  })

  it("treat regular-expression characters in literals literally", () => {
    const t = UriTemplate.compile("x://a.b(c)*/{id}")
    if (typeof t === "string") return assert.fail(t)
    assert.isTrue(t.matches("x://a.b(c)*/1"))
    assert.isFalse(t.matches("x://aXb(c)*/1"))
  })

  it("explain malformed templates", () => {
    assert.strictEqual(UriTemplate.compile("x://{a"), "a '{' without its '}'")
    assert.strictEqual(UriTemplate.compile("x://a}"), "a '}' without its '{'")
    assert.strictEqual(UriTemplate.compile("x://plain"), "no '{...}' expression")
    assert.include(String(UriTemplate.compile("x://{a b}")), "is not a template expression")
    assert.include(String(UriTemplate.compile(`x://${"{a}".repeat(17)}`)), "more than 16")
  })
})
