/**
 * Caps what a tool result, or a JSON-RPC error, sends to the client: everything counts — content
 * blocks, `structuredContent`, `_meta` and any other field of a result; the message and `data` of
 * an error. Over `maxChars`, text blocks are cut and other blocks left out once the budget is used,
 * `structuredContent` and every field besides `content` and `isError` are left out, and a note at
 * the end says how much was cut and which setting to change; an error keeps its code, its message
 * cut to the budget, and its `data` only when it fits. Within the cap, the same object is returned.
 *
 * @internal
 */
import { Predicate } from "effect"
import type { CallToolResult } from "../McpTool.js"

/** The characters a content block costs: its text, or its JSON for other blocks (images, resources). */
const sizeOf = (block: unknown): number =>
  Predicate.isObject(block) && block["type"] === "text" && typeof block["text"] === "string"
    ? block["text"].length
    : jsonSize(block)

const jsonSize = (value: unknown): number => value === undefined ? 0 : JSON.stringify(value)?.length ?? 0

/** The result within `maxChars`, with a note when something was cut. */
export const cap = (result: CallToolResult, maxChars: number): CallToolResult => {
  const { content, isError, structuredContent, ...extras } = result
  const extraKeys = Object.keys(extras)
  const total = content.reduce((sum: number, block) => sum + sizeOf(block), 0) + jsonSize(structuredContent) +
    (extraKeys.length === 0 ? 0 : jsonSize(extras))
  if (total <= maxChars) return result
  let budget = maxChars
  let left = 0
  const kept: Array<unknown> = []
  for (const block of content) {
    const size = sizeOf(block)
    if (size <= budget) {
      kept.push(block)
      budget -= size
    } else if (
      Predicate.isObject(block) && block["type"] === "text" && typeof block["text"] === "string" && budget > 0
    ) {
      kept.push({ ...block, text: block["text"].slice(0, budget) })
      budget = 0
    } else {
      left++
    }
  }
  const parts = [
    `the result had ${total} characters, over the limit of ${maxChars} (maxResultChars): it was cut`,
    ...(left > 0 ? [`${left} content block${left === 1 ? " was" : "s were"} left out`] : []),
    ...(structuredContent === undefined ? [] : ["structuredContent was left out"]),
    ...(extraKeys.length === 0
      ? []
      : [`${extraKeys.slice(0, 5).join(", ")}${extraKeys.length > 5 ? ", ..." : ""} left out`])
  ]
  return {
    content: [...kept, { type: "text", text: `[tool-search: ${parts.join("; ")}.]` }],
    ...(isError === undefined ? {} : { isError })
  }
}

/** A JSON-RPC error within `maxChars`: its message cut, its `data` dropped when it does not fit. */
export const capError = (
  message: string,
  data: unknown,
  maxChars: number
): { readonly message: string; readonly data?: unknown } => {
  const size = message.length + jsonSize(data)
  if (size <= maxChars) return data === undefined ? { message } : { message, data }
  const note = ` [tool-search: the error had ${size} characters, over the limit of ${maxChars} (maxResultChars)${
    data === undefined ? "" : "; its data was left out"
  }]`
  return { message: `${message.slice(0, Math.max(0, maxChars - note.length))}${note}` }
}
