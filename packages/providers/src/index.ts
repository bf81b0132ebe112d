/**
 * tool-search providers: `effect/ai` language and embedding models over the providers' HTTP APIs.
 *
 * @since 0.2.0
 */

/** OpenAI Chat Completions, which OpenAI and every OpenAI-compatible server speak. */
export * as OpenAiLanguageModel from "./OpenAiLanguageModel.js"
/** Anthropic Messages, with prompt-cache breakpoints. */
export * as AnthropicLanguageModel from "./AnthropicLanguageModel.js"
/** The OpenAI embeddings API, which OpenAI and OpenAI-compatible servers (Ollama, vLLM, TEI) speak. */
export * as OpenAiEmbeddingModel from "./OpenAiEmbeddingModel.js"
/** The providers' settings: model, server, keys, budgets, embeddings. */
export * as ProviderConfig from "./ProviderConfig.js"
/** Language and embedding models built from the settings. */
export * as Providers from "./Providers.js"
