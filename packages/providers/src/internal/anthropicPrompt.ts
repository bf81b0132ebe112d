/**
 * A prompt as Anthropic Messages: the conversation's messages (system messages go to the request's
 * `system` blocks instead), merged so that roles alternate, and the prompt-cache breakpoint on the
 * last block.
 *
 * @internal
 */
import { NativeDeferral } from "@tool-search/core"
import { Effect } from "effect"
import type { AiError, Prompt } from "effect/ai"
import type { Block, Message, ToolReference } from "../AnthropicMessages.js"
import { fileSource, toolResultText, unsupported } from "./parts.js"

const MODULE = "Anthropic"

/** The `cache_control` of a prompt-cache breakpoint. */
export const breakpoint = { cache_control: { type: "ephemeral" } } as const

/** `messages` with a breakpoint on the last block of the last message. */
export const withBreakpointAtEnd = (messages: ReadonlyArray<Message>): ReadonlyArray<Message> => {
  const last = messages.at(-1)
  const block = last?.content.at(-1)
  if (last === undefined || block === undefined) return messages
  return [...messages.slice(0, -1), { ...last, content: [...last.content.slice(0, -1), { ...block, ...breakpoint }] }]
}

/** The conversation of `prompt` as Messages `messages`: user, assistant and tool turns, merged. */
export const toMessages = (prompt: Prompt.Prompt): Effect.Effect<ReadonlyArray<Message>, AiError.AiError> =>
  Effect.map(
    Effect.forEach(prompt.content, (message): Effect.Effect<Message | undefined, AiError.AiError> => {
      switch (message.role) {
        case "system":
          return Effect.succeed(undefined)
        case "user":
          return Effect.map(Effect.forEach(message.content, userBlock), (content) => ({ role: "user", content }))
        case "assistant":
          return Effect.succeed({
            role: "assistant",
            content: message.content.flatMap((p): Array<Block> => {
              if (p.type === "text") return p.text === "" ? [] : [{ type: "text", text: p.text }]
              if (p.type === "tool-call" && !p.providerExecuted) {
                return [{ type: "tool_use", id: p.id, name: p.name, input: p.params ?? {} }]
              }
              return []
            })
          })
        case "tool":
          return Effect.succeed({
            role: "user",
            content: message.content.flatMap((p): Array<Block> => {
              if (p.type !== "tool-result") return []
              // a search that loaded deferred tools answers with references to them, as the API wants
              const loads = p.isFailure ? [] : NativeDeferral.referencesOf(p)
              return [{
                type: "tool_result",
                tool_use_id: p.id,
                content: loads.length > 0
                  ? loads.map((name): ToolReference => ({ type: "tool_reference", tool_name: name }))
                  : toolResultText(p),
                ...(p.isFailure ? { is_error: true } : {})
              }]
            })
          })
      }
    }),
    merge
  )

const userBlock = (part: Prompt.UserMessagePart): Effect.Effect<Block, AiError.AiError> => {
  if (part.type === "text") return Effect.succeed({ type: "text", text: part.text })
  const type = part.mediaType.startsWith("image/") ? "image" : part.mediaType === "application/pdf" ? "document" : null
  if (type === null) return Effect.fail(unsupported(MODULE, `Messages takes images and PDFs, not ${part.mediaType}`))
  const source = fileSource(part)
  return Effect.succeed({
    type,
    source: source._tag === "url"
      ? { type: "url", url: source.url }
      : { type: "base64", media_type: part.mediaType, data: source.data }
  })
}

/** Drops empty messages and merges consecutive messages of one role: the API wants them alternating. */
const merge = (messages: ReadonlyArray<Message | undefined>): ReadonlyArray<Message> => {
  const out: Array<Message> = []
  for (const m of messages) {
    if (m === undefined || m.content.length === 0) continue
    const last = out.at(-1)
    if (last !== undefined && last.role === m.role) {
      out[out.length - 1] = { ...last, content: [...last.content, ...m.content] }
    } else out.push(m)
  }
  return out
}
