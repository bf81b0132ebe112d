/**
 * The pieces the `Analyzer` is assembled from: word scanning, identifier splitting, the English
 * stop list and stemmers, Korean particles and CJK bigrams. Each is a pure function; which of them
 * run is the analyzer's `Options`.
 *
 * @internal
 */
import { stemmer as porterStemmer } from "stemmer"
import type { Options } from "../Analyzer.js"

// -----------------------------------------------------------------------------
// Word scanning
// -----------------------------------------------------------------------------

const ASCII = /^[\x00-\x7f]*$/

/** Whether a text is plain ASCII (the fast paths below apply). */
export const isAscii = (text: string): boolean => ASCII.test(text)

/** Whether an ASCII code unit is a letter or digit (or `_` when `underscore` joins words). */
export const isAsciiWordChar = (c: number, underscore: boolean): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (underscore && c === 95)

const WORD = /[\p{L}\p{M}\p{N}]+/gu
const WORD_UNDERSCORE = /[\p{L}\p{M}\p{N}_]+/gu

/**
 * Calls `f` with every maximal run of letters, marks and digits of `text` (and `_` when
 * `underscore`), in order. Plain ASCII text takes a scanning path that allocates only the words.
 */
export const forEachWord = (text: string, f: (word: string) => void, underscore = false): void => {
  if (isAscii(text)) {
    let start = -1
    const n = text.length
    for (let i = 0; i <= n; i++) {
      const c = i < n ? text.charCodeAt(i) : 32
      if (isAsciiWordChar(c, underscore)) {
        if (start < 0) start = i
      } else if (start >= 0) {
        f(text.slice(start, i))
        start = -1
      }
    }
    return
  }
  const word = new RegExp((underscore ? WORD_UNDERSCORE : WORD).source, "gu")
  let match: RegExpExecArray | null
  while ((match = word.exec(text)) !== null) f(match[0])
}

// -----------------------------------------------------------------------------
// Identifier splitting
// -----------------------------------------------------------------------------

const enum Kind {
  Upper,
  Lower,
  Digit,
  Cjk,
  Other
}

const CJK = /[\p{Script_Extensions=Han}\p{Script_Extensions=Hiragana}\p{Script_Extensions=Katakana}]/u
const HANGUL = /\p{Script=Hangul}/u
const UPPER = /\p{Lu}/u
const LOWER = /[\p{Ll}\p{M}]/u
const DIGIT = /\p{N}/u
const ASCII_LOWER = /^[a-z]+$/

/** Whether a word holds Chinese or Japanese characters. */
export const isCjk = (word: string): boolean => CJK.test(word)

/** Whether a word holds Hangul. */
export const isHangul = (word: string): boolean => HANGUL.test(word)

// `_` reaches a run only when it joins words (snake case kept whole): it belongs to the word. An
// ASCII character is told by its code (the same classes: `a`–`z` are its only lower-case letters,
// `A`–`Z` its upper-case ones, `0`–`9` its numbers), without a regular expression.
const kindOf = (ch: string): Kind => {
  const c = ch.charCodeAt(0)
  if (c < 128) {
    return c === 95 || (c >= 97 && c <= 122)
      ? Kind.Lower
      : c >= 65 && c <= 90
      ? Kind.Upper
      : c >= 48 && c <= 57
      ? Kind.Digit
      : Kind.Other
  }
  return LOWER.test(ch) ? Kind.Lower : UPPER.test(ch) ? Kind.Upper : DIGIT.test(ch) ? Kind.Digit : CJK.test(ch)
    ? Kind.Cjk
    : Kind.Other
}

/**
 * Splits one run (no separators inside) at script changes and, with `camelCase`, at case changes
 * (`getPM2Level` → `get PM2 Level`); digits stay with the letters before them.
 */
export const splitRun = (run: string, out: Array<string>, camelCase = true): void => {
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
    const boundary = (camelCase && (
      // getPM → get|PM, 2Level → 2|Level
      ((prev === Kind.Lower || prev === Kind.Digit) && cur === Kind.Upper) ||
      // PMLevel → PM|Level
      (prev === Kind.Upper && cur === Kind.Upper && next === Kind.Lower)
    )) ||
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

// -----------------------------------------------------------------------------
// English
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

const VOWEL = /[aeiouy]/
const DOUBLED = /(bb|dd|ff|gg|mm|nn|pp|rr|tt)$/

const undouble = (w: string): string => (DOUBLED.test(w) ? w.slice(0, -1) : w)

/**
 * Light English stemming: plurals, `-ing` and `-ed` (when a vowel is left), a doubled final
 * consonant, and a final `e`. It only maps the forms of one word together (`create`, `creates`,
 * `creating`, `created` → `creat`).
 */
export const lightStem = (word: string): string => {
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

/** Plurals only (`-ies` → `-y`, `-es` after a sibilant, `-s`): the mildest stemming. */
export const pluralStem = (word: string): string => {
  if (word.length <= 3 || !ASCII_LOWER.test(word)) return word
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`
  if (/(ss|x|ch|sh)es$/.test(word)) return word.slice(0, -2)
  if (word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us") && !word.endsWith("is")) {
    return word.slice(0, -1)
  }
  return word
}

/** The Porter stemmer (the `stemmer` package), for lower-case ASCII words. */
export const porterStem = (word: string): string =>
  word.length <= 2 || !ASCII_LOWER.test(word) ? word : porterStemmer(word)

// -----------------------------------------------------------------------------
// Korean, Chinese, Japanese
// -----------------------------------------------------------------------------

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

/** The stem of a Korean word without its particle or ending, or `undefined` when it has none. */
export const stripKoreanSuffix = (word: string): string | undefined => {
  if (word.length < 2) return undefined
  for (const suffix of KOREAN_SUFFIXES) {
    if (word.length > suffix.length && word.endsWith(suffix)) return word.slice(0, -suffix.length)
  }
  return undefined
}

/** Overlapping bigrams of a CJK run; a single character stands alone. */
export const bigrams = (text: string, out: Array<string>): void => {
  const chars = [...text]
  if (chars.length === 1) {
    out.push(text)
    return
  }
  for (let i = 0; i + 1 < chars.length; i++) out.push(`${chars[i]}${chars[i + 1]}`)
}

const WORD_TEST = /[\p{L}\p{N}]/u
const CLAUSE =
  /(?<=[.!?;])\s+|[。！？；\n]+|,?\s+(?:and also|and then|as well as|and|additionally|그리고|또한)\s+|,\s*(?:also|then|additionally|plus)\b|并且|然后|以及/iu

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

// -----------------------------------------------------------------------------
// One word
// -----------------------------------------------------------------------------

const stemmers: Record<Options["stemming"], (word: string) => string> = {
  none: (word) => word,
  plural: pluralStem,
  light: lightStem,
  porter: porterStem
}

/**
 * Analyzes one run of word characters (no separators inside) with `options`: the analyzer's
 * `analyzeWord` without its memo, for callers that keep each word's terms themselves (an index's
 * vocabulary analyzes each distinct word once). `ascii` says the run is known to be ASCII, which
 * NFKC leaves as it is and which holds no CJK or Hangul: those checks are skipped.
 */
export const analyzeRun = (run: string, options: Options, ascii = false): ReadonlyArray<string> => {
  const normalized = options.nfkc && !ascii ? run.normalize("NFKC") : run
  const out: Array<string> = []
  const parts: Array<string> = []
  // NFKC can introduce separators ("⒈" is "1."): split the normalized text into words again
  if (normalized === run) splitRun(run, parts, options.camelCase)
  else forEachWord(normalized, (word) => splitRun(word, parts, options.camelCase), !options.snakeCase)
  const stem = stemmers[options.stemming]
  if (options.compounds && parts.length > 1) {
    // the whole word as one term too, unless it spans scripts (CJK and Hangul runs have their own terms)
    const whole = parts.join("").toLowerCase() // the parts, not the run: NFKC can add separators
    if (ascii || (!isCjk(whole) && !isHangul(whole))) out.push(stem(whole))
  }
  for (const part of parts) {
    const lower = part.toLowerCase()
    if (!ascii && isCjk(lower)) {
      if (options.cjkBigrams) bigrams(lower, out)
      else out.push(lower)
    } else if (!ascii && isHangul(lower)) {
      out.push(lower)
      const stripped = options.koreanParticles ? stripKoreanSuffix(lower) : undefined
      if (stripped !== undefined) out.push(stripped)
    } else if (!options.stopWords || !STOP_WORDS.has(lower)) {
      out.push(stem(lower))
    }
  }
  return out
}
