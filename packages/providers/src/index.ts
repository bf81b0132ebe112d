/**
 * tool-search providers: `effect/ai` language and embedding models over the providers' HTTP APIs,
 * and the settings that choose them.
 *
 * @since 0.2.0
 */

/** The Chat Completions wire format and its mapping to `effect/ai`'s parts. */
export * as OpenAiChatCompletions from "./OpenAiChatCompletions.js"
/** OpenAI Chat Completions as a `LanguageModel`: OpenAI and every OpenAI-compatible server. */
export * as OpenAiLanguageModel from "./OpenAiLanguageModel.js"
/** The Anthropic Messages wire format and its mapping to `effect/ai`'s parts. */
export * as AnthropicMessages from "./AnthropicMessages.js"
/** Anthropic Messages as a `LanguageModel`, with prompt-cache breakpoints. */
export * as AnthropicLanguageModel from "./AnthropicLanguageModel.js"
/** The OpenAI embeddings API, which OpenAI and OpenAI-compatible servers (Ollama, vLLM, TEI) speak. */
export * as OpenAiEmbeddingModel from "./OpenAiEmbeddingModel.js"
/** The providers' settings: model, server, keys, budgets, embeddings. */
export * as ProviderConfig from "./ProviderConfig.js"
/** Language and embedding models built from the settings. */
export * as Providers from "./Providers.js"
