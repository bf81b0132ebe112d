/**
 * Caps what a tool result sends to the client: text blocks are cut and other blocks left out
 * once `maxChars` characters are used, and a note at the end says how much was cut and which
 * setting to change. A result within the cap is returned as is (the same object).
 *
 * @internal
 */
import { Predicate } from "effect"
import type { CallToolResult } from "../McpTool.js"

/** The characters a content block costs: its text, or its JSON for other blocks (images, resources). */
const sizeOf = (block: unknown): number =>
  Predicate.isObject(block) && block["type"] === "text" && typeof block["text"] === "string"
    ? block["text"].length
    : JSON.stringify(block)?.length ?? 0

/** The result within `maxChars`, with a note when something was cut. */
export const cap = (result: CallToolResult, maxChars: number): CallToolResult => {
  const structured = result["structuredContent"]
  const structuredSize = structured === undefined ? 0 : JSON.stringify(structured)?.length ?? 0
  const total = result.content.reduce((sum: number, block) => sum + sizeOf(block), 0) + structuredSize
  if (total <= maxChars) return result
  let budget = maxChars
  let left = 0
  const content: Array<unknown> = []
  for (const block of result.content) {
    const size = sizeOf(block)
    if (size <= budget) {
      content.push(block)
      budget -= size
    } else if (
      Predicate.isObject(block) && block["type"] === "text" && typeof block["text"] === "string" && budget > 0
    ) {
      content.push({ ...block, text: block["text"].slice(0, budget) })
      budget = 0
    } else {
      left++
    }
  }
  const parts = [
    `the result had ${total} characters, over the limit of ${maxChars} (maxResultChars): it was cut`,
    ...(left > 0 ? [`${left} content block${left === 1 ? " was" : "s were"} left out`] : []),
    ...(structured === undefined ? [] : ["structuredContent was left out"])
  ]
  const { structuredContent: _, ...rest } = result
  return { ...rest, content: [...content, { type: "text", text: `[tool-search: ${parts.join("; ")}.]` }] }
}
