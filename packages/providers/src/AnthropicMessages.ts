/**
 * The Anthropic Messages wire format (`POST /v1/messages`) and its mapping to and from
 * `effect/ai`'s parts:
 *
 * - system messages → the top-level `system` blocks (Messages has no system role in `messages`);
 * - user text, images and PDFs → `user` content blocks; the assistant's text and tool calls →
 *   `text` and `tool_use` blocks; tool results → `tool_result` blocks (with `is_error`) in a
 *   `user` message; consecutive messages of one role are merged, as the API wants them to
 *   alternate, and empty ones dropped;
 * - tools → `tools: [{ name, description, input_schema }]`, with `defer_loading: true` for a tool
 *   annotated `NativeDeferral.DeferLoading` (in the request, out of the model's context until
 *   referenced); a tool result whose options carry `NativeDeferral.references` is sent as
 *   `tool_reference` blocks, which load those tools (client-side tool search);
 * - `toolChoice` → `tool_choice`: `{ type: "auto" | "none" | "any" }` or `{ type: "tool", name }`;
 *   a `oneOf` is already a filtered tool list, with `auto` or `any`;
 * - the answer's `text`, `tool_use` and `thinking` blocks → text, tool calls and reasoning; other
 *   block types (server tools) are skipped, a known block of the wrong shape is an error;
 * - `usage` → input tokens: `input_tokens` uncached, `cache_read_input_tokens` as `cacheRead`,
 *   `cache_creation_input_tokens` as `cacheWrite`, their sum as the total.
 *
 * Anthropic caches a prefix only up to a `cache_control` breakpoint. With `promptCache` (the
 * default) the request carries two: on the last system block (the tools and the system prompt,
 * which the executor keeps identical through a turn) and on the last block of the conversation,
 * so each request of a turn reads what the previous one wrote.
 *
 * @since 0.2.0
 */
import { Effect, Schema } from "effect"
import type { AiError, LanguageModel, Response } from "effect/ai"
import { breakpoint, toMessages, withBreakpointAtEnd } from "./internal/anthropicPrompt.js"
import { functionTools } from "./internal/parts.js"

/**
 * The API version sent as `anthropic-version`.
 *
 * @since 0.2.0
 * @category constants
 */
export const apiVersion = "2023-06-01"

/**
 * `max_tokens` when none is configured.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultMaxOutputTokens = 4096

const MODULE = "Anthropic"

/**
 * What the request needs besides the prompt.
 *
 * @since 0.2.0
 * @category models
 */
export interface RequestSettings {
  /** The model (`claude-sonnet-4-5`). */
  readonly model: string
  /** The answer's token budget (`max_tokens`, required by the API; default 4096). */
  readonly maxOutputTokens?: number | undefined
  /** Mark cache breakpoints on the system prompt and the conversation (default true). */
  readonly promptCache?: boolean
}

// -----------------------------------------------------------------------------
// Wire: request
// -----------------------------------------------------------------------------

/**
 * A cache breakpoint.
 *
 * @since 0.2.0
 * @category wire
 */
export interface CacheControl {
  readonly cache_control?: { readonly type: "ephemeral" }
}

/**
 * A content block as sent.
 *
 * @since 0.2.0
 * @category wire
 */
export type Block =
  | { readonly type: "text"; readonly text: string } & CacheControl
  | {
    readonly type: "image" | "document"
    readonly source:
      | { readonly type: "base64"; readonly media_type: string; readonly data: string }
      | { readonly type: "url"; readonly url: string }
  } & CacheControl
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: unknown } & CacheControl
  | {
    readonly type: "tool_result"
    readonly tool_use_id: string
    /** The result's text, or the deferred tools it loads. */
    readonly content: string | ReadonlyArray<ToolReference>
    readonly is_error?: boolean
  } & CacheControl

/**
 * A reference to a deferred tool in a tool result: the API loads that tool's definition.
 *
 * @since 0.2.0
 * @category wire
 */
export interface ToolReference {
  readonly type: "tool_reference"
  readonly tool_name: string
}

/**
 * A tool as sent.
 *
 * @since 0.2.0
 * @category wire
 */
export interface WireTool {
  readonly name: string
  readonly description?: string
  readonly input_schema: unknown
  /** Out of the model's context until a `tool_reference` loads it. */
  readonly defer_loading?: boolean
}

/**
 * A message as sent.
 *
 * @since 0.2.0
 * @category wire
 */
export interface Message {
  readonly role: "user" | "assistant"
  readonly content: ReadonlyArray<Block>
}

/**
 * `tool_choice` as sent.
 *
 * @since 0.2.0
 * @category wire
 */
export type ToolChoice =
  | { readonly type: "auto" | "any" | "none" }
  | { readonly type: "tool"; readonly name: string }

/**
 * The request body.
 *
 * @since 0.2.0
 * @category wire
 */
export interface MessagesRequest {
  readonly model: string
  readonly max_tokens: number
  readonly system?: ReadonlyArray<{ readonly type: "text"; readonly text: string } & CacheControl>
  readonly messages: ReadonlyArray<Message>
  readonly tools?: ReadonlyArray<WireTool>
  readonly tool_choice?: ToolChoice
}

// -----------------------------------------------------------------------------
// Wire: response
// -----------------------------------------------------------------------------

const KNOWN_BLOCKS: ReadonlySet<string> = new Set(["text", "tool_use", "thinking", "redacted_thinking"])
const NullableInt = Schema.optional(Schema.NullOr(Schema.Int))

/**
 * The response body, as far as this provider reads it. Blocks of other types (server tools) are
 * accepted and skipped; a known block with the wrong shape is an error.
 *
 * @since 0.2.0
 * @category wire
 */
export const MessagesResponse = Schema.Struct({
  id: Schema.optional(Schema.String),
  model: Schema.optional(Schema.String),
  content: Schema.Array(Schema.Union([
    Schema.Struct({ type: Schema.Literal("text"), text: Schema.String }),
    Schema.Struct({ type: Schema.Literal("tool_use"), id: Schema.String, name: Schema.String, input: Schema.Unknown }),
    Schema.Struct({
      type: Schema.Literal("thinking"),
      thinking: Schema.String,
      signature: Schema.optional(Schema.String)
    }),
    Schema.Struct({ type: Schema.Literal("redacted_thinking"), data: Schema.String }),
    Schema.Struct({
      type: Schema.String.check(Schema.makeFilter((t) => !KNOWN_BLOCKS.has(t) || `a '${t}' block of unexpected shape`))
    })
  ])),
  stop_reason: Schema.optional(Schema.NullOr(Schema.String)),
  usage: Schema.optional(Schema.NullOr(Schema.Struct({
    input_tokens: NullableInt,
    output_tokens: NullableInt,
    cache_creation_input_tokens: NullableInt,
    cache_read_input_tokens: NullableInt
  })))
})

/**
 * The decoded response body.
 *
 * @since 0.2.0
 * @category wire
 */
export type MessagesResponse = typeof MessagesResponse.Type

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
): Effect.Effect<MessagesRequest, AiError.AiError> =>
  Effect.gen(function*() {
    const cache = settings.promptCache ?? true
    const systemText = options.prompt.content.flatMap((m) => m.role === "system" ? [m.content] : [])
    const messages = yield* toMessages(options.prompt)
    const tools = yield* functionTools(MODULE, options)
    const system = systemText.map((text, i) =>
      cache && i === systemText.length - 1
        ? { type: "text" as const, text, ...breakpoint }
        : { type: "text" as const, text }
    )
    return {
      model: settings.model,
      max_tokens: settings.maxOutputTokens ?? defaultMaxOutputTokens,
      ...(system.length === 0 ? {} : { system }),
      messages: cache ? withBreakpointAtEnd(messages) : messages,
      ...(tools.length === 0 ? {} : {
        tools: tools.map((t): WireTool => ({
          name: t.name,
          ...(t.description === undefined ? {} : { description: t.description }),
          input_schema: t.parameters,
          ...(t.deferred ? { defer_loading: true } : {})
        })),
        tool_choice: toToolChoice(options.toolChoice)
      })
    }
  })

/**
 * `tool_choice` for `effect/ai`'s `toolChoice`.
 *
 * @since 0.2.0
 * @category mapping
 */
export const toToolChoice = (choice: LanguageModel.ToolChoice<string>): ToolChoice => {
  if (choice === "auto" || choice === "none") return { type: choice }
  if (choice === "required") return { type: "any" }
  if ("tool" in choice) return { type: "tool", name: choice.tool }
  // `oneOf`: effect/ai has already left only those tools in the request
  return { type: choice.mode === "required" ? "any" : "auto" }
}

/**
 * The response parts for a decoded response body.
 *
 * @since 0.2.0
 * @category mapping
 */
export const fromResponse = (response: MessagesResponse): Array<Response.PartEncoded> => {
  const parts: Array<Response.PartEncoded> = [{
    type: "response-metadata",
    ...(response.id === undefined ? {} : { id: response.id }),
    ...(response.model === undefined ? {} : { modelId: response.model })
  }]
  for (const block of response.content) {
    if (block.type === "text" && "text" in block) parts.push({ type: "text", text: block.text })
    else if (block.type === "tool_use" && "input" in block) {
      parts.push({ type: "tool-call", id: block.id, name: block.name, params: block.input })
    } else if (block.type === "thinking" && "thinking" in block) {
      parts.push({
        type: "reasoning",
        text: block.thinking,
        ...(block.signature === undefined ? {} : { metadata: { anthropic: { signature: block.signature } } })
      })
    }
  }
  const usage = response.usage
  const uncached = usage?.input_tokens ?? undefined
  const read = usage?.cache_read_input_tokens ?? undefined
  const written = usage?.cache_creation_input_tokens ?? undefined
  parts.push({
    type: "finish",
    reason: finishReason(response.stop_reason ?? undefined),
    usage: {
      inputTokens: {
        uncached,
        cacheRead: read,
        cacheWrite: written,
        total: uncached === undefined ? undefined : uncached + (read ?? 0) + (written ?? 0)
      },
      outputTokens: { total: usage?.output_tokens ?? undefined, text: undefined, reasoning: undefined }
    }
  })
  return parts
}

const finishReason = (reason: string | undefined): Response.FinishReason => {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "stop"
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length"
    case "tool_use":
      return "tool-calls"
    case "pause_turn":
      return "pause"
    case "refusal":
      return "content-filter"
    case undefined:
      return "unknown"
    default:
      return "other"
  }
}
