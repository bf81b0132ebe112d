/**
 * The Chat Completions wire format (`POST /chat/completions`) and its mapping to and from
 * `effect/ai`'s parts — the one format OpenAI and every OpenAI-compatible server (Ollama, vLLM,
 * LM Studio, OpenRouter, llama.cpp, TGI) share:
 *
 * - prompt → `messages`: the system prompt as a `system` message, user text (and images), the
 *   assistant's text and `tool_calls` (arguments as a JSON string), each tool result as a `tool`
 *   message whose content is the result's text or JSON;
 * - tools → `tools: [{ type: "function", function: { name, description, parameters } }]`;
 * - `toolChoice` → `tool_choice`: `auto`, `none`, `required`, `{ type: "function", function:
 *   { name } }`; a `oneOf` is already a filtered tool list, with `auto` or `required`;
 * - `choices[0].message` → text, reasoning (`reasoning_content` or `reasoning`, as compatible
 *   servers send it) and tool calls, whose arguments are parsed (arguments that are not JSON reach
 *   the executor as the raw string, so the tool's validation tells the model);
 * - `usage` → input tokens with `prompt_tokens_details.cached_tokens` as `cacheRead` (OpenAI caches
 *   prefixes of 1024 tokens and more on its own), output tokens with reasoning tokens.
 *
 * The response schema ignores fields it does not read; a field it reads with the wrong type is an
 * error. `OpenAiLanguageModel` sends what this module builds.
 *
 * @since 0.2.0
 */
import { Effect, Schema } from "effect"
import { type AiError, IdGenerator, type LanguageModel, type Prompt, type Response } from "effect/ai"
import { fileSource, functionTools, jsonText, toolResultText, unsupported } from "./internal/parts.js"

/**
 * What the request needs besides the prompt.
 *
 * @since 0.2.0
 * @category models
 */
export interface RequestSettings {
  /** The model name the server knows. */
  readonly model: string
  /** The answer's token budget; absent: the server's default. */
  readonly maxOutputTokens?: number | undefined
  /** How the budget is named: OpenAI's `max_completion_tokens` or the older `max_tokens`. */
  readonly maxTokensField?: "max_completion_tokens" | "max_tokens"
  /** Names the provider in errors (default `OpenAI`). */
  readonly module?: string
}

// -----------------------------------------------------------------------------
// Wire: request
// -----------------------------------------------------------------------------

/**
 * A Chat Completions message as sent.
 *
 * @since 0.2.0
 * @category wire
 */
export type ChatMessage =
  | { readonly role: "system"; readonly content: string }
  | { readonly role: "user"; readonly content: string | ReadonlyArray<UserContent> }
  | {
    readonly role: "assistant"
    readonly content: string | null
    readonly tool_calls?: ReadonlyArray<WireToolCall>
  }
  | { readonly role: "tool"; readonly tool_call_id: string; readonly content: string }

/**
 * A part of a user message.
 *
 * @since 0.2.0
 * @category wire
 */
export type UserContent =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image_url"; readonly image_url: { readonly url: string } }

/**
 * A tool call as the assistant made it.
 *
 * @since 0.2.0
 * @category wire
 */
export interface WireToolCall {
  readonly id: string
  readonly type: "function"
  readonly function: { readonly name: string; readonly arguments: string }
}

/**
 * `tool_choice` as sent.
 *
 * @since 0.2.0
 * @category wire
 */
export type ToolChoice =
  | "auto"
  | "none"
  | "required"
  | { readonly type: "function"; readonly function: { readonly name: string } }

/**
 * The request body.
 *
 * @since 0.2.0
 * @category wire
 */
export interface ChatRequest {
  readonly model: string
  readonly messages: ReadonlyArray<ChatMessage>
  readonly tools?: ReadonlyArray<{
    readonly type: "function"
    readonly function: { readonly name: string; readonly description?: string; readonly parameters: unknown }
  }>
  readonly tool_choice?: ToolChoice
  readonly max_completion_tokens?: number
  readonly max_tokens?: number
}

// -----------------------------------------------------------------------------
// Wire: response
// -----------------------------------------------------------------------------

const NullableString = Schema.optional(Schema.NullOr(Schema.String))
const NullableInt = Schema.optional(Schema.NullOr(Schema.Int))

/**
 * The response body, as far as this provider reads it.
 *
 * @since 0.2.0
 * @category wire
 */
export const ChatCompletion = Schema.Struct({
  id: NullableString,
  model: NullableString,
  created: Schema.optional(Schema.NullOr(Schema.Finite)),
  choices: Schema.Array(Schema.Struct({
    message: Schema.Struct({
      content: NullableString,
      refusal: NullableString,
      reasoning_content: NullableString,
      reasoning: NullableString,
      tool_calls: Schema.optional(Schema.NullOr(Schema.Array(Schema.Struct({
        id: NullableString,
        function: Schema.Struct({ name: Schema.String, arguments: NullableString })
      }))))
    }),
    finish_reason: NullableString
  })),
  usage: Schema.optional(Schema.NullOr(Schema.Struct({
    prompt_tokens: NullableInt,
    completion_tokens: NullableInt,
    prompt_tokens_details: Schema.optional(Schema.NullOr(Schema.Struct({ cached_tokens: NullableInt }))),
    completion_tokens_details: Schema.optional(Schema.NullOr(Schema.Struct({ reasoning_tokens: NullableInt })))
  })))
})

/**
 * The decoded response body.
 *
 * @since 0.2.0
 * @category wire
 */
export type ChatCompletion = typeof ChatCompletion.Type

// -----------------------------------------------------------------------------
// Mapping
// -----------------------------------------------------------------------------

/**
 * The request body for `effect/ai`'s provider options.
 *
 * @since 0.2.0
 * @category mapping
 */
export const toRequest = (
  options: LanguageModel.ProviderOptions,
  settings: RequestSettings
): Effect.Effect<ChatRequest, AiError.AiError> =>
  Effect.gen(function*() {
    const module = settings.module ?? "OpenAI"
    const messages = yield* toMessages(module, options.prompt)
    const tools = yield* functionTools(module, options)
    const budget = settings.maxOutputTokens === undefined
      ? {}
      : { [settings.maxTokensField ?? "max_completion_tokens"]: settings.maxOutputTokens }
    if (tools.length === 0) return { model: settings.model, messages, ...budget }
    return {
      model: settings.model,
      messages,
      tools: tools.map((t) => ({
        type: "function" as const,
        function: {
          name: t.name,
          ...(t.description === undefined ? {} : { description: t.description }),
          parameters: t.parameters
        }
      })),
      tool_choice: toToolChoice(options.toolChoice),
      ...budget
    }
  })

/**
 * `tool_choice` for `effect/ai`'s `toolChoice`.
 *
 * @since 0.2.0
 * @category mapping
 */
export const toToolChoice = (choice: LanguageModel.ToolChoice<string>): ToolChoice => {
  if (typeof choice === "string") return choice
  if ("tool" in choice) return { type: "function", function: { name: choice.tool } }
  // `oneOf`: effect/ai has already left only those tools in the request
  return choice.mode === "required" ? "required" : "auto"
}

const toMessages = (module: string, prompt: Prompt.Prompt) =>
  Effect.forEach(prompt.content, (message): Effect.Effect<ReadonlyArray<ChatMessage>, AiError.AiError> => {
    switch (message.role) {
      case "system":
        return Effect.succeed([{ role: "system", content: message.content }])
      case "user":
        return Effect.map(
          Effect.forEach(message.content, (part): Effect.Effect<UserContent, AiError.AiError> => {
            if (part.type === "text") return Effect.succeed({ type: "text", text: part.text })
            if (!part.mediaType.startsWith("image/")) {
              return Effect.fail(unsupported(module, `Chat Completions takes images, not ${part.mediaType} files`))
            }
            const source = fileSource(part)
            const url = source._tag === "url" ? source.url : `data:${part.mediaType};base64,${source.data}`
            return Effect.succeed({ type: "image_url", image_url: { url } })
          }),
          (content) => [{
            role: "user",
            content: content.every((c) => c.type === "text") ? content.map((c) => c.text).join("\n") : content
          }]
        )
      case "assistant": {
        const text = message.content.flatMap((p) => p.type === "text" ? [p.text] : []).join("")
        const calls = message.content.flatMap((p): Array<WireToolCall> =>
          p.type === "tool-call" && !p.providerExecuted
            ? [{ id: p.id, type: "function", function: { name: p.name, arguments: jsonText(p.params ?? {}) } }]
            : []
        )
        if (text === "" && calls.length === 0) return Effect.succeed([])
        return Effect.succeed([{
          role: "assistant",
          content: text === "" ? null : text,
          ...(calls.length === 0 ? {} : { tool_calls: calls })
        }])
      }
      case "tool":
        return Effect.succeed(
          message.content.flatMap((p): Array<ChatMessage> =>
            p.type === "tool-result" ? [{ role: "tool", tool_call_id: p.id, content: toolResultText(p) }] : []
          )
        )
    }
  }).pipe(Effect.map((groups) => groups.flat()))

/**
 * The response parts for a decoded response body. Tool calls without an id get one from the
 * `IdGenerator` (some compatible servers leave it out).
 *
 * @since 0.2.0
 * @category mapping
 */
export const fromResponse = (
  response: ChatCompletion
): Effect.Effect<Array<Response.PartEncoded>, never, IdGenerator.IdGenerator> =>
  Effect.gen(function*() {
    const ids = yield* IdGenerator.IdGenerator
    const parts: Array<Response.PartEncoded> = [{
      type: "response-metadata",
      ...(response.id == null ? {} : { id: response.id }),
      ...(response.model == null ? {} : { modelId: response.model }),
      ...(response.created == null ? {} : { timestamp: new Date(response.created * 1000).toISOString() })
    }]
    const choice = response.choices[0]
    const message = choice?.message
    const reasoning = message?.reasoning_content ?? message?.reasoning
    if (reasoning != null && reasoning !== "") parts.push({ type: "reasoning", text: reasoning })
    const text = message?.content ?? message?.refusal
    if (text != null && text !== "") parts.push({ type: "text", text })
    for (const call of message?.tool_calls ?? []) {
      parts.push({
        type: "tool-call",
        id: call.id == null || call.id === "" ? yield* ids.generateId() : call.id,
        name: call.function.name,
        params: parseArguments(call.function.arguments)
      })
    }
    const usage = response.usage
    const input = usage?.prompt_tokens ?? undefined
    const cached = usage?.prompt_tokens_details?.cached_tokens ?? undefined
    const output = usage?.completion_tokens ?? undefined
    const reasoningTokens = usage?.completion_tokens_details?.reasoning_tokens ?? undefined
    parts.push({
      type: "finish",
      reason: finishReason(choice?.finish_reason ?? undefined),
      usage: {
        inputTokens: {
          total: input,
          cacheRead: cached,
          uncached: input !== undefined && cached !== undefined ? input - cached : input,
          cacheWrite: undefined
        },
        outputTokens: {
          total: output,
          reasoning: reasoningTokens,
          text: output !== undefined && reasoningTokens !== undefined ? output - reasoningTokens : undefined
        }
      }
    })
    return parts
  })

/** Arguments are a JSON string on the wire; text that is not JSON stays a string for the tool to refuse. */
const parseArguments = (text: string | null | undefined): unknown => {
  if (text == null || text.trim() === "") return {}
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const finishReason = (reason: string | undefined): Response.FinishReason => {
  switch (reason) {
    case "stop":
      return "stop"
    case "length":
      return "length"
    case "tool_calls":
    case "function_call":
      return "tool-calls"
    case "content_filter":
      return "content-filter"
    case undefined:
      return "unknown"
    default:
      return "other"
  }
}
