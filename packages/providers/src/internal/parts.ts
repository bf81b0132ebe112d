/**
 * What the provider modules share about `effect/ai`'s parts: tool results and files as wire
 * values, and a finished response replayed as stream parts (the providers answer `streamText`
 * with one buffered request).
 */
import { NativeDeferral } from "@tool-search/core"
import { Effect } from "effect"
import { AiError, type LanguageModel, Prompt, type Response, Tool } from "effect/ai"
import { Base64 } from "effect/encoding"

/** A tool result as the text the model reads: the tool's own text, or its value as JSON. */
export const toolResultText = (part: Prompt.ToolResultPart): string => {
  if (part.modelOutput !== undefined) return Prompt.toolModelOutputToText(part.modelOutput)
  return typeof part.result === "string" ? part.result : jsonText(part.result)
}

/** A value as JSON text; a value JSON cannot hold (a cycle, a bigint) as its plain text instead. */
export const jsonText = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? "null"
  } catch {
    return String(value)
  }
}

/** A file's data as a URL (`https:` or `data:`), or its base64 and media type. */
export const fileSource = (
  part: Prompt.FilePart
): { readonly _tag: "url"; readonly url: string } | { readonly _tag: "base64"; readonly data: string } => {
  if (part.data instanceof URL) return { _tag: "url", url: part.data.href }
  if (typeof part.data === "string") {
    return /^(https?|data):/i.test(part.data) ? { _tag: "url", url: part.data } : { _tag: "base64", data: part.data }
  }
  return { _tag: "base64", data: Base64.encode(part.data) }
}

/**
 * The user-defined tools of a request, with their JSON schemas and whether the request defers them
 * (`NativeDeferral.DeferLoading`; only a wire that can defer tools reads it); provider-defined
 * tools are refused.
 */
export const functionTools = (
  module: string,
  options: LanguageModel.ProviderOptions
): Effect.Effect<
  ReadonlyArray<{
    readonly name: string
    readonly description: string | undefined
    readonly parameters: unknown
    readonly deferred: boolean
  }>,
  AiError.AiError
> =>
  Effect.forEach(options.tools, (tool) =>
    Tool.isProviderDefined(tool)
      ? Effect.fail(unsupported(module, `the provider-defined tool '${tool.name}' belongs to another provider`))
      : Effect.succeed({
        name: tool.name,
        description: Tool.getDescription(tool),
        parameters: Tool.getJsonSchema(tool),
        deferred: NativeDeferral.isDeferred(tool)
      }))

/** An `AiError` for a prompt the wire format cannot carry. */
export const unsupported = (module: string, description: string): AiError.AiError =>
  AiError.make({ module, method: "generateText", reason: new AiError.InvalidUserInputError({ description }) })

/**
 * A finished response as stream parts: each text and reasoning part becomes start, one delta and
 * end; tool calls, metadata and the finish part pass through.
 */
export const toStreamParts = (parts: ReadonlyArray<Response.PartEncoded>): Array<Response.StreamPartEncoded> =>
  parts.flatMap((part, i): Array<Response.StreamPartEncoded> => {
    const id = String(i)
    switch (part.type) {
      case "text":
        return [{ type: "text-start", id }, { type: "text-delta", id, delta: part.text }, { type: "text-end", id }]
      case "reasoning":
        return [
          { type: "reasoning-start", id },
          { type: "reasoning-delta", id, delta: part.text },
          { type: "reasoning-end", id, ...(part.metadata === undefined ? {} : { metadata: part.metadata }) }
        ]
      case "tool-call":
      case "response-metadata":
      case "finish":
        return [part]
      default:
        return []
    }
  })
