/**
 * Turns tool text and queries into index terms, the same way on both sides, so that what a model
 * writes meets what a catalog says:
 *
 * - identifiers split: `getHealthWorkforce`, `read_file`, `auth-method`, `storage.blob.list` and
 *   `HTTPServer` give their words (`get health workforce`, `http server`, ...);
 * - any script: runs of Unicode letters, marks and digits are words (`\p{L}\p{M}\p{N}`);
 * - lower case after NFKC, so full-width and compatibility forms meet their plain forms;
 * - a small English stop-word list (`the`, `of`, `please`, ...): words that say nothing about a tool;
 * - light English stemming (plurals, `-ing`, `-ed`, a final `e`), so `messages`, `sending` and
 *   `created` meet `message`, `send` and `create`;
 * - Korean: a word with a particle or a common verbal ending (`슬랙으로`, `메시지를`, `전송해줘`)
 *   also gives its stem (`슬랙`, `메시지`, `전송`); both forms are terms, so nothing is lost when a
 *   word merely ends like a particle;
 * - Chinese and Japanese, written without spaces: overlapping character bigrams (`发送消息` gives
 *   `发送 送消 消息`), the usual way to index CJK without a dictionary.
 *
 * The analyzer has no state a caller can see; it memoizes word analyses because catalogs and
 * queries repeat the same words over and over.
 *
 * @since 0.1.0
 */

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/** English words that carry no meaning for tool search. Kept small on purpose: `get`, `list`, `all` stay. */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "been",
  "by",
  "can",
  "could",
  "do",
  "does",
  "for",
  "from",
  "how",
  "i",
  "if",
  "in",
  "into",
  "is",
  "it",
  "its",
  "me",
  "my",
  "of",
  "on",
  "or",
  "our",
  "please",
  "should",
  "so",
  "that",
  "the",
  "their",
  "them",
  "then",
  "there",
  "these",
  "this",
  "those",
  "to",
  "us",
  "was",
  "we",
  "were",
  "what",
  "when",
  "where",
  "which",
  "who",
  "will",
  "with",
  "would",
  "you",
  "your"
])

/**
 * Korean particles and verbal endings, longest first so `에서는` is tried before `는`. A word that
 * ends with one also yields the word without it.
 */
export const KOREAN_SUFFIXES: ReadonlyArray<string> = [
  // verbal endings of requests and nominalized verbs ("전송해줘", "조회하기")
  "해주세요",
  "해줘요",
  "해줄래",
  "하세요",
  "합니다",
  "해줘",
  "하기",
  "하는",
  "하고",
  "해서",
  "하다",
  "주세요",
  "해",
  // stacked and simple particles
  "에서는",
  "에게서",
  "으로는",
  "으로서",
  "으로써",
  "까지",
  "부터",
  "에서",
  "에게",
  "한테",
  "으로",
  "보다",
  "처럼",
  "이나",
  "라도",
  "이랑",
  "와",
  "과",
  "를",
  "을",
  "은",
  "는",
  "이",
  "가",
  "에",
  "의",
  "로",
  "도",
  "만",
  "께",
  "랑",
  "나",
  "줘"
].sort((a, b) => b.length - a.length)

// -----------------------------------------------------------------------------
// Analysis
// -----------------------------------------------------------------------------

/** The index terms of a text, in order, repeats kept (term frequencies count them). */
export const terms = (text: string): Array<string> => {
  const out: Array<string> = []
  analyzeInto(text, out)
  return out
}

/** The distinct terms of a query, in order of first appearance. */
export const queryTerms = (text: string): Array<string> => [...new Set(terms(text))]

/** Appends the terms of `text` to `out`. */
export const analyzeInto = (text: string, out: Array<string>): void =>
  forEachWord(text, (word) => {
    const analyzed = analyzeWord(word)
    for (let i = 0; i < analyzed.length; i++) out.push(analyzed[i] as string)
  })

/**
 * Calls `f` with every maximal run of letters, marks and digits of `text`, in order. Plain ASCII
 * text, most of what catalogs hold, takes a scanning fast path that allocates only the words.
 */
export const forEachWord = (text: string, f: (word: string) => void): void => {
  if (ASCII.test(text)) {
    let start = -1
    const n = text.length
    for (let i = 0; i <= n; i++) {
      const c = i < n ? text.charCodeAt(i) : 32
      if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) {
        if (start < 0) start = i
      } else if (start >= 0) {
        f(text.slice(start, i))
        start = -1
      }
    }
    return
  }
  const word = new RegExp(WORD.source, "gu")
  let match: RegExpExecArray | null
  while ((match = word.exec(text)) !== null) f(match[0])
}

/** The terms of one word (a run without separators), memoized. */
export const analyzeWord = (word: string): ReadonlyArray<string> => {
  let analyzed = cache.get(word)
  if (analyzed === undefined) {
    analyzed = analyzeRun(word)
    if (cache.size >= CACHE_LIMIT) cache.clear()
    cache.set(word, analyzed)
  }
  return analyzed
}

/** A query's distinct terms with a weight for each. */
export interface WeightedTerms {
  readonly terms: Array<string>
  readonly weights: Array<number>
}

/**
 * The distinct terms of a query, each with a weight: 1, or `quotedWeight` for a term that occurs
 * only inside quotes (`'…'`, `"…"`, `“…”`, `«…»`, `「…」`, `『…』`). Quoted text in a request is
 * usually a value the tool will receive — a file name, a message, a search phrase — rather than
 * words about the tool, so it should count less.
 */
export const weightedQueryTerms = (text: string, quotedWeight: number): WeightedTerms => {
  const inQuotes: Array<string> = []
  const rest = quotedWeight === 1 || !QUOTE_MARK.test(text) ? text : text.replace(QUOTED, (span) => {
    analyzeInto(span, inQuotes)
    return " "
  })
  const terms = queryTerms(rest)
  const weights = terms.map(() => 1)
  const seen = new Set(terms)
  for (const term of inQuotes) {
    if (seen.has(term)) continue
    seen.add(term)
    terms.push(term)
    weights.push(quotedWeight)
  }
  return { terms, weights }
}

/** Forgets memoized word analyses, so a benchmark can measure every engine from a cold start. */
export const clearCache = (): void => cache.clear()

/**
 * Splits a request into its clauses: sentences (`.`, `!`, `?`, `;` and their CJK forms, new lines)
 * and parts joined by a few connectives that start a new request (`and also`, `as well as`,
 * `and then`, `, then`, `additionally`, `and`; `그리고`, `또한`; `并且`, `然后`, `以及`).
 * Agents often ask for several tools in one message; ranking each clause on its own keeps one
 * wordy clause from drowning the others. Clauses without a term are dropped.
 */
export const clauses = (text: string): Array<string> =>
  text.split(CLAUSE).filter((c): c is string => c !== undefined && WORD_TEST.test(c)).map((c) => c.trim())

/**
 * Splits an identifier or phrase into words with their original case: separators (`_`, `-`, `.`,
 * spaces, punctuation) and case changes (`getPM2Level` → `get PM2 Level`) end a word; digits stay
 * with the letters before them (`s3`, `base64`, `ipv4`).
 */
export const words = (text: string): Array<string> => {
  const out: Array<string> = []
  forEachWord(text, (word) => splitRun(word, out))
  return out
}

/**
 * Light English stemming: plurals, `-ing` and `-ed` (when a vowel is left), a doubled final
 * consonant, and a final `e`. It only has to map the forms of one word together, not to produce
 * a dictionary word (`create`, `creates`, `creating` and `created` all give `creat`).
 */
export const stem = (word: string): string => {
  if (word.length <= 3 || !ASCII_LOWER.test(word)) return word
  let w = word
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`
  else if (w.endsWith("sses")) w = w.slice(0, -2)
  else if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) w = w.slice(0, -1)
  if (w.endsWith("ing") && w.length >= 6 && VOWEL.test(w.slice(0, -3))) w = undouble(w.slice(0, -3))
  else if (w.endsWith("ed") && w.length >= 5 && VOWEL.test(w.slice(0, -2))) w = undouble(w.slice(0, -2))
  if (w.endsWith("e") && w.length > 3) w = w.slice(0, -1)
  return w
}

/** The stem of a Korean word without its particle or ending, or `undefined` when it has none. */
export const stripKoreanSuffix = (word: string): string | undefined => {
  if (word.length < 2) return undefined
  for (const suffix of KOREAN_SUFFIXES) {
    if (word.length > suffix.length && word.endsWith(suffix)) return word.slice(0, -suffix.length)
  }
  return undefined
}

// -----------------------------------------------------------------------------
// Internals
// -----------------------------------------------------------------------------

// A word: letters, marks and digits of any script. Everything else separates.
const WORD = /[\p{L}\p{M}\p{N}]+/gu
const ASCII = /^[\x00-\x7f]*$/
const QUOTE_MARK = /['"“«「『]/
// A single quote counts only when it is not inside a word, so "it's" is not a quote.
const QUOTED =
  /(?<![\p{L}\p{N}])'[^'\n]{1,200}'(?![\p{L}\p{N}])|"[^"\n]{1,200}"|“[^”\n]{1,200}”|«[^»\n]{1,200}»|「[^」\n]{1,200}」|『[^』\n]{1,200}』/gu
const WORD_TEST = /[\p{L}\p{N}]/u
const CLAUSE =
  /(?<=[.!?;])\s+|[。！？；\n]+|,?\s+(?:and also|and then|as well as|and|additionally|그리고|또한)\s+|,\s*(?:also|then|additionally|plus)\b|并且|然后|以及/iu
const CJK = /[\p{Script_Extensions=Han}\p{Script_Extensions=Hiragana}\p{Script_Extensions=Katakana}]/u
const HANGUL = /\p{Script=Hangul}/u
const ASCII_LOWER = /^[a-z]+$/
const VOWEL = /[aeiouy]/
const DOUBLED = /(bb|dd|ff|gg|mm|nn|pp|rr|tt)$/

const CACHE_LIMIT = 50_000
const cache = new Map<string, ReadonlyArray<string>>()

const undouble = (w: string): string => (DOUBLED.test(w) ? w.slice(0, -1) : w)

/** Analyzes one run of word characters (no separators inside). */
const analyzeRun = (run: string): ReadonlyArray<string> => {
  const normalized = run.normalize("NFKC")
  const out: Array<string> = []
  const parts: Array<string> = []
  // NFKC can introduce separators ("⒈" is "1."): split the normalized text into words again
  if (normalized === run) splitRun(run, parts)
  else forEachWord(normalized, (word) => splitRun(word, parts))
  for (const part of parts) {
    const lower = part.toLowerCase()
    if (CJK.test(lower)) {
      bigrams(lower, out)
    } else if (HANGUL.test(lower)) {
      out.push(lower)
      const stripped = stripKoreanSuffix(lower)
      if (stripped !== undefined) out.push(stripped)
    } else if (!STOP_WORDS.has(lower)) {
      out.push(stem(lower))
    }
  }
  return out
}

/** Overlapping bigrams of a CJK run; a single character stands alone. */
const bigrams = (text: string, out: Array<string>): void => {
  const chars = [...text]
  if (chars.length === 1) {
    out.push(text)
    return
  }
  for (let i = 0; i + 1 < chars.length; i++) out.push(`${chars[i]}${chars[i + 1]}`)
}

const enum Kind {
  Upper,
  Lower,
  Digit,
  Cjk,
  Other
}

const UPPER = /\p{Lu}/u
const LOWER = /[\p{Ll}\p{M}]/u
const DIGIT = /\p{N}/u

const kindOf = (ch: string): Kind =>
  LOWER.test(ch)
    ? Kind.Lower
    : UPPER.test(ch)
    ? Kind.Upper
    : DIGIT.test(ch)
    ? Kind.Digit
    : CJK.test(ch)
    ? Kind.Cjk
    : Kind.Other

/** Splits one run at case changes and script changes. */
const splitRun = (run: string, out: Array<string>): void => {
  if (ASCII_LOWER.test(run)) {
    out.push(run)
    return
  }
  const chars = [...run]
  let start = 0
  for (let i = 1; i < chars.length; i++) {
    const prev = kindOf(chars[i - 1] as string)
    const cur = kindOf(chars[i] as string)
    const next = i + 1 < chars.length ? kindOf(chars[i + 1] as string) : undefined
    const boundary =
      // getPM → get|PM, 2Level → 2|Level
      ((prev === Kind.Lower || prev === Kind.Digit) && cur === Kind.Upper) ||
      // PMLevel → PM|Level
      (prev === Kind.Upper && cur === Kind.Upper && next === Kind.Lower) ||
      // script changes: 消息api → 消息|api, 슬랙API → 슬랙|API
      ((prev === Kind.Cjk) !== (cur === Kind.Cjk)) ||
      ((prev === Kind.Other) !== (cur === Kind.Other) && prev !== Kind.Digit && cur !== Kind.Digit)
    if (boundary) {
      out.push(chars.slice(start, i).join(""))
      start = i
    }
  }
  out.push(chars.slice(start).join(""))
}
