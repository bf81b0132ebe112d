/**
 * The resource tools as `ModelTool`s: each decodes its input with `Schema`, runs the operation of
 * the unit in the context of the call and answers with JSON, or with a failure message naming the
 * call that fixes the problem. Nothing here fails: every error becomes a tool result for the model.
 *
 * @internal
 */
import { Effect, Schema } from "effect"
import * as Disclosure from "../../Disclosure.js"
import type * as ResourceDisclosure from "../../ResourceDisclosure.js"
import * as Deferral from "../deferral.js"
import type * as Unit from "./model.js"
import * as ResourceTools from "./resourceMessages.js"
import type { ResourceSide } from "./resources.js"
import { UnitService } from "./service.js"

type ModelTool = Unit.ModelTool
type MetaOutput = Unit.Output

/** The four tools. */
export interface Bound {
  readonly sample: ModelTool
  readonly search: ModelTool
  readonly read: ModelTool
  readonly getPrompt: ModelTool
}

const failure = (message: string): MetaOutput => ({ isFailure: true, result: message })

/** Drops `null` and `undefined` fields: providers send `null` for an optional field left out. */
const present = <A extends object>(input: A): { [K in keyof A]?: Exclude<A[K], null | undefined> } =>
  Object.fromEntries(Object.entries(input).filter(([, v]) => v !== null && v !== undefined)) as {
    [K in keyof A]?: Exclude<A[K], null | undefined>
  }

/** A tool whose parameters decode with `schema` before `run`. */
const tool = <S extends Schema.Decoder<unknown>>(
  name: string,
  description: string,
  parameters: ModelTool["parameters"],
  schema: S,
  run: (resources: ResourceSide, input: S["Type"]) => Effect.Effect<MetaOutput, { readonly message: string }>
): ModelTool => {
  const decode = Schema.decodeUnknownEffect(schema)
  return {
    name,
    description,
    parameters,
    kind: "meta",
    run: (params) =>
      decode(params).pipe(
        Effect.matchEffect({
          onFailure: (error) => Effect.succeed(failure(`${ResourceTools.usage[name]}: ${firstLine(error.message)}`)),
          onSuccess: (input) =>
            UnitService.use((unit) =>
              unit.resources === undefined
                ? Effect.succeed(failure(`${name} is not offered here`))
                : run(unit.resources, input).pipe(Effect.catch((e) => Effect.succeed(failure(e.message))))
            )
        })
      )
  }
}

const firstLine = (text: string): string => text.split("\n").slice(0, 3).join(" ").slice(0, 300)

/** The four tools, described with `options`. */
export const make = (options: ResourceDisclosure.Options): Bound => {
  const limit = options.maxResultsLimit
  const defaultMax = Math.min(options.defaultMaxResults, limit)
  // models send numbers, numeric strings, or nothing: clamped here, never rejected
  const max = (requested: unknown): { readonly max?: number } =>
    requested === null || requested === undefined ? {} : { max: Deferral.clampMaxResults(requested, options) }
  return {
    sample: tool(
      Disclosure.toolNames.sampleResources,
      ResourceTools.sampleDescription(limit, defaultMax, options.snippetLength),
      ResourceTools.sampleParameters(limit, defaultMax),
      ResourceTools.SampleInput,
      (resources, input) =>
        Effect.map(
          resources.sample({ ...present({ query: input.query, uri: input.uri }), ...max(input.max) }),
          (answer) => ({
            isFailure: false,
            result: answer,
            found: answer.resources.map((r) => r.uri)
          })
        )
    ),
    search: tool(
      Disclosure.toolNames.searchResources,
      ResourceTools.searchDescription(limit, defaultMax),
      ResourceTools.searchParameters(limit, defaultMax),
      ResourceTools.SearchInput,
      (resources, input) =>
        Effect.map(
          resources.search({ ...present({ uri: input.uri }), query: input.query, ...max(input.max) }),
          (answer) => ({
            isFailure: false,
            result: answer,
            found: [...new Set(answer.passages.map((p) => p.uri))]
          })
        )
    ),
    read: tool(
      Disclosure.toolNames.readResource,
      ResourceTools.readDescription(options.defaultReadLength, options.maxReadLength),
      ResourceTools.readParameters(options.defaultReadLength, options.maxReadLength),
      ResourceTools.ReadInput,
      (resources, input) =>
        Effect.map(resources.read({ ...present(input), uri: input.uri }), (answer) => ({
          isFailure: false,
          result: answer
        }))
    ),
    getPrompt: tool(
      Disclosure.toolNames.getPrompt,
      ResourceTools.getPromptDescription,
      ResourceTools.getPromptParameters,
      ResourceTools.GetPromptInput,
      (resources, input) =>
        Effect.map(resources.getPrompt({ ...present(input), name: input.name }), (answer) => ({
          isFailure: false,
          result: answer
        }))
    )
  }
}
