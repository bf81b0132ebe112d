/**
 * Counts tokens the way a provider bills them, with a real tokenizer (`o200k_base`, the encoding of
 * current OpenAI models, through `js-tiktoken`; its ranks ship inside the package, so nothing is
 * downloaded). The executor uses it to report, per request, the tokens of the tool definitions it
 * actually sent and what sending the whole catalog would have cost.
 *
 * A tool definition is counted as the JSON a provider receives (`{name, description,
 * parameters}`); counts are cached per definition object, so a 1,000-tool catalog is tokenized once.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import type { JsonSchema } from "effect"
import { definitionText } from "./internal/jsonText.js"

/**
 * What a tool definition is made of, as sent to a provider.
 *
 * @since 0.1.0
 * @category models
 */
export interface Definition {
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchema.JsonSchema
}

/**
 * Memoizes a function of a tool definition per parameters object (stable per catalog entry and per
 * meta tool), checking name and description so a renamed tool is computed again. This runs for
 * every tool of every request, so a hit is two comparisons, not a string key.
 *
 * @since 0.1.0
 * @category caching
 */
export const definitionCache = <A>(f: (tool: Definition) => A): (tool: Definition) => A => {
  const cache = new WeakMap<object, { readonly name: string; readonly description: string; readonly value: A }>()
  return (tool) => {
    const hit = cache.get(tool.parameters)
    if (hit !== undefined && hit.name === tool.name && hit.description === tool.description) return hit.value
    const value = f(tool)
    cache.set(tool.parameters, { name: tool.name, description: tool.description, value })
    return value
  }
}

/**
 * What `TokenCounter` provides.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The name of the encoding, for reports. */
  readonly encoding: string
  /** Tokens of a text. */
  readonly count: (text: string) => number
  /** Tokens of one tool definition (cached per object). */
  readonly definition: (tool: Definition) => number
  /**
   * The longest start of `text` within `maxTokens` tokens. Only the first `maxTokens × 8`
   * characters are looked at, so a 50 MB text costs no more than a short one.
   */
  readonly truncate: (text: string, maxTokens: number) => string
}

interface Encoder {
  readonly encode: (text: string, allowedSpecial: Array<string>, disallowedSpecial: Array<string>) => Array<number>
  readonly decode: (tokens: Array<number>) => string
}

/** Characters per token of budget that `truncate` looks at (real text averages about four). */
const WINDOW = 8

/** Pieces (words, numbers, runs of punctuation) whose counts `o200k` keeps, and the longest kept. */
const PIECES_CACHED = 100_000
const PIECE_MAX_CACHED = 64

interface Counter {
  readonly encoding: string
  readonly count: (text: string) => number
  readonly definition: (tool: Definition) => number
  readonly truncate: (text: string, maxTokens: number) => string
  readonly ready: Effect.Effect<void>
}

function make(
  encoding: string,
  count: (text: string) => number,
  truncate: (text: string, maxTokens: number) => string,
  load: () => Promise<void>
): Counter {
  const cache = definitionCache((tool: Definition) => count(definitionText(tool)))
  return { encoding, count, definition: cache, truncate, ready: Effect.promise(load) }
}

/**
 * About four characters per token: the default, for tests and when exact counts do not matter.
 *
 * @since 0.3.0
 * @category counters
 */
export const approximate: Service = make(
  "chars/4",
  (text) => Math.ceil(text.length / 4),
  (text, maxTokens) => text.slice(0, maxTokens * 4),
  () => Promise.resolve()
)

/**
 * The token counter in context: `approximate` unless a layer provides another (`o200k`), so running a
 * turn needs no counter layer.
 *
 * @since 0.1.0
 * @category services
 */
export const TokenCounter = Context.Reference<Service>("@tool-search/agent/TokenCounter", {
  defaultValue: () => approximate
})

/**
 * The `o200k_base` encoder, read once per process: parsing its ranks takes ~0.5 s and ~60 MB, and
 * they never change, so every `o200k` layer built (one per executor, per test, per benchmark mode)
 * shares it. The encoder holds no state between calls.
 */
let o200kLoaded: Promise<{ readonly encoder: Encoder; readonly pattern: string }> | undefined
const o200kRanks = () =>
  o200kLoaded ??= Promise.all([import("js-tiktoken/lite"), import("js-tiktoken/ranks/o200k_base")]).then((
    [{ Tiktoken }, ranks]
  ) => ({ encoder: new Tiktoken(ranks.default), pattern: ranks.default.pat_str }))

/**
 * `o200k_base` through `js-tiktoken`: exact counts for OpenAI's current models; the ranks (a few
 * MB, ~0.5 s) load when the first such layer of the process is built, and later ones share them.
 *
 * @since 0.3.0
 * @category layers
 */
export const o200k: Layer.Layer<never> = Layer.effect(
  TokenCounter,
  Effect.sync(() => {
    let encoder: Encoder | undefined
    let pattern: RegExp | undefined
    const load = async () => {
      const ranks = await o200kRanks()
      encoder = ranks.encoder
      pattern = new RegExp(ranks.pattern, "gu")
    }
    let loading: Promise<void> | undefined
    // the layer awaits `ready` before anyone can get the service
    const loaded = (): Encoder => {
      if (encoder === undefined) throw new Error("TokenCounter.o200k: ranks not loaded")
      return encoder
    }
    // Special-token text (`<|endoftext|>`) in a tool result or description is ordinary text here:
    // js-tiktoken throws on it by default.
    const encode = (text: string) => loaded().encode(text, [], [])
    // js-tiktoken compiles its split pattern again on every call (most of the cost of a short
    // text), and the executor counts every message it sends. So the text is split here with one
    // compiled pattern, and each piece is encoded once: tiktoken encodes the pieces of a text
    // independently, so the text's count is the sum of its pieces' (a property test checks it).
    const pieces = new Map<string, number>()
    const count = (text: string): number => {
      const split = pattern
      if (split === undefined) return encode(text).length
      let tokens = 0
      split.lastIndex = 0
      for (let match = split.exec(text); match !== null; match = split.exec(text)) {
        const piece = match[0]
        if (piece === "") {
          split.lastIndex++ // the pattern matches no empty piece; never loop on one
          continue
        }
        let n = pieces.get(piece)
        if (n === undefined) {
          n = encode(piece).length
          if (piece.length <= PIECE_MAX_CACHED) {
            if (pieces.size >= PIECES_CACHED) pieces.clear()
            pieces.set(piece, n)
          }
        }
        tokens += n
      }
      return tokens
    }
    return make("o200k_base", count, (text, maxTokens) => {
      const window = text.slice(0, maxTokens * WINDOW)
      const tokens = encode(window)
      if (tokens.length <= maxTokens && window.length === text.length) return text
      // the last token of a window that cuts the text may be a piece of a longer one: drop it
      const keep = Math.min(maxTokens, window.length === text.length ? tokens.length : tokens.length - 1)
      return loaded().decode(tokens.slice(0, Math.max(0, keep))).replace(/\uFFFD+$/, "")
    }, () => (loading ??= load()))
  }).pipe(Effect.tap((counter) => counter.ready))
)

/**
 * Provides `approximate` explicitly (it is also the default).
 *
 * @since 0.3.0
 * @category layers
 */
export const layerApproximate: Layer.Layer<never> = Layer.succeed(TokenCounter, approximate)
