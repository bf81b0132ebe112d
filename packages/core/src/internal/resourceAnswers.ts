/**
 * The answers of the resource view, built from catalog entries, slices and rendered prompts, and
 * the checks of prompt arguments — pure functions the view calls once it has decided a request may
 * be served.
 *
 * @internal
 */
import { Base64 } from "effect/encoding"
import { toolNames } from "../Disclosure.js"
import type * as Resource from "../Resource.js"
import type { Entry } from "../ResourceCatalog.js"
import type { PromptAnswer, ReadAnswer, Summary } from "./unit/resourceMessages.js"

/** A resource as `sample_resources` shows it. */
export const summaryOf = (entry: Entry, snippet: string): Summary => ({
  uri: entry.uri,
  name: entry.name,
  ...(entry.title === undefined ? {} : { title: entry.title }),
  kind: entry.kind,
  source: entry.source ?? null,
  mime_type: entry.mimeType ?? null,
  size: entry.size ?? null,
  description: entry.description,
  snippet,
  ...(entry.template ? { template: true as const } : {}),
  ...(entry.prompt === undefined ? {} : {
    arguments: entry.prompt.arguments.map((a) => ({
      name: a.name,
      ...(a.description === undefined ? {} : { description: a.description }),
      required: a.required
    }))
  }),
  ...(entry.unsearchable === undefined || entry.prompt !== undefined ? {} : { not_searchable: entry.unsearchable })
})

/**
 * The answer of `read_resource` for the slice a reader returned, or why the request cannot be
 * served (an offset past the end). What a misbehaving reader sends beyond `length` is cut.
 */
export const readAnswer = (
  uri: string,
  entry: Entry,
  slice: Resource.Slice,
  offset: number,
  length: number
): ReadAnswer | string => {
  const total = Number.isSafeInteger(slice.total) && slice.total >= 0 ? slice.total : undefined
  if (total !== undefined && offset > total) {
    return `Offset ${offset} is past the end of '${uri}' (${total} in all). Call ${toolNames.readResource} with ${
      JSON.stringify({ uri, offset: 0 })
    } to read from the start.`
  }
  const start = slice.offset !== undefined && slice.offset >= offset ? slice.offset : offset
  const content = slice.content
  const body = content._tag === "Text"
    ? { text: content.text.slice(0, length) }
    : { base64: Base64.encode(content.bytes.subarray(0, length)) }
  const got = content._tag === "Text" ? Math.min(length, content.text.length) : Math.min(length, content.bytes.length)
  const end = start + got
  const all = total ?? end
  return {
    uri,
    mime_type: entry.mimeType ?? null,
    offset: start,
    length: got,
    total: all,
    next_offset: end < all && got > 0 ? end : null,
    ...body
  }
}

/** Why `args` do not fit the prompt (an undeclared or a missing required argument), or `undefined`. */
export const argumentProblem = (
  entry: Entry,
  prompt: Resource.Prompt,
  name: string,
  args: Readonly<Record<string, string>>
): string | undefined => {
  const declared = new Set(prompt.arguments.map((a) => a.name))
  const listing = prompt.arguments.map((a) => a.required ? `${a.name} (required)` : a.name).join(", ") || "none"
  const extra = Object.keys(args).filter((k) => !declared.has(k))
  if (extra.length > 0) {
    return `Prompt '${entry.name}' has no argument ${extra.map((k) => `'${k}'`).join(", ")}; its arguments: ${listing}.`
  }
  const missing = prompt.arguments.filter((a) => a.required && (args[a.name] ?? "").trim() === "")
  if (missing.length === 0) return undefined
  const example = Object.fromEntries(prompt.arguments.map((a) => [a.name, args[a.name] ?? "..."]))
  return `Prompt '${entry.name}' needs a value for ${
    missing.map((a) => a.name).join(", ")
  }. Call ${toolNames.getPrompt} with ${JSON.stringify({ name, arguments: example })}.`
}

/** The message for a prompt name several prompts share. */
export const ambiguousPrompt = (name: string, prompts: ReadonlyArray<Entry>): string =>
  `Several prompts are named '${name}'. Call ${toolNames.getPrompt} with one of these uris as name: ${
    prompts.map((p) => p.uri).join(", ")
  }.`

/** The answer of `get_prompt`: the rendered messages, their text bounded by `budget` characters in all. */
export const promptAnswer = (entry: Entry, rendered: Resource.RenderedPrompt, budget: number): PromptAnswer => {
  let left = budget
  const messages = rendered.messages.flatMap((m) => {
    if (left <= 0) return []
    const text = m.text.slice(0, left)
    left -= text.length
    return [{ role: m.role, text }]
  })
  return {
    name: entry.name,
    ...(rendered.description === undefined ? {} : { description: rendered.description }),
    messages
  }
}
