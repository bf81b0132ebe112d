/**
 * A prompt from the raw input of a turn or an own loop's request. `Prompt.make` decodes raw messages
 * with the whole message schema (~100 µs for one short message); the common input — messages whose
 * content is one text — is built here with `effect/ai`'s own constructors instead, into the same
 * values (a property test compares the two). Anything else is decoded by `Prompt.make`.
 */
import { Predicate } from "effect"
import { Prompt } from "effect/ai"

/** `Prompt.make(input)`, without decoding when every message is a role and a text. */
export const make = (input: Prompt.RawInput): Prompt.Prompt => {
  if (typeof input === "string" || Prompt.isPrompt(input) || !Array.isArray(input)) return Prompt.make(input)
  const messages: Array<Prompt.Message> = []
  for (const raw of input as ReadonlyArray<unknown>) {
    const message = textMessage(raw)
    if (message === undefined) return Prompt.make(input)
    messages.push(message)
  }
  return Prompt.fromMessages(messages)
}

/** A `{ role, content }` message whose content is a string, built; otherwise `undefined`. */
const textMessage = (raw: unknown): Prompt.Message | undefined => {
  if (!Predicate.isObject(raw) || Array.isArray(raw) || Object.keys(raw).length !== 2) return undefined
  const { content, role } = raw as { readonly role?: unknown; readonly content?: unknown }
  if (typeof content !== "string") return undefined
  switch (role) {
    case "system":
      return Prompt.makeMessage("system", { content })
    case "user":
      return Prompt.makeMessage("user", { content: [Prompt.makePart("text", { text: content })] })
    case "assistant":
      return Prompt.makeMessage("assistant", { content: [Prompt.makePart("text", { text: content })] })
    default:
      return undefined
  }
}
