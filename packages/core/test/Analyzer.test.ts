import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Analyzer } from "../src/index.js"
import * as Analysis from "../src/internal/analysis.js"

/** The default analysis (what the strategies use unless told otherwise). */
const standard = Analyzer.make()

describe("Analyzer", () => {
  it("splits runs of ASCII characters at case changes as their Unicode classes say", () => {
    // the classes by the Unicode properties (`_` joins words as a lower-case letter); splitRun tells
    // ASCII characters apart by their codes, so every one of them is checked against these
    const kind = (ch: string) =>
      ch === "_" || /[\p{Ll}\p{M}]/u.test(ch)
        ? "lower"
        : /\p{Lu}/u.test(ch)
        ? "upper"
        : /\p{N}/u.test(ch)
        ? "digit"
        : "other"
    const cutBefore = (run: ReadonlyArray<string>, i: number): boolean => {
      const after = run[i + 1]
      const [prev, cur, next] = [kind(run[i - 1] as string), kind(run[i] as string), after && kind(after)]
      return ((prev === "lower" || prev === "digit") && cur === "upper") ||
        (prev === "upper" && cur === "upper" && next === "lower")
    }
    const wordChars = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c)).filter((ch) => /[\w]/.test(ch))
    assert.strictEqual(wordChars.length, 63)
    for (const ch of wordChars) {
      for (const run of [`a${ch}`, `AA${ch}`, `${ch}A`, `${ch}Aa`, `0${ch}`]) {
        const chars = [...run]
        const expected: Array<string> = []
        let start = 0
        for (let i = 1; i < chars.length; i++) {
          if (!cutBefore(chars, i)) continue
          expected.push(chars.slice(start, i).join(""))
          start = i
        }
        expected.push(chars.slice(start).join(""))
        const out: Array<string> = []
        Analysis.splitRun(run, out)
        assert.deepStrictEqual(out, expected, run)
      }
    }
  })

  it("splits camelCase, snake_case, kebab-case, dotted names and acronyms", () => {
    assert.deepStrictEqual(Analysis.words("getHealthWorkforce"), ["get", "Health", "Workforce"])
    assert.deepStrictEqual(Analysis.words("read_file auth-method storage.blob.list"), [
      "read",
      "file",
      "auth",
      "method",
      "storage",
      "blob",
      "list"
    ])
    assert.deepStrictEqual(Analysis.words("HTTPServer"), ["HTTP", "Server"])
    // digits stay with the letters before them: s3, base64, pm2
    assert.deepStrictEqual(Analysis.words("getPM2.5Level s3Bucket base64Encode"), [
      "get",
      "PM2",
      "5",
      "Level",
      "s3",
      "Bucket",
      "base64",
      "Encode"
    ])
  })

  it("lower-cases, drops stop words and stems lightly, the same way for names and queries", () => {
    assert.deepStrictEqual(standard.terms("Send messages to the Slack channels"), [
      "send",
      "messag",
      "slack",
      "channel"
    ])
    assert.deepStrictEqual(standard.terms("slack_send_message"), ["slack", "send", "messag"])
    assert.deepStrictEqual(new Set(standard.terms("creating created creates create")), new Set(["creat"]))
    assert.deepStrictEqual(standard.terms("queries entries"), ["query", "entry"])
    assert.deepStrictEqual(standard.terms("logging mapping"), ["log", "map"])
    // short words, and words that would keep no vowel, are not stemmed
    assert.deepStrictEqual(standard.terms("string bus ids"), ["string", "bus", "ids"])
    // `get`, `list` and `all` carry meaning for tools and are kept
    assert.deepStrictEqual(standard.terms("Please list all the items"), ["list", "all", "item"])
  })

  it("normalizes compatibility forms (NFKC)", () => {
    assert.deepStrictEqual(standard.terms("Ｆｕｌｌ　ｗｉｄｔｈ"), ["full", "width"])
  })

  it("Korean: a word with a particle or request ending also gives its stem", () => {
    const query = standard.terms("슬랙으로 메시지를 전송해줘")
    for (const stem of ["슬랙", "메시지", "전송"]) assert.include(query, stem)
    // the full forms stay terms too, so a word that merely ends like a particle loses nothing
    assert.include(query, "메시지를")
    assert.deepStrictEqual(standard.terms("슬랙 메시지"), ["슬랙", "메시지"])
    assert.strictEqual(Analysis.stripKoreanSuffix("에서"), undefined, "a bare particle is not stripped to nothing")
  })

  it("Chinese and Japanese without spaces become overlapping bigrams", () => {
    assert.deepStrictEqual(standard.terms("发送消息到频道"), ["发送", "送消", "消息", "息到", "到频", "频道"])
    const query = new Set(standard.terms("发送消息"))
    assert.isTrue(query.has("发送") && query.has("消息"))
    // the katakana prolonged sound mark stays inside the word
    assert.include(standard.terms("メッセージを送信"), "セー")
    assert.deepStrictEqual(standard.terms("消息api"), ["消息", "api"])
    assert.deepStrictEqual(standard.terms("信"), ["信"])
  })

  it("splits requests into clauses at sentences and connectives", () => {
    assert.deepStrictEqual(
      Analysis.clauses("Get the weather in Paris. Then send it to Slack; also book a flight, and then email me"),
      ["Get the weather in Paris.", "Then send it to Slack;", "also book a flight", "email me"]
    )
    assert.deepStrictEqual(Analysis.clauses("List users and delete the old ones"), [
      "List users",
      "delete the old ones"
    ])
    assert.deepStrictEqual(Analysis.clauses("天气查询然后发送邮件"), ["天气查询", "发送邮件"])
    assert.deepStrictEqual(Analysis.clauses("read a file"), ["read a file"])
  })

  it("terms only inside quotes weigh less: they are values for the tool, not words about it", () => {
    const q = standard.weightedQueryTerms(`Translate "what time is it" into French; it's urgent`, 0.3)
    const weightOf = new Map(q.terms.map((t, i) => [t, q.weights[i]]))
    assert.strictEqual(weightOf.get("translat"), 1)
    assert.strictEqual(weightOf.get("french"), 1)
    assert.strictEqual(weightOf.get("tim"), 0.3) // "time", stemmed
    assert.strictEqual(weightOf.get("urgent"), 1, "the apostrophe of it's opens no quote")
    const both = standard.weightedQueryTerms(`search files for 'files'`, 0.3)
    assert.deepStrictEqual(both.weights, [1, 1], "a term also outside quotes keeps its full weight")
    assert.deepStrictEqual(standard.weightedQueryTerms(`send 'hi'`, 1).weights, [1, 1])
  })

  it("queryTerms are the distinct terms in order", () => {
    assert.deepStrictEqual(standard.queryTerms("file files read file"), ["fil", "read"])
  })

  it("property: terms are never empty, contain no separators, and the analysis is deterministic", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 60 }), fc.string({ unit: "grapheme", maxLength: 30 })), (text) => {
        const terms = standard.terms(text)
        for (const t of terms) {
          assert.isAbove(t.length, 0)
          assert.notMatch(t, /[\s_.\-/]/)
        }
        assert.deepStrictEqual(standard.terms(text), terms, "memoized analyses agree")
      })
    )
  })

  it("property: identifier styles of the same words give the same terms (camelCase also its compound)", () => {
    const split = Analyzer.make({ compounds: false })
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z]{2,8}$/), { minLength: 1, maxLength: 4 }), (parts) => {
        const snake = standard.terms(parts.join("_"))
        assert.deepStrictEqual(standard.terms(parts.join("-")), snake)
        assert.deepStrictEqual(standard.terms(parts.join(".")), snake)
        assert.deepStrictEqual(standard.terms(parts.join(" ")), snake)
        const camel = parts.map((p, i) => (i === 0 ? p : `${p.slice(0, 1).toUpperCase()}${p.slice(1)}`)).join("")
        assert.deepStrictEqual(split.terms(camel), snake)
        // with compounds (the default), the whole word comes first, then the same terms
        const compound = standard.terms(camel)
        assert.deepStrictEqual(parts.length > 1 ? compound.slice(1) : compound, snake)
      })
    )
  })

  it("compounds: MySQL meets mysql, and each step can be switched off", () => {
    assert.deepStrictEqual(standard.terms("MySQL"), ["mysql", "sql"]) // `my` is a stop word
    assert.include(standard.terms("mysql_database_list"), "mysql")
    // a compound is made of the split parts: NFKC's separators ("⒈" is "1.") never enter a term
    for (const term of standard.terms("x⒈Y")) assert.notInclude(term, ".")
    assert.deepStrictEqual(Analyzer.make({ camelCase: false }).terms("getHealthWorkforce"), ["gethealthworkforc"])
    assert.deepStrictEqual(Analyzer.make({ snakeCase: false }).terms("read_file"), ["read_file"])
    assert.deepStrictEqual(Analyzer.make({ stopWords: false, stemming: "none" }).terms("the files"), ["the", "files"])
    assert.deepStrictEqual(Analyzer.make({ stemming: "porter" }).terms("registries"), ["registri"])
    assert.deepStrictEqual(Analyzer.make({ stemming: "plural" }).terms("boxes creating"), ["box", "creating"])
    assert.deepStrictEqual(Analyzer.make({ cjkBigrams: false }).terms("发送消息"), ["发送消息"])
    assert.deepStrictEqual(Analyzer.make({ koreanParticles: false }).terms("슬랙으로"), ["슬랙으로"])
    assert.deepStrictEqual(Analyzer.make({ nfkc: false }).terms("Ｆｕｌｌ"), ["ｆｕｌｌ"])
  })
})
