/**
 * The providers' settings, declared once as a table of `Setting`s like core's `ToolSearchConfig`:
 * which language model the agent talks to (`TOOL_SEARCH_MODEL=openai:<model>`,
 * `anthropic:<model>` or `openai-compatible:<model>` with `TOOL_SEARCH_MODEL_URL`), which
 * embedding model semantic search uses (`TOOL_SEARCH_EMBEDDINGS`), their servers, keys, budgets,
 * timeouts and retries. The keys are read from the variables every tool reads (`OPENAI_API_KEY`,
 * `ANTHROPIC_API_KEY`) and stay `Redacted`: they never appear in logs, errors or `toString`.
 *
 * `Providers` turns these settings into layers.
 *
 * @since 0.2.0
 */
import { Setting } from "@tool-search/core"
import { Config, Option, type Redacted, Result, Schema } from "effect"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * The language model providers.
 *
 * @since 0.2.0
 * @category models
 */
export const modelProviders = ["openai", "anthropic", "openai-compatible"] as const

/**
 * A language model provider.
 *
 * @since 0.2.0
 * @category models
 */
export type ModelProvider = typeof modelProviders[number]

/**
 * The embedding model providers.
 *
 * @since 0.2.0
 * @category models
 */
export const embeddingProviders = ["openai", "openai-compatible"] as const

/**
 * An embedding model provider.
 *
 * @since 0.2.0
 * @category models
 */
export type EmbeddingProvider = typeof embeddingProviders[number]

/**
 * A model named as `<provider>:<model>`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Spec<P extends string> {
  readonly provider: P
  readonly model: string
}

// -----------------------------------------------------------------------------
// Schemas
// -----------------------------------------------------------------------------

/**
 * `<provider>:<model>`, split at the first colon (model names may hold colons: `qwen3:8b`).
 *
 * @since 0.2.0
 * @category schemas
 */
export const SpecFromString = <const P extends ReadonlyArray<string>>(
  providers: P
): Schema.Codec<Spec<P[number]>, string> =>
  Setting.fromString<Spec<P[number]>>(
    Schema.Struct({ provider: Schema.Literals(providers), model: Schema.String }),
    (raw) => {
      const text = raw.trim()
      const colon = text.indexOf(":")
      const provider = colon < 0 ? text : text.slice(0, colon)
      const model = colon < 0 ? "" : text.slice(colon + 1).trim()
      if (!providers.includes(provider)) {
        return Result.fail(`Expected ${providers.map((p) => `${p}:<model>`).join(", ")}; got "${text}"`)
      }
      if (model === "") return Result.fail(`Expected a model name after "${provider}:"`)
      return Result.succeed({ provider, model })
    },
    (spec) => `${spec.provider}:${spec.model}`
  )

/**
 * An `http:` or `https:` URL, without a trailing slash.
 *
 * @since 0.2.0
 * @category schemas
 */
export const BaseUrl: Schema.Codec<string, string> = Setting.fromString<string>(
  Schema.String,
  (raw) => {
    const text = raw.trim().replace(/\/+$/, "")
    try {
      const url = new URL(text)
      return url.protocol === "http:" || url.protocol === "https:"
        ? Result.succeed(text)
        : Result.fail(`Expected an http(s) URL; got "${text}"`)
    } catch {
      return Result.fail(`Expected an http(s) URL; got "${text}"`)
    }
  },
  (url) => url
)

const Secret: Schema.ConstraintCodec<Redacted.Redacted<string>, unknown> = Schema.Redacted(Schema.String)

/** A setting that may stay unset: its value is `undefined` then. */
const optional = <A>(
  key: string,
  options: {
    readonly schema: Schema.ConstraintCodec<A, unknown>
    readonly values: string
    readonly defaultText: string
    readonly description: string
  }
): Setting.Setting<A | undefined> =>
  Setting.make<A | undefined>(key, {
    ...options,
    schema: options.schema,
    default: undefined
  })

/**
 * A secret read from an environment variable that other tools share (`OPENAI_API_KEY`), so it
 * does not take the `TOOL_SEARCH_` prefix.
 */
const sharedSecret = (key: string, env: string, description: string): Setting.Setting<
  Redacted.Redacted<string> | undefined
> => {
  const option = Config.option(Config.schema(Secret, env))
  return {
    ...optional(key, { schema: Secret, values: "secret", defaultText: "(none)", description }),
    env,
    option,
    config: Config.map(option, Option.getOrUndefined)
  }
}

// -----------------------------------------------------------------------------
// The table
// -----------------------------------------------------------------------------

/**
 * Every provider setting: its variable, flag, values, default and description.
 *
 * @since 0.2.0
 * @category settings
 */
export const settings = {
  model: optional("model", {
    schema: SpecFromString(modelProviders),
    values: "`openai:<model>` | `anthropic:<model>` | `openai-compatible:<model>`",
    defaultText: "(none: `chat` and `run` say how to set one)",
    description: "the language model the agent talks to"
  }),
  modelUrl: optional("modelUrl", {
    schema: BaseUrl,
    values: "http(s) URL of the API root",
    defaultText: "the provider's (required for `openai-compatible`)",
    description: "the model server, e.g. `http://localhost:11434/v1` (Ollama) or `https://openrouter.ai/api/v1`"
  }),
  modelKey: optional("modelKey", {
    schema: Secret,
    values: "secret",
    defaultText: "(none)",
    description: "the bearer key of an `openai-compatible` server (OpenRouter, a hosted vLLM)"
  }),
  openaiApiKey: sharedSecret(
    "openaiApiKey",
    "OPENAI_API_KEY",
    "the OpenAI key, for `openai:` models and embeddings (no command takes keys as flags)"
  ),
  anthropicApiKey: sharedSecret(
    "anthropicApiKey",
    "ANTHROPIC_API_KEY",
    "the Anthropic key, for `anthropic:` models (no command takes keys as flags)"
  ),
  maxOutputTokens: optional("maxOutputTokens", {
    schema: Setting.Int(1),
    values: "integer ≥ 1",
    defaultText: "4096 for `anthropic`, the server's own otherwise",
    description: "the token budget of each answer"
  }),
  modelTimeout: Setting.make("modelTimeout", {
    schema: Setting.Int(1),
    default: 120,
    values: "seconds ≥ 1",
    description: "how long one model request may take before it fails"
  }),
  modelRetries: Setting.make("modelRetries", {
    schema: Setting.Int(0, 10),
    default: 2,
    values: "integer 0–10",
    description:
      "retries of a model or embeddings request that failed for a passing reason (408, 409, 429, 500, 502–504, 529, network); 0 disables"
  }),
  promptCache: Setting.make("promptCache", {
    schema: Setting.Boolean,
    default: true,
    values: "boolean",
    description: "mark Anthropic cache breakpoints (system prompt, last message); OpenAI caches on its own"
  }),
  embeddings: optional("embeddings", {
    schema: SpecFromString(embeddingProviders),
    values: "`openai:<model>` | `openai-compatible:<model>`",
    defaultText: "(none: the offline model)",
    description: "the embedding model of the `semantic` and `hybrid` strategies"
  }),
  embeddingsUrl: optional("embeddingsUrl", {
    schema: BaseUrl,
    values: "http(s) URL of the API root",
    defaultText: "OpenAI's (required for `openai-compatible`)",
    description: "the embeddings server, e.g. `http://localhost:11434/v1` (Ollama) or a TEI server"
  }),
  embeddingsKey: optional("embeddingsKey", {
    schema: Secret,
    values: "secret",
    defaultText: "(none)",
    description: "the bearer key of an `openai-compatible` embeddings server"
  }),
  embeddingsDimensions: optional("embeddingsDimensions", {
    schema: Setting.Int(1),
    values: "integer ≥ 1",
    defaultText: "the model's",
    description: "shorter vectors, for models that offer them (`text-embedding-3-*`)"
  })
}

/**
 * The provider settings, typed.
 *
 * @since 0.2.0
 * @category models
 */
export type Settings = Setting.Values<typeof settings>

/**
 * Every provider setting from the `ConfigProvider` in context; unset ones are `undefined`.
 *
 * @since 0.2.0
 * @category settings
 */
export const config: Config.Config<Settings> = Setting.values(settings)
