/**
 * Turns tool text and queries into index terms, the same way on both sides, so that what a model
 * writes meets what a catalog says. Every step is an option, so the benchmark can switch each off
 * and on (`npm run bench -- --ablate`); `defaults` are the steps the tuning protocol kept
 * (docs/search.md):
 *
 * - identifiers split: `getHealthWorkforce`, `read_file`, `auth-method`, `storage.blob.list` and
 *   `HTTPServer` give their words (`get health workforce`, `http server`, ...) — `camelCase` and
 *   `snakeCase`; with `compounds`, a word split at case changes also stays whole (`MySQL` gives
 *   `mysql` as well as `my sql`, so it meets `mysql_database_list`);
 * - any script: runs of Unicode letters, marks and digits are words (`\p{L}\p{M}\p{N}`);
 * - lower case after NFKC, so full-width and compatibility forms meet their plain forms — `nfkc`;
 * - a small English stop-word list (`the`, `of`, `please`, ...) — `stopWords`;
 * - English stemming, so `messages`, `sending` and `created` meet `message`, `send` and
 *   `create` — `stemming`: `none`, `plural`, `light` (plurals, `-ing`, `-ed`, a final `e`) or
 *   `porter` (the Porter stemmer of the `stemmer` package);
 * - Korean: a word with a particle or a common verbal ending (`슬랙으로`, `메시지를`, `전송해줘`)
 *   also gives its stem (`슬랙`, `메시지`, `전송`) — `koreanParticles`;
 * - Chinese and Japanese, written without spaces: overlapping character bigrams (`发送消息` gives
 *   `发送 送消 消息`), the usual way to index CJK without a dictionary — `cjkBigrams`.
 *
 * An `Analyzer` made with `make` memoizes word analyses (bounded), because catalogs and queries
 * repeat the same words; the module's own functions analyze with the defaults and keep nothing.
 *
 * @since 0.1.0
 */
import * as internal from "./internal/analysis.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * How English words are reduced to a common form.
 *
 * @since 0.2.0
 * @category models
 */
export type Stemming = "none" | "plural" | "light" | "porter"

/**
 * The analysis steps, each of which can be switched off.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** Split words at case changes: `getHealthWorkforce` → `get health workforce`. */
  readonly camelCase: boolean
  /** A word split at case changes also gives its whole form: `MySQL` → `mysql` besides `my sql`. */
  readonly compounds: boolean
  /** Split words at `_`: `read_file` → `read file` (off: `read_file` is one term). */
  readonly snakeCase: boolean
  /** Normalize compatibility forms (NFKC) before anything else. */
  readonly nfkc: boolean
  /** Drop English stop words. */
  readonly stopWords: boolean
  /** English stemming. */
  readonly stemming: Stemming
  /** Index Chinese and Japanese runs as overlapping bigrams (off: a run is one term). */
  readonly cjkBigrams: boolean
  /** A Korean word with a particle or verbal ending also gives its stem. */
  readonly koreanParticles: boolean
}

/**
 * The steps the tuning protocol kept (docs/search.md).
 *
 * @since 0.2.0
 * @category settings
 */
export const defaults: Options = {
  camelCase: true,
  compounds: true,
  snakeCase: true,
  nfkc: true,
  stopWords: true,
  stemming: "light",
  cjkBigrams: true,
  koreanParticles: true
}

/**
 * An analyzer: the functions below, bound to one set of options.
 *
 * @since 0.2.0
 * @category models
 */
export interface Analyzer {
  readonly options: Options
  /** The index terms of a text, in order, repeats kept (term frequencies count them). */
  readonly terms: (text: string) => Array<string>
  /** The distinct terms of a query, in order of first appearance. */
  readonly queryTerms: (text: string) => Array<string>
  /** Calls `f` with every word of `text` (a run without separators), in order. */
  readonly forEachWord: (text: string, f: (word: string) => void) => void
  /** The terms of one word as `forEachWord` gives it. */
  readonly analyzeWord: (word: string) => ReadonlyArray<string>
  /**
   * The distinct terms of a query, each with a weight: 1, or `quotedWeight` for a term that occurs
   * only inside quotes (`'…'`, `"…"`, `“…”`, `«…»`, `「…」`, `『…』`). Quoted text in a request is
   * usually a value the tool will receive — a file name, a message, a search phrase — rather than
   * words about the tool, so it counts less.
   */
  readonly weightedQueryTerms: (text: string, quotedWeight: number) => WeightedTerms
}

/**
 * A query's distinct terms with a weight for each.
 *
 * @since 0.1.0
 * @category models
 */
export interface WeightedTerms {
  readonly terms: Array<string>
  readonly weights: Array<number>
}

// -----------------------------------------------------------------------------
// Constructors
// -----------------------------------------------------------------------------

const CACHE_LIMIT = 50_000

/**
 * An analyzer with the given steps (missing ones as in `defaults`); it memoizes up to 50,000 word
 * analyses, owned by the analyzer (an index makes its own).
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Partial<Options> = {}): Analyzer => build({ ...defaults, ...options }, CACHE_LIMIT)

const build = (options: Options, cacheLimit: number): Analyzer => {
  const underscore = !options.snakeCase
  const cache = new Map<string, ReadonlyArray<string>>()
  const analyzeWord = (word: string): ReadonlyArray<string> => {
    if (cacheLimit === 0) return internal.analyzeRun(word, options)
    let analyzed = cache.get(word)
    if (analyzed === undefined) {
      analyzed = internal.analyzeRun(word, options)
      if (cache.size >= cacheLimit) cache.clear()
      cache.set(word, analyzed)
    }
    return analyzed
  }
  const forEachWord = (text: string, f: (word: string) => void) => internal.forEachWord(text, f, underscore)
  const terms = (text: string): Array<string> => {
    const out: Array<string> = []
    forEachWord(text, (word) => {
      const analyzed = analyzeWord(word)
      for (let i = 0; i < analyzed.length; i++) out.push(analyzed[i] as string)
    })
    return out
  }
  // distinct terms in order of first appearance, collected in one pass (no array of repeats first)
  const distinctTerms = (text: string, seen: Set<string>): Array<string> => {
    const out: Array<string> = []
    forEachWord(text, (word) => {
      const analyzed = analyzeWord(word)
      for (let i = 0; i < analyzed.length; i++) {
        const term = analyzed[i] as string
        if (seen.has(term)) continue
        seen.add(term)
        out.push(term)
      }
    })
    return out
  }
  const queryTerms = (text: string): Array<string> => distinctTerms(text, new Set())
  const weightedQueryTerms = (text: string, quotedWeight: number): WeightedTerms => {
    const inQuotes: Array<string> = []
    const rest = quotedWeight === 1 || !QUOTE_MARK.test(text) ? text : text.replace(QUOTED, (span) => {
      inQuotes.push(...terms(span))
      return " "
    })
    const seen = new Set<string>()
    const distinct = distinctTerms(rest, seen)
    const weights = distinct.map(() => 1)
    for (const term of inQuotes) {
      if (seen.has(term)) continue
      seen.add(term)
      distinct.push(term)
      weights.push(quotedWeight)
    }
    return { terms: distinct, weights }
  }
  return { options, terms, queryTerms, forEachWord, analyzeWord, weightedQueryTerms }
}

// -----------------------------------------------------------------------------
// With the defaults
// -----------------------------------------------------------------------------

// -----------------------------------------------------------------------------
// Internals
// -----------------------------------------------------------------------------

const QUOTE_MARK = /['"“«「『]/
// A single quote counts only when it is not inside a word, so "it's" is not a quote.
const QUOTED =
  /(?<![\p{L}\p{N}])'[^'\n]{1,200}'(?![\p{L}\p{N}])|"[^"\n]{1,200}"|“[^”\n]{1,200}”|«[^»\n]{1,200}»|「[^」\n]{1,200}」|『[^』\n]{1,200}』/gu
