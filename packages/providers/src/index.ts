/**
 * tool-search providers: `effect/ai` language and embedding models over the providers' HTTP APIs.
 *
 * @since 0.2.0
 */

/** OpenAI Chat Completions, which OpenAI and every OpenAI-compatible server speak. */
export * as OpenAiLanguageModel from "./OpenAiLanguageModel.js"
/** Anthropic Messages, with prompt-cache breakpoints. */
export * as AnthropicLanguageModel from "./AnthropicLanguageModel.js"
