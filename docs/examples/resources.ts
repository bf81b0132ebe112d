// docs/resources.md: a model finds a policy through the levels — the table of contents (L1),
// sample_resources (L2), search_resources (L3) — and reads only the slice it needs (L4), with the
// token cost next to pushing the whole document. Runs in docs/examples.test.ts; the data is the
// demo's (`npm start` runs the same turn through the executor and the scripted model).
import { TokenCounter } from "@tool-search/agent"
import { DemoPolicies } from "@tool-search/cli"
import { Bm25f, Disclosure, ResourceCatalog, ToolCatalog, Unit, Visibility } from "@tool-search/core"
import { Console, Effect, Layer } from "effect"

const { handbookText, resources } = DemoPolicies

/** One tool call of the turn, with the tokens its result put into the context. */
export interface Step {
  readonly tool: string
  readonly params: Readonly<Record<string, unknown>>
  readonly result: unknown
  readonly tokens: number
}

/** What the turn cost and found. */
export interface Report {
  readonly answer: string
  readonly steps: ReadonlyArray<Step>
  /** The resource section of the system prompt (L1). */
  readonly tableOfContents: string
  readonly tableOfContentsTokens: number
  /** The resource tools' definitions, sent with each request. */
  readonly definitionTokens: number
  /** What the tool results put into the context (L2 to L4): what the model read. */
  readonly readTokens: number
  /** The whole document, had it been pushed into the prompt. */
  readonly documentTokens: number
}

/** What the model is asked, and the words it would use at each level. */
export type Question = DemoPolicies.Question

export const laptopReturn: Question = DemoPolicies.laptopReturn

/**
 * One turn of a scripted reader — what a capable model does with the resource tools: sample the
 * policies, search inside the one found, read the best passage, answer from it. Every call goes
 * through the unit's tools, as the executor would make it.
 */
export const findAndRead = (question: Question) =>
  Effect.gen(function*() {
    const counter = yield* TokenCounter.TokenCounter
    const steps: Array<Step> = []
    const call = <A>(tool: string, params: Readonly<Record<string, unknown>>) =>
      Effect.gen(function*() {
        const resolved = yield* Effect.orDie(Unit.resolve(tool))
        const output = yield* Effect.orDie(resolved.run(params, { toolCallId: `call-${steps.length}` }))
        steps.push({ tool, params, result: output.result, tokens: counter.count(JSON.stringify(output.result)) })
        return output.result as A
      })

    // L1: the system prompt names the attached policy and folds the rest
    const tableOfContents = yield* Unit.contents
    // L2: which policy covers returns?
    const sampled = yield* call<Unit.SampleAnswer>("sample_resources", { query: question.topic, max: 3 })
    const policy = sampled.resources.find((r) => r.kind === "policy")
    if (policy === undefined) return yield* Effect.die(new Error("no policy found"))
    // L3: where in it?
    const found = yield* call<Unit.PassagesAnswer>("search_resources", {
      query: question.keywords,
      uri: policy.uri,
      max: 3
    })
    const best = found.passages[0]
    if (best === undefined) return yield* Effect.die(new Error("no passage found"))
    // L4: read that passage only
    const slice = yield* call<Unit.ReadAnswer>("read_resource", {
      uri: best.uri,
      offset: best.offset,
      length: best.length
    })
    const prose = (slice.text ?? "").split("\n").filter((line) => !line.startsWith("#")).join(" ")
    const answer = prose.split(/(?<=\.)\s+/).filter((sentence) =>
      question.answerWords.some((w) => sentence.toLowerCase().includes(w))
    ).join(" ").trim()

    const resourceTools = (yield* Unit.tools).filter((t) => Disclosure.isResourceTool(t.name))
    return {
      answer,
      steps,
      tableOfContents,
      tableOfContentsTokens: counter.count(tableOfContents),
      definitionTokens: resourceTools.reduce((n, t) => n + counter.definition(t), 0),
      readTokens: steps.reduce((n, s) => n + s.tokens, 0),
      documentTokens: counter.count(handbookText)
    } satisfies Report
  })

/** The layers of the example: a BM25F catalog of the handbook, the wiki and a prompt; the attached policies. */
export const layer = Layer.mergeAll(
  ToolCatalog.layer,
  ResourceCatalog.layerWithResources(resources)
).pipe(
  Layer.provide(Bm25f.layer),
  Layer.orDie,
  Layer.merge(Visibility.layer({ strict: false, resources: ["policies"] })),
  Layer.merge(TokenCounter.o200k)
)

export const program = findAndRead(laptopReturn).pipe(
  Unit.provideWith({ resources: true }),
  Effect.provide(layer)
)

/** The figures of docs/resources.md: `npm run build && node dist/docs/examples/resources.js`. */
export const printReport = Effect.gen(function*() {
  const r = yield* program
  for (const s of r.steps) yield* Console.log(`${s.tool} ${JSON.stringify(s.params)}: ${s.tokens} tokens`)
  yield* Console.log(`answer: ${r.answer}`)
  yield* Console.log(
    `read ${r.readTokens} tokens (${
      (100 * r.readTokens / r.documentTokens).toFixed(1)
    }% of the document's ${r.documentTokens}); ` +
      `table of contents ${r.tableOfContentsTokens}, resource tool definitions ${r.definitionTokens}`
  )
})

if (process.argv[1]?.endsWith("resources.js") === true) Effect.runFork(printReport)
