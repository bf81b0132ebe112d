/**
 * Rewriting names providers reject into names they accept, recognisably. Letters of other scripts
 * are written with ASCII letters: accents are dropped (`café` → `cafe`), Hangul syllables are romanized letter by
 * letter (Revised Romanization's transliteration, `읽기` → `ilggi`), Cyrillic and Greek letters
 * follow the usual one-to-one tables. Characters of other scripts (CJK ideographs, Arabic, ...)
 * have no short table: they come back in `lost`, and the caller keeps the name distinct with a
 * hash.
 *
 * @internal
 */
import * as Fnv from "./fnv.js"

/**
 * The tool names every major provider accepts (OpenAI, Anthropic, Gemini agree on this subset):
 * ASCII letters, digits, `_` and `-`, 1 to 64 characters.
 */
export const PATTERN = /^[A-Za-z0-9_-]{1,64}$/

/** Whether a provider would accept `name` as a tool name. */
export const isValid = (name: string): boolean => PATTERN.test(name)

const FUNCTIONS_PREFIX = "functions."

/** `name` without a leading `functions.`. */
export const stripFunctionsPrefix = (name: string): string =>
  name.startsWith(FUNCTIONS_PREFIX) ? name.slice(FUNCTIONS_PREFIX.length) : name

/** The ASCII form of `text`, and how many letters or digits had no ASCII form. */
export interface Transliteration {
  readonly ascii: string
  readonly lost: number
}

const HANGUL_FIRST = 0xac00
const HANGUL_LAST = 0xd7a3
const INITIALS = ["g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch", "k", "t", "p", "h"]
const VOWELS = [
  "a",
  "ae",
  "ya",
  "yae",
  "eo",
  "e",
  "yeo",
  "ye",
  "o",
  "wa",
  "wae",
  "oe",
  "yo",
  "u",
  "wo",
  "we",
  "wi",
  "yu",
  "eu",
  "ui",
  "i"
]
const FINALS = [
  "",
  "g",
  "kk",
  "gs",
  "n",
  "nj",
  "nh",
  "d",
  "l",
  "lg",
  "lm",
  "lb",
  "ls",
  "lt",
  "lp",
  "lh",
  "m",
  "b",
  "bs",
  "s",
  "ss",
  "ng",
  "j",
  "ch",
  "k",
  "t",
  "p",
  "h"
]

/** One Hangul syllable (U+AC00–U+D7A3), letter by letter. */
const hangul = (code: number): string => {
  const index = code - HANGUL_FIRST
  const initial = Math.floor(index / 588)
  const vowel = Math.floor((index % 588) / 28)
  const final = index % 28
  return `${INITIALS[initial] ?? ""}${VOWELS[vowel] ?? ""}${FINALS[final] ?? ""}`
}

const CYRILLIC: Readonly<Record<string, string>> = {
  а: "a",
  б: "b",
  в: "v",
  г: "g",
  д: "d",
  е: "e",
  ё: "e",
  ж: "zh",
  з: "z",
  и: "i",
  й: "y",
  к: "k",
  л: "l",
  м: "m",
  н: "n",
  о: "o",
  п: "p",
  р: "r",
  с: "s",
  т: "t",
  у: "u",
  ф: "f",
  х: "kh",
  ц: "ts",
  ч: "ch",
  ш: "sh",
  щ: "shch",
  ъ: "",
  ы: "y",
  ь: "",
  э: "e",
  ю: "yu",
  я: "ya",
  і: "i",
  ї: "yi",
  є: "ye",
  ґ: "g"
}

const GREEK: Readonly<Record<string, string>> = {
  α: "a",
  β: "v",
  γ: "g",
  δ: "d",
  ε: "e",
  ζ: "z",
  η: "i",
  θ: "th",
  ι: "i",
  κ: "k",
  λ: "l",
  μ: "m",
  ν: "n",
  ξ: "x",
  ο: "o",
  π: "p",
  ρ: "r",
  σ: "s",
  ς: "s",
  τ: "t",
  υ: "y",
  φ: "f",
  χ: "ch",
  ψ: "ps",
  ω: "o"
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u
const MARK = /\p{M}/u

/** Writes `text` with ASCII letters where a table allows; other characters become spaces. */
export const transliterate = (text: string): Transliteration => {
  let ascii = ""
  let lost = 0
  for (const original of text) {
    const code = original.codePointAt(0) ?? 0
    // before NFKD, which would split a syllable into conjoining jamo
    if (code >= HANGUL_FIRST && code <= HANGUL_LAST) {
      ascii += hangul(code)
      continue
    }
    // NFKD splits accented letters into a base letter and marks (and full-width forms into ASCII)
    for (const char of original.normalize("NFKD")) {
      if ((char.codePointAt(0) ?? 0) < 0x80) {
        ascii += char
      } else if (!MARK.test(char)) {
        const lower = char.toLowerCase()
        const mapped = CYRILLIC[lower] ?? GREEK[lower]
        if (mapped !== undefined) {
          ascii += lower === char ? mapped : mapped.charAt(0).toUpperCase() + mapped.slice(1)
        } else {
          if (LETTER_OR_DIGIT.test(char)) lost++
          ascii += " "
        }
      }
    }
  }
  return { ascii, lost }
}

/** A short stable hash (FNV-1a, 32 bit, hex), for names and cache keys. */
export const hash: (text: string) => string = Fnv.hex

/** The first few ASCII words of `text`, lower case, joined by `_`: a stem for a name with no readable part. */
const stemOf = (text: string): string =>
  (transliterate(text).ascii.toLowerCase().match(/[a-z0-9]+/g) ?? []).slice(0, 3).join("_").slice(0, 40)

/** `name` (not a valid tool name) rewritten into a valid one: see `CatalogTool.sanitizeName`. */
export const rewrite = (name: string, stemSource: string): string => {
  const { ascii, lost } = transliterate(name)
  const readable = ascii.replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "")
  const stem = readable === "" ? stemOf(stemSource) || "tool" : readable
  const suffix = lost > 0 || readable === "" ? `_${hash(name).slice(0, 6)}` : ""
  if (stem.length + suffix.length <= 64) return stem + suffix
  return `${stem.slice(0, 55)}_${hash(name).slice(0, 8)}`
}
