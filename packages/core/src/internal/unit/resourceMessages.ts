/**
 * The resource tools the model uses — their descriptions, parameter schemas, input decoding, the
 * JSON they answer with and the corrective messages — in the grammar of `MetaTools`. The view
 * (`ResourceView`) binds them to one execution unit.
 *
 * - `sample_resources {query | uri, max}` (level 2): resources with their metadata and a
 *   ~200-character snippet; reveals what it shows.
 * - `search_resources {query, uri?, max}` (level 3): ranked passages inside resources, each with its
 *   offset, length, heading and a short excerpt; reveals the resources it shows.
 * - `read_resource {uri, offset?, length?}` (level 4): a slice of a revealed resource's body, with
 *   the total size and the offset to continue from.
 * - `get_prompt {name, arguments}`: a revealed prompt rendered with its arguments.
 *
 * Inputs are decoded with `Schema` and bounded; `null` stands for an absent optional field (some
 * providers send it). Every error names the call that fixes it.
 *
 * @internal
 */
import type { JsonSchema } from "effect"
import { Schema } from "effect"
import { toolNames } from "../../Disclosure.js"
import { memoNumbers } from "../memo.js"

// -----------------------------------------------------------------------------
// Inputs
// -----------------------------------------------------------------------------

/** Longest URI or prompt name accepted. */
const MAX_URI = 2_048
/** Longest query accepted. */
const MAX_QUERY = 2_000
/** Most prompt arguments, and the longest value of one. */
const MAX_ARGUMENTS = 32
const MAX_ARGUMENT_VALUE = 10_000

const bounded = (max: number) => Schema.String.check(Schema.isMaxLength(max))
const optional = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema))
const Offset = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
const Length = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))

/**
 * The input of `sample_resources`.
 */
export const SampleInput = Schema.Struct({
  query: optional(bounded(MAX_QUERY)),
  uri: optional(bounded(MAX_URI)),
  max: optional(Schema.Unknown)
})

/**
 * The input of `search_resources`.
 */
export const SearchInput = Schema.Struct({
  query: bounded(MAX_QUERY),
  uri: optional(bounded(MAX_URI)),
  max: optional(Schema.Unknown)
})

/**
 * The input of `read_resource`.
 */
export const ReadInput = Schema.Struct({
  uri: bounded(MAX_URI),
  offset: optional(Offset),
  length: optional(Length)
})

/**
 * The input of `get_prompt`.
 */
export const GetPromptInput = Schema.Struct({
  name: bounded(MAX_URI),
  arguments: optional(
    Schema.Record(Schema.String, bounded(MAX_ARGUMENT_VALUE)).check(Schema.isMaxProperties(MAX_ARGUMENTS))
  )
})

/**
 * The JSON each tool expects, in the words of an error message.
 */
export const usage: Readonly<Record<string, string>> = {
  [toolNames.sampleResources]:
    `${toolNames.sampleResources} takes {"query": "words"} or {"uri": "..."}, and optionally "max"`,
  [toolNames.searchResources]: `${toolNames.searchResources} takes {"query": "words"}, and optionally "uri" and "max"`,
  [toolNames.readResource]:
    `${toolNames.readResource} takes {"uri": "...", "offset": integer ≥ 0, "length": integer ≥ 1}`,
  [toolNames.getPrompt]: `${toolNames.getPrompt} takes {"name": "...", "arguments": {"argument": "value"}}`
}

// -----------------------------------------------------------------------------
// Descriptions and parameter schemas
// -----------------------------------------------------------------------------

/**
 * The description of `sample_resources`.
 */
export const sampleDescription = (limit: number, defaultMax: number, snippet: number): string =>
  [
    "Show resources (documents, collections, policies, prompts) matching a query, or the one resource",
    `of a uri: each with its uri, name, kind, source, MIME type, size, description and a ~${snippet}-character`,
    `snippet. Shown resources can then be read with ${toolNames.readResource} (prompts rendered with ${toolNames.getPrompt}).`,
    `Returns at most max resources (default ${defaultMax}, at most ${limit}).`
  ].join(" ")

/**
 * The description of `search_resources`.
 */
export const searchDescription = (limit: number, defaultMax: number): string =>
  [
    "Search inside resources: ranked passages, each with its resource's uri, the section heading, its",
    "offset and length in the body, and a short excerpt. Give uri to search one resource only.",
    `Read a passage and what surrounds it with ${toolNames.readResource} {uri, offset, length}.`,
    `Returns at most max passages (default ${defaultMax}, at most ${limit}).`
  ].join(" ")

/**
 * The description of `read_resource`.
 */
export const readDescription = (defaultLength: number, maxLength: number): string =>
  [
    `Read part of the body of a resource shown by ${toolNames.sampleResources} or ${toolNames.searchResources}: the text from`,
    `offset (default 0), at most length characters (default ${defaultLength}, at most ${maxLength}), with the`,
    "body's total size and next_offset to continue from (null at the end). Binary bodies come as base64,",
    "offsets and lengths in bytes."
  ].join(" ")

/**
 * The description of `get_prompt`.
 */
export const getPromptDescription: string = [
  `Render a prompt shown by ${toolNames.sampleResources}: give its name (or uri) and a value for each of its`,
  "arguments; returns the prompt's messages."
].join(" ")

/**
 * The parameter schema of `sample_resources`.
 */
export const sampleParameters = memoNumbers((limit: number, defaultMax: number): JsonSchema.JsonSchema => ({
  type: "object",
  properties: {
    query: { type: "string", description: "What you are looking for, in a few words" },
    uri: { type: "string", description: "The uri of one resource, instead of a query" },
    max: { type: "number", description: `How many resources to show (1-${limit}, default ${defaultMax})` }
  },
  additionalProperties: false
}))

/**
 * The parameter schema of `search_resources`.
 */
export const searchParameters = memoNumbers((limit: number, defaultMax: number): JsonSchema.JsonSchema => ({
  type: "object",
  properties: {
    query: { type: "string", description: "What the passage should say, in a few words" },
    uri: { type: "string", description: "Search only this resource" },
    max: { type: "number", description: `How many passages to return (1-${limit}, default ${defaultMax})` }
  },
  required: ["query"],
  additionalProperties: false
}))

/**
 * The parameter schema of `read_resource`.
 */
export const readParameters = memoNumbers((defaultLength: number, maxLength: number): JsonSchema.JsonSchema => ({
  type: "object",
  properties: {
    uri: { type: "string", description: "The resource's uri" },
    offset: { type: "integer", minimum: 0, description: "Where to start (default 0)" },
    length: {
      type: "integer",
      minimum: 1,
      description: `How much to read (default ${defaultLength}, at most ${maxLength})`
    }
  },
  required: ["uri"],
  additionalProperties: false
}))

/**
 * The parameter schema of `get_prompt`.
 */
export const getPromptParameters: JsonSchema.JsonSchema = {
  type: "object",
  properties: {
    name: { type: "string", description: "The prompt's name or uri" },
    arguments: {
      type: "object",
      additionalProperties: { type: "string" },
      description: "A value for each argument the prompt declares"
    }
  },
  required: ["name"],
  additionalProperties: false
}

// -----------------------------------------------------------------------------
// Answers
// -----------------------------------------------------------------------------

/**
 * One resource as `sample_resources` shows it.
 */
export interface Summary {
  readonly uri: string
  readonly name: string
  readonly title?: string
  readonly kind: string
  readonly source: string | null
  readonly mime_type: string | null
  readonly size: number | null
  readonly description: string
  readonly snippet: string
  /** For a template: read a concrete URI matching it. */
  readonly template?: true
  /** For a prompt: what `get_prompt` takes. */
  readonly arguments?: ReadonlyArray<
    { readonly name: string; readonly description?: string; readonly required: boolean }
  >
  /** Why `search_resources` finds no passage in it, when it does not. */
  readonly not_searchable?: string
}

/**
 * The answer of `sample_resources`.
 */
export interface SampleAnswer {
  readonly resources: ReadonlyArray<Summary>
  readonly note?: string
}

/**
 * One passage as `search_resources` shows it.
 */
export interface PassageHit {
  readonly uri: string
  readonly name: string
  readonly heading: string
  readonly offset: number
  readonly length: number
  readonly excerpt: string
}

/**
 * The answer of `search_resources`.
 */
export interface SearchAnswer {
  readonly passages: ReadonlyArray<PassageHit>
  readonly note?: string
}

/**
 * The answer of `read_resource`: `text` for text bodies, `base64` for binary ones.
 */
export interface ReadAnswer {
  readonly uri: string
  readonly mime_type: string | null
  readonly offset: number
  readonly length: number
  readonly total: number
  readonly next_offset: number | null
  readonly text?: string
  readonly base64?: string
}

/**
 * The answer of `get_prompt`.
 */
export interface PromptAnswer {
  readonly name: string
  readonly description?: string
  readonly messages: ReadonlyArray<{ readonly role: "user" | "assistant"; readonly text: string }>
}

// -----------------------------------------------------------------------------
// Corrective messages
// -----------------------------------------------------------------------------

/**
 * What a model must call to reveal a resource before `then` (a tool name) works.
 */
export const notRevealedHint = (uri: string, then: string): string =>
  `Resource '${uri}' is not revealed yet. Call ${toolNames.sampleResources} with ${
    JSON.stringify({ uri })
  } to reveal it, then call ${then} again.`

/**
 * The message for a URI or prompt name that no resource of this agent has.
 */
export const unknownHint = (uri: string, suggestions: ReadonlyArray<string>): string =>
  suggestions.length > 0
    ? `Unknown resource '${uri}'. Did you mean: ${suggestions.join(", ")}?`
    : `Unknown resource '${uri}'. Use ${toolNames.sampleResources} with a query to find resources and their uris.`

/**
 * The note of a `search_resources` answer for one resource whose body is not searchable.
 */
export const notSearchableNote = (uri: string, reason: string): string =>
  `'${uri}' is not searchable: ${reason}. Call ${toolNames.sampleResources} with ${
    JSON.stringify({ uri })
  } to reveal it, then ${toolNames.readResource} to read it.`

/**
 * The message for a prompt passed to `read_resource`.
 */
export const isPromptHint = (name: string): string =>
  `'${name}' is a prompt, which has no body to read. Call ${toolNames.getPrompt} with ${
    JSON.stringify({ name, arguments: {} })
  } (a value for each argument) to render it.`

/**
 * The message for a resource passed to `get_prompt`.
 */
export const notAPromptHint = (uri: string): string =>
  `'${uri}' is not a prompt. Call ${toolNames.readResource} with ${JSON.stringify({ uri })} to read it.`
