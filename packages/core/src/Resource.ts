/**
 * A resource: something the model reads rather than runs — a document, a collection, a policy, a
 * graph, a prompt. Resources are disclosed in levels, like tools: the table of contents names
 * them (L1), `sample_resources` shows metadata and a short snippet (L2), `search_resources` ranks
 * passages inside them (L3), and `read_resource` reads the slice the model asks for (L4); prompts
 * are rendered by `get_prompt`. The engine never pushes a body into the prompt: the model pulls.
 *
 * A resource is identified by its URI and carries its own `kind` (free text, like a tool's
 * category: the engine hard-codes none) and `source`. Its body is read through a `Reader` that
 * takes an offset and a length, so a long body kept in a separate store is fetched in the amount
 * needed. Text offsets count UTF-16 code units (JavaScript string indices); binary offsets count
 * bytes. A prompt has no body: it has arguments and a `render` function.
 *
 * A URI template (RFC 6570, `file:///logs/{day}`) stands for a family of resources: one entry whose
 * reader receives the concrete URI the model asked for.
 *
 * Resources come from code (`text`, `make`, `template`, `prompt`), from resource files
 * (`ResourceFile`) and from MCP servers (`McpResource` in `@tool-search/mcp`); every path ends in
 * `validate`, which the catalog runs again at registration.
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import type { ResourceReadError } from "./Errors.js"
import { InvalidEntry } from "./Errors.js"
import * as Validation from "./internal/resourceValidation.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * A slice of a body: text, or bytes.
 *
 * @since 0.2.0
 * @category models
 */
export type Content =
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "Bytes"; readonly bytes: Uint8Array }

/**
 * What a reader is asked: a range of the body of `uri` (a concrete URI for a template).
 *
 * @since 0.2.0
 * @category models
 */
export interface ReadRequest {
  readonly uri: string
  /** Where the slice starts: UTF-16 code units for text, bytes for binary bodies. */
  readonly offset: number
  /** How much to return at most, in the same unit. */
  readonly length: number
}

/**
 * What a reader returns: the slice, and the size of the whole body in the same unit.
 *
 * @since 0.2.0
 * @category models
 */
export interface Slice {
  readonly content: Content
  readonly total: number
  /** Where the slice starts, when not where it was asked (a text never starts inside a character). */
  readonly offset?: number
}

/**
 * Reads a range of a body. It may return less than asked (never more), and nothing past the end.
 *
 * @since 0.2.0
 * @category models
 */
export type Reader = (request: ReadRequest) => Effect.Effect<Slice, ResourceReadError>

/**
 * One argument of a prompt.
 *
 * @since 0.2.0
 * @category models
 */
export interface PromptArgument {
  readonly name: string
  readonly description?: string
  readonly required: boolean
}

/**
 * One message of a rendered prompt.
 *
 * @since 0.2.0
 * @category models
 */
export interface PromptMessage {
  readonly role: "user" | "assistant"
  readonly text: string
}

/**
 * A prompt rendered with its arguments.
 *
 * @since 0.2.0
 * @category models
 */
export interface RenderedPrompt {
  readonly description?: string
  readonly messages: ReadonlyArray<PromptMessage>
}

/**
 * What makes a resource a prompt: its arguments, and how it is rendered from their values.
 *
 * @since 0.2.0
 * @category models
 */
export interface Prompt {
  readonly arguments: ReadonlyArray<PromptArgument>
  readonly render: (args: Readonly<Record<string, string>>) => Effect.Effect<RenderedPrompt, ResourceReadError>
}

/**
 * A resource. Immutable; exactly one of `read` (a body) and `prompt` is present.
 *
 * @since 0.2.0
 * @category models
 */
export interface Resource {
  /** Identity in the catalog; for a template, the template itself. */
  readonly uri: string
  readonly name: string
  readonly title?: string
  /** The resource's own kind: `document`, `collection`, `policy`, `prompt`, `graph`, or any other word. */
  readonly kind: string
  /** The source id (an MCP server, a store); visibility and the table of contents group by it. */
  readonly source?: string
  readonly description: string
  readonly mimeType?: string
  /** The body's size when known: characters for text, bytes for binary bodies. */
  readonly size?: number
  /** Whether `uri` is a URI template standing for a family of resources. */
  readonly template: boolean
  /** How the body is read; absent for prompts. */
  readonly read?: Reader
  /** Present for prompts. */
  readonly prompt?: Prompt
}

/**
 * The fields a caller supplies for any resource; everything else has a default.
 *
 * @since 0.2.0
 * @category models
 */
export interface Input {
  readonly uri: string
  readonly name: string
  readonly title?: string
  /** Default `document`. */
  readonly kind?: string
  readonly source?: string
  readonly description?: string
  readonly mimeType?: string
  readonly size?: number
}

// -----------------------------------------------------------------------------
// Errors
// -----------------------------------------------------------------------------

// -----------------------------------------------------------------------------
// Validation
// -----------------------------------------------------------------------------

/**
 * The bounds `validate` enforces.
 *
 * @since 0.2.0
 * @category validation
 */
export const limits = {
  uri: 2_048,
  name: 200,
  title: 200,
  kind: 64,
  source: 200,
  description: 10_000,
  mimeType: 255,
  promptArguments: 32
} as const

/**
 * Checks what every resource must satisfy before a model may see it: a URI with a scheme, a
 * single-line name and kind within bounds, a MIME type of the form `type/subtype`, a size that is
 * a non-negative integer, exactly one of a reader and a prompt, unique prompt argument names, and
 * a URI template exactly when the resource is declared a template.
 * Names and kinds are trimmed; an empty kind becomes `document`.
 *
 * @since 0.2.0
 * @category validation
 */
export const validate = (resource: Resource): Effect.Effect<Resource, InvalidEntry> =>
  Effect.mapError(
    Validation.validate(resource, limits),
    ({ reason, uri }) => new InvalidEntry({ kind: "resource", name: uri, reason })
  )

// -----------------------------------------------------------------------------
// Constructors
// -----------------------------------------------------------------------------

const base = (input: Input, template: boolean) => ({
  uri: input.uri,
  name: input.name,
  kind: input.kind ?? "document",
  description: input.description ?? "",
  template,
  ...(input.title === undefined ? {} : { title: input.title }),
  ...(input.source === undefined ? {} : { source: input.source }),
  ...(input.mimeType === undefined ? {} : { mimeType: input.mimeType }),
  ...(input.size === undefined ? {} : { size: input.size })
})

/**
 * A resource whose body is `text`, held in memory. Its size is the text's length; its MIME type
 * defaults to `text/plain`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const text = (input: Input & { readonly text: string }): Resource => ({
  ...base({ mimeType: "text/plain", ...input, size: input.text.length }, false),
  read: (request) => Effect.succeed(sliceText(input.text, request.offset, request.length))
})

/**
 * A resource read by `read` (a store, a file, a server). Not validated here: the catalog validates
 * at registration.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (input: Input & { readonly read: Reader }): Resource => ({
  ...base(input, false),
  read: input.read
})

/**
 * A family of resources named by a URI template (`uri`, RFC 6570): `read` receives the concrete
 * URI the model asked for, which the catalog matched against the template.
 *
 * @since 0.2.0
 * @category constructors
 */
export const template = (input: Input & { readonly read: Reader }): Resource => ({
  ...base(input, true),
  read: input.read
})

/**
 * A prompt: a named message template with arguments, rendered by `render`. Its URI defaults to
 * `prompt://<source>/<name>` (`prompt://local/<name>` without a source); its kind is `prompt`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const prompt = (
  input: Omit<Input, "uri" | "kind"> & {
    readonly uri?: string
    readonly arguments?: ReadonlyArray<PromptArgument>
    readonly render: Prompt["render"]
  }
): Resource => ({
  ...base({
    ...input,
    uri: input.uri ?? `prompt://${encodeURIComponent(input.source ?? "local")}/${encodeURIComponent(input.name)}`,
    kind: "prompt"
  }, false),
  prompt: { arguments: input.arguments ?? [], render: input.render }
})

// -----------------------------------------------------------------------------
// Slices
// -----------------------------------------------------------------------------

/**
 * The slice `[offset, offset + length)` of `text`, never splitting a surrogate pair: a slice that
 * would end between the two halves of a character ends before it, one that would start between
 * them starts after it. Offsets past the end give an empty slice.
 *
 * @since 0.2.0
 * @category slices
 */
export const sliceText = (text: string, offset: number, length: number): Slice => {
  const start = clampIndex(text, Math.max(0, Math.min(offset, text.length)), "forward")
  const end = clampIndex(text, Math.max(start, Math.min(start + Math.max(0, length), text.length)), "backward")
  const slice: Slice = { content: { _tag: "Text", text: text.slice(start, end) }, total: text.length }
  return start === offset ? slice : { ...slice, offset: start }
}

/**
 * The slice `[offset, offset + length)` of `bytes`.
 *
 * @since 0.2.0
 * @category slices
 */
export const sliceBytes = (bytes: Uint8Array, offset: number, length: number): Slice => {
  const start = Math.max(0, Math.min(offset, bytes.length))
  const end = Math.max(start, Math.min(start + Math.max(0, length), bytes.length))
  const slice: Slice = { content: { _tag: "Bytes", bytes: bytes.subarray(start, end) }, total: bytes.length }
  return start === offset ? slice : { ...slice, offset: start }
}

/** Moves an index off the low half of a surrogate pair. */
const clampIndex = (text: string, index: number, direction: "forward" | "backward"): number => {
  if (index <= 0 || index >= text.length) return index
  const before = text.charCodeAt(index - 1)
  const at = text.charCodeAt(index)
  const splits = before >= 0xd800 && before <= 0xdbff && at >= 0xdc00 && at <= 0xdfff
  return splits ? (direction === "forward" ? index + 1 : index - 1) : index
}
