/**
 * Prefix-cache accounting: of each request's input tokens, how many open the request exactly as an
 * earlier request of the same executor opened — what a provider's prefix cache could serve.
 *
 * A request is read in the order providers serialize it: each tool definition, then each system
 * message, then the other messages. Each piece is a chunk with a content hash and a token count
 * (cached per definition and per message object, so a turn's growing prompt is hashed and counted
 * once per message). A request's chunks are folded into a hash chain — the key of chunk `i` hashes
 * the key of chunk `i - 1` with chunk `i`'s own hash, so equal keys mean equal prefixes — and the
 * cacheable prefix is the longest chain the index has seen. Recording and looking up are O(chunks)
 * per request, whatever the length of the conversation or the number of earlier requests.
 *
 * The index keeps between the most recent `capacity / 2` and `capacity` keys (a provider's cache
 * forgets too); an evicted key only makes a later figure smaller, never larger. Counts are the
 * `TokenCounter`'s, per chunk: deterministic, close to but not exactly what a provider bills.
 */
import { Predicate } from "effect"
import type { Prompt } from "effect/ai"
import { type Definition, definitionCache, type Service as TokenCounterService } from "../TokenCounter.js"
import { definitionText, jsonText, writeJson } from "./jsonText.js"

/** One piece of a request: its content hash and its tokens. */
interface Chunk {
  readonly hash: number
  readonly tokens: number
}

/** What a request is made of, in the order a provider sends it. */
export interface Request {
  readonly tools: ReadonlyArray<Definition>
  /** Definitions sent deferred (`native`): in the request, not in the model's context (no tokens). */
  readonly deferred: ReadonlyArray<Definition>
  readonly prompt: Prompt.Prompt
}

/** A request's input tokens, and how many of them an earlier request of the executor started with. */
export interface Measure {
  readonly inputTokens: number
  readonly prefixTokens: number
}

/** The prefix index of one executor. */
export interface Index {
  /** Measures a request against every earlier one, then records it (synchronous: call it in an effect). */
  readonly observe: (request: Request) => Measure
}

/** Keys kept by default: about 100 requests of 1,000 chunks, or 10,000 of 10. */
export const defaultCapacity = 100_000

/** An empty index counting with `counter`. */
export const make = (counter: TokenCounterService, capacity: number = defaultCapacity): Index => {
  const toolChunk = definitionCache((t): Chunk => ({
    hash: hash(`tool\u0000${definitionText(t)}`),
    tokens: counter.definition(t)
  }))
  const deferredChunk = definitionCache((t): Chunk => ({ hash: hash(`deferred\u0000${definitionText(t)}`), tokens: 0 }))
  const messages = new WeakMap<Prompt.Message, Chunk>()
  const messageChunk = (message: Prompt.Message): Chunk => {
    const hit = messages.get(message)
    if (hit !== undefined) return hit
    const chunk = render(message, counter)
    messages.set(message, chunk)
    return chunk
  }

  // Two generations: a key goes into `recent`, and when `recent` holds half the capacity it
  // becomes `older` and the older one is dropped. O(1) per key: an exact LRU in one insertion-ordered
  // Map cost ~150 µs per request at 100,000 keys, since every deletion leaves a hole that V8 skips
  // on each iteration from the front.
  const half = Math.max(1, Math.floor(capacity / 2))
  let recent = new Set<number>()
  let older = new Set<number>()
  const record = (key: number) => {
    if (recent.has(key)) return
    recent.add(key)
    if (recent.size >= half) {
      older = recent
      recent = new Set()
    }
  }

  const observe = (request: Request): Measure => {
    // the request's chunks folded in the order a provider sends it; the keys are recorded after the lookups
    let key = 0
    let inputTokens = 0
    let prefixTokens = 0
    const keys: Array<number> = []
    const add = (chunk: Chunk) => {
      key = chain(key, chunk.hash)
      inputTokens += chunk.tokens
      // the longest start seen before: every key up to it was seen too, unless evicted since
      if (recent.has(key) || older.has(key)) prefixTokens = inputTokens
      keys.push(key)
    }
    for (const tool of request.tools) add(toolChunk(tool))
    for (const tool of request.deferred) add(deferredChunk(tool))
    const { content } = request.prompt
    for (const message of content) if (message.role === "system") add(messageChunk(message))
    for (const message of content) if (message.role !== "system") add(messageChunk(message))
    for (const k of keys) record(k)
    return { inputTokens, prefixTokens }
  }

  return { observe }
}

// -----------------------------------------------------------------------------
// Rendering
// -----------------------------------------------------------------------------

/**
 * A message's chunk: its tokens, as the model reads it, and the hash of its identity, as a cache
 * compares it — its role, its text, and what the model does not read as text (file contents, part
 * options). The identity is hashed as it is read, never written out as one string.
 *
 * A search result listing tool definitions (`ToolSearch`'s `{"functions": [...]}`) counts each
 * definition as the tool list does, from the counter's cache: the definitions of a found tool are
 * tokenized once, not again in every result that lists them.
 */
const render = (message: Prompt.Message, counter: TokenCounterService): Chunk => {
  const identity = new Hasher().text(message.role).code(0)
  if (message.role === "system") {
    return { hash: identity.text(message.content).digest(), tokens: counter.count(message.content) }
  }
  const extra: Array<string> = []
  let tokens = 0
  let texts = 0
  // the message's texts, one per line
  const line = () => {
    if (texts++ > 0) identity.code(10)
    return identity
  }
  const read = (text: string) => {
    line().text(text)
    tokens += counter.count(text)
  }
  for (const part of message.content) {
    switch (part.type) {
      case "text":
      case "reasoning":
        read(part.text)
        break
      case "tool-call":
        read(`${part.name} ${jsonText(part.params)}`)
        break
      case "tool-result": {
        if (typeof part.result === "string") {
          read(`${part.name} ${part.result}`)
          break
        }
        const listed = definitionsIn(part.result)
        if (listed === undefined) {
          read(`${part.name} ${jsonText(part.result)}`)
          break
        }
        line().text(part.name).code(32).text(jsonText(part.result))
        tokens += counter.count(`${part.name} ${writeJson(listed.rest)}`) +
          listed.definitions.reduce((sum, d) => sum + counter.definition(d) + 1, 0)
        break
      }
      case "file":
        // a file is billed by its own rules (images by size): its name counts, its data only identifies it
        read(`[${part.mediaType}${part.fileName === undefined ? "" : ` ${part.fileName}`}]`)
        extra.push(fileIdentity(part.data))
        break
      default:
        read(jsonText(part))
    }
    if (Object.keys(part.options).length > 0) extra.push(jsonText(part.options))
  }
  for (const text of extra) identity.code(0).text(text)
  return { hash: identity.digest(), tokens }
}

/** The definitions a `{"functions": [{name, description, parameters}, ...]}` result lists, and the rest of it. */
const definitionsIn = (
  result: unknown
): { readonly definitions: ReadonlyArray<Definition>; readonly rest: unknown } | undefined => {
  if (!Predicate.isObject(result) || !Array.isArray(result["functions"])) return undefined
  const definitions: Array<Definition> = []
  for (const item of result["functions"] as ReadonlyArray<unknown>) {
    if (
      !Predicate.isObject(item) || typeof item["name"] !== "string" || typeof item["description"] !== "string" ||
      !Predicate.isObject(item["parameters"])
    ) return undefined
    definitions.push(item as unknown as Definition)
  }
  return { definitions, rest: { ...result, functions: [] } }
}

const fileIdentity = (data: Prompt.FilePart["data"]): string => {
  if (typeof data === "string") return String(hash(data))
  if (data instanceof URL) return data.href
  return `${data.length}:${new Hasher().bytes(data).digest()}`
}

/**
 * A 53-bit hash of a string (two 32-bit multiplicative mixes): collisions among 100,000 keys are
 * about one in ten million, and a collision only makes one prefix look longer than it is.
 */
const hash = (text: string): number => new Hasher().text(text).digest()

/**
 * `hash`, fed piece by piece: the hash of the pieces' concatenation, without making it (a message's
 * identity is its role, its texts and its options; a file's, its bytes).
 */
class Hasher {
  private a = 0xdeadbeef
  private b = 0x41c6ce57
  /** Feeds one code (a character's, a byte). */
  code(c: number): this {
    this.a = Math.imul(this.a ^ c, A)
    this.b = Math.imul(this.b ^ c, B)
    return this
  }
  /** Feeds a string's characters. */
  text(text: string): this {
    for (let i = 0; i < text.length; i++) this.code(text.charCodeAt(i))
    return this
  }
  /** Feeds bytes. */
  bytes(data: Uint8Array): this {
    for (const byte of data) this.code(byte)
    return this
  }
  /** The hash of everything fed. */
  digest(): number {
    return finish(this.a, this.b)
  }
}

/**
 * The key of a chain extended by one chunk: the 53-bit hash of the two numbers (each fed as its two
 * 32-bit halves), computed without writing them out as text.
 */
const chain = (key: number, chunk: number): number => {
  const k0 = key >>> 0
  const k1 = (key / 4294967296) >>> 0
  const c0 = chunk >>> 0
  const c1 = (chunk / 4294967296) >>> 0
  const a = Math.imul(Math.imul(Math.imul(Math.imul(0xdeadbeef ^ k0, A) ^ k1, A) ^ c0, A) ^ c1, A)
  const b = Math.imul(Math.imul(Math.imul(Math.imul(0x41c6ce57 ^ k0, B) ^ k1, B) ^ c0, B) ^ c1, B)
  return finish(a, b)
}

/** The two multipliers of the hash's mixes. */
const A = 2654435761
const B = 1597334677

/** The two mixes' final avalanche, as one 53-bit number. */
const finish = (a0: number, b0: number): number => {
  const a = Math.imul(a0 ^ (a0 >>> 16), 2246822507) ^ Math.imul(b0 ^ (b0 >>> 13), 3266489909)
  const b = Math.imul(b0 ^ (b0 >>> 16), 2246822507) ^ Math.imul(a ^ (a >>> 13), 3266489909)
  return 4294967296 * (2097151 & b) + (a >>> 0)
}
