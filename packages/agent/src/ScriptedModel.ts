/**
 * A scripted `LanguageModel` for tests, demos and benchmarks: deterministic, offline, and driven by
 * what is in the prompt — so it behaves the same in any process, in concurrent forks, and across
 * turns. Each user message maps to a `Plan` (what to search for, which tool to call, with what
 * arguments); a `Policy` decides how the "model" goes about it:
 *
 * - `capable`: searches, then calls the tool it meant (or the top hit), then answers.
 * - `guesser`: calls the tool by name without searching; reads the corrective message, runs the
 *   search call it names, calls the tool again.
 * - `weak`: never searches on its own; when the first call is forced to the search tool
 *   (discovery-first) it searches and proceeds; otherwise it gives up.
 *
 * It uses a tool the way each delivery offers it: by name when the tool is in its tool list;
 * through `call_tool {name, arguments}` when the list has the dispatcher and a search returned the
 * tool (`result`); from a program of one call, `execute_code {code}`, when the list has the code
 * tool and a search returned the tool (`code`); tools sent deferred (`native`) count as offered once
 * a tool result references them, as a provider would load them.
 *
 * A plan may be a `pipeline` — list many records (page by page), keep a few, act on each — which
 * the model carries out call by call, reading every page into its context, or, in code mode, as
 * one program that does it all and returns only what it acted on.
 *
 * A plan may read instead of call (`read`): the model samples the resources for a topic, searches
 * inside the one it picks, reads the best passage only, and answers with the sentences of that
 * slice — what a capable model does with the resource tools.
 *
 * Every request is recorded in a `ModelLog`, so tests can assert what each request carried.
 *
 * @since 0.1.0
 */
import { Disclosure, NativeDeferral } from "@tool-search/core"
import { Context, Effect, Layer, Stream } from "effect"
import { LanguageModel, type Prompt, type Response } from "effect/ai"
import { DELEGATE_TASK } from "./Executor.js"
import {
  actParams,
  correction,
  finish,
  foundNames,
  isSearch,
  labelOf,
  nextCursor,
  pipelineProgram,
  program,
  reading,
  readPrompt,
  recordsOf,
  referenced,
  searchParams,
  select,
  type Step,
  summarize
} from "./internal/scripted.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * How the scripted model behaves.
 *
 * @since 0.1.0
 * @category models
 */
export type Policy = "capable" | "guesser" | "weak"

/**
 * What the model sets out to do for one user message.
 *
 * @since 0.1.0
 * @category models
 */
export interface Plan {
  /** The search query it would use. */
  readonly search: string
  /** The tool it means to call; when absent it calls the top search hit. */
  readonly tool?: string
  /** Arguments of the call. */
  readonly params?: Readonly<Record<string, unknown>>
  /** Hand tasks to sub-agents (`delegate_task`, one call per task, in one response). */
  readonly delegate?: string | ReadonlyArray<string>
  /** Overrides the script's policy for this message. */
  readonly policy?: Policy
  /** The final answer; default: a sentence naming the tool and its result. */
  readonly answer?: string
  /** Find a resource through the levels and answer from the slice read, instead of calling a tool. */
  readonly read?: ReadPlan
  /** List many records, keep a few, act on each, instead of calling one tool. */
  readonly pipeline?: Pipeline
}

/**
 * A task over many records: list them with `list.tool` (every page, following `cursor`), keep
 * those whose fields equal `where`, take the `take` with the largest `largest`, and call
 * `act.tool` for each (its arguments: `act.params`, plus record fields by `act.from`, parameter →
 * field). Each tool is found with its own search.
 *
 * @since 0.3.0
 * @category models
 */
export interface Pipeline {
  readonly list: {
    readonly tool: string
    readonly search: string
    readonly params?: Readonly<Record<string, unknown>>
    /** The field of a result that holds the records. */
    readonly items: string
    /** Paging: the parameter that asks for a page, and the result field that names the next one. */
    readonly cursor?: { readonly param: string; readonly next: string }
  }
  readonly where: Readonly<Record<string, string | number | boolean>>
  readonly largest: string
  readonly take: number
  readonly act: {
    readonly tool: string
    readonly search: string
    readonly params?: Readonly<Record<string, unknown>>
    readonly from: Readonly<Record<string, string>>
  }
}

/**
 * How the model reads: sample for `topic` (L2), search inside the resource of `kind` it found for
 * `keywords` (L3), read the best passage (L4), answer with the slice's sentences holding `answerWords`.
 *
 * @since 0.2.0
 * @category models
 */
export interface ReadPlan {
  readonly topic: string
  /** The kind of resource to pick among the samples; default: the first one. */
  readonly kind?: string
  readonly keywords: string
  readonly answerWords: ReadonlyArray<string>
}

/**
 * The script: a policy and the plan for each user message.
 *
 * @since 0.1.0
 * @category models
 */
export interface Script {
  readonly policy: Policy
  /** The plan for a user message; without one, the message itself is the search query. */
  readonly plan?: (userText: string) => Plan | undefined
}

/**
 * One recorded request.
 *
 * @since 0.1.0
 * @category models
 */
export interface Request {
  /** The tools in the model's context (tools sent deferred are not, until referenced). */
  readonly tools: ReadonlyArray<string>
  /** How many tools were sent deferred. */
  readonly deferred: number
  readonly toolChoice: string
  readonly messages: number
}

/**
 * The requests the scripted model received, in order.
 *
 * @since 0.1.0
 * @category services
 */
export class ModelLog extends Context.Service<ModelLog, {
  readonly requests: Effect.Effect<ReadonlyArray<Request>>
}>()("@tool-search/agent/ModelLog") {}

// -----------------------------------------------------------------------------
// Layer
// -----------------------------------------------------------------------------

/**
 * The scripted model and its request log. It declares `NativeDeferral.Support`: it plays a provider
 * that loads deferred tools from references, so every delivery mode runs on it.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (script: Script): Layer.Layer<LanguageModel.LanguageModel | ModelLog> =>
  Layer.effectContext(Effect.gen(function*() {
    // appended once per request (a copy per request would make a long run quadratic); read as a copy
    const log: Array<Request> = []
    const model = yield* LanguageModel.make({
      generateText: (options) =>
        Effect.gen(function*() {
          const tools = options.tools.filter((t) => !NativeDeferral.isDeferred(t)).map((t) => t.name)
          const deferred = new Set(options.tools.filter(NativeDeferral.isDeferred).map((t) => t.name))
          const toolChoice = typeof options.toolChoice === "object" && "tool" in options.toolChoice
            ? String(options.toolChoice.tool)
            : String(options.toolChoice)
          log.push({ tools, deferred: deferred.size, toolChoice, messages: options.prompt.content.length })
          // a deferred tool is loaded where a tool result references it
          const loaded = referenced(options.prompt).filter((name) => deferred.has(name))
          return respond(script, options.prompt, [...tools, ...loaded], toolChoice)
        }),
      streamText: () => Stream.empty
    })
    return Context.make(LanguageModel.LanguageModel, model).pipe(
      Context.add(ModelLog, ModelLog.of({ requests: Effect.sync(() => [...log]) })),
      Context.add(NativeDeferral.Support, { provider: "the scripted model", deferredTools: true })
    )
  }))

// -----------------------------------------------------------------------------
// Behaviour
// -----------------------------------------------------------------------------

/**
 * Decides the next response from the prompt since the last user message.
 *
 * @since 0.1.0
 * @category model
 */
export const respond = (
  script: Script,
  prompt: Prompt.Prompt,
  offered: ReadonlyArray<string>,
  toolChoice: string
): Array<Response.PartEncoded> => {
  const { steps, userText, callCount } = readPrompt(prompt)
  const plan = script.plan?.(userText) ?? { search: userText }
  const id = () => `call_${callCount + 1}`
  const call = (name: string, params: unknown): Array<Response.PartEncoded> => [
    { type: "tool-call", id: id(), name, params },
    finish("tool-calls")
  ]
  const answer = (text: string): Array<Response.PartEncoded> => [{ type: "text", text }, finish("stop")]

  // the dispatcher and programs reach what searches loaded; `browse` (search_tools) loads nothing
  const loadedBySearch = steps.flatMap((s) =>
    s.call !== undefined && isSearch(s.call.name) && s.call.name !== Disclosure.toolNames.searchTools
      ? foundNames(s.call.result?.value)
      : []
  )
  const dispatcher = [Disclosure.toolNames.callTool, Disclosure.toolNames.executeCode].find((n) => offered.includes(n))
  const reachable = (name: string) =>
    offered.includes(name) || (dispatcher !== undefined && loadedBySearch.includes(name))
  /** The call of `name` as this delivery makes it: by name, through `call_tool`, or as a program. */
  const callOf = (name: string, params: unknown): { readonly name: string; readonly params: unknown } =>
    offered.includes(name) || dispatcher === undefined
      ? { name, params }
      : dispatcher === Disclosure.toolNames.callTool
      ? { name: dispatcher, params: { name, arguments: params } }
      : { name: dispatcher, params: { code: program(name, params) } }
  const use = (name: string, params: unknown): Array<Response.PartEncoded> => {
    const c = callOf(name, params)
    return call(c.name, c.params)
  }

  const called = (name: string) => steps.some((s) => s.call?.name === name)
  const lastOf = (name: string) => [...steps].reverse().find((s) => s.call?.name === name)?.call
  const searchTool = [
    Disclosure.toolNames.searchTools,
    Disclosure.toolNames.toolSearch,
    Disclosure.toolNames.discoverTools
  ].find((n) => offered.includes(n))
  const forced = toolChoice !== "auto" && toolChoice !== "none" && toolChoice !== "required" ? toolChoice : undefined

  // A forced call is obeyed whatever the policy (that is what discovery-first relies on).
  if (forced !== undefined && !called(forced)) return call(forced, searchParams(forced, plan))

  if (plan.pipeline !== undefined) {
    const calls = (list: ReadonlyArray<{ readonly name: string; readonly params: unknown }>) => [
      ...list.map((c, k): Response.PartEncoded => ({
        type: "tool-call",
        id: `call_${callCount + 1 + k}`,
        name: c.name,
        params: c.params
      })),
      finish("tool-calls")
    ]
    return pipelineStep(plan.pipeline, steps, { offered, searchTool, reachable, callOf, calls, answer })
  }

  if (plan.read !== undefined && offered.includes(Disclosure.toolNames.sampleResources)) {
    const next = reading(plan.read, lastOf)
    return typeof next === "string" ? answer(next) : call(next.name, next.params)
  }

  if (plan.delegate !== undefined) {
    const tasks = typeof plan.delegate === "string" ? [plan.delegate] : plan.delegate
    const done = steps.filter((s) => s.call?.name === DELEGATE_TASK)
    if (done.length === 0 && offered.includes(DELEGATE_TASK)) {
      return [
        ...tasks.map((task, k): Response.PartEncoded => ({
          type: "tool-call",
          id: `call_${callCount + 1 + k}`,
          name: DELEGATE_TASK,
          params: { task }
        })),
        finish("tool-calls")
      ]
    }
    if (done.length > 0 && done.every((s) => s.call?.result !== undefined)) {
      return answer(
        plan.answer ?? `Sub-agents reported: ${done.map((s) => summarize(s.call?.result?.value)).join("; ")}`
      )
    }
  }

  const target = plan.tool
  const finished = target === undefined ? undefined : lastOf(target)
  if (finished?.result !== undefined && !finished.result.isFailure) {
    return answer(plan.answer ?? `Done: ${target} returned ${summarize(finished.result.value)}`)
  }

  const policy = plan.policy ?? script.policy
  if (policy === "guesser" && target !== undefined) {
    // First attempt: call it by name. Then follow the corrective message's own instructions.
    if (finished === undefined) return call(target, plan.params ?? {})
    const hint = typeof finished.result?.value === "string" ? correction(finished.result.value) : undefined
    if (
      hint !== undefined &&
      !steps.some((s) => s.call?.name === hint.tool && JSON.stringify(s.call.params) === JSON.stringify(hint.params))
    ) {
      return call(hint.tool, hint.params)
    }
    if (reachable(target)) return use(target, plan.params ?? {})
    return answer(`I could not use ${target}.`)
  }

  // capable and weak: use the tool when it is offered
  if (target !== undefined && reachable(target) && (finished === undefined || finished.result === undefined)) {
    return use(target, plan.params ?? {})
  }
  const searches = steps.filter((s) => s.call !== undefined && isSearch(s.call.name))
  if (searches.length === 0) {
    if (policy === "weak" || searchTool === undefined) return answer("I don't have a tool for that.")
    return call(searchTool, searchParams(searchTool, plan))
  }
  const found = searches.flatMap((s) => foundNames(s.call?.result?.value))
  // staged: browsing with search_tools loads nothing; promote the candidate with ToolSearch
  const last = searches[searches.length - 1]?.call
  const pick = target !== undefined && found.includes(target) ? target : found[0]
  if (
    last?.name === Disclosure.toolNames.searchTools && pick !== undefined &&
    offered.includes(Disclosure.toolNames.toolSearch)
  ) {
    return call(Disclosure.toolNames.toolSearch, { query: `select:${pick}` })
  }
  if (pick !== undefined && reachable(pick) && lastOf(pick) === undefined) return use(pick, plan.params ?? {})
  const done = pick === undefined ? undefined : lastOf(pick)
  if (done?.result !== undefined) return answer(plan.answer ?? `Done: ${pick} returned ${summarize(done.result.value)}`)
  return answer("I could not find a tool for that.")
}

/** What the next step of a pipeline needs from the response being decided. */
interface PipelineContext {
  readonly offered: ReadonlyArray<string>
  readonly searchTool: string | undefined
  readonly reachable: (name: string) => boolean
  readonly callOf: (name: string, params: unknown) => { readonly name: string; readonly params: unknown }
  readonly calls: (
    list: ReadonlyArray<{ readonly name: string; readonly params: unknown }>
  ) => Array<Response.PartEncoded>
  readonly answer: (text: string) => Array<Response.PartEncoded>
}

/**
 * The next step of a pipeline: both searches in one response; then, in code mode, one program
 * and the answer from what it returns; otherwise each page of the listing, then every act call in
 * one response, then the answer.
 */
const pipelineStep = (
  pipeline: Pipeline,
  steps: ReadonlyArray<Step>,
  context: PipelineContext
): Array<Response.PartEncoded> => {
  const { answer, calls, callOf, offered, reachable, searchTool } = context
  const { act, list } = pipeline
  const done = (labels: ReadonlyArray<string>) =>
    answer(`Done: ${act.tool} for ${labels.length === 0 ? "nothing" : labels.join(", ")}.`)
  if (!steps.some((s) => s.call !== undefined && isSearch(s.call.name)) && searchTool !== undefined) {
    return calls([list.search, act.search].map((query) => ({ name: searchTool, params: { query } })))
  }
  if (!reachable(list.tool) || !reachable(act.tool)) return answer(`I could not find ${list.tool} and ${act.tool}.`)

  if (offered.includes(Disclosure.toolNames.executeCode) && !offered.includes(list.tool)) {
    const ran = steps.find((s) => s.call?.name === Disclosure.toolNames.executeCode)?.call
    if (ran === undefined) {
      return calls([{ name: Disclosure.toolNames.executeCode, params: { code: pipelineProgram(pipeline) } }])
    }
    const value = ran.result?.value
    const returned = typeof value === "object" && value !== null && "result" in value ? value.result : undefined
    if (ran.result?.isFailure !== false || !Array.isArray(returned)) {
      return answer(`The program failed: ${summarize(value)}`)
    }
    return done(returned.map(String))
  }

  const pages = steps.filter((s) => s.call?.name === list.tool).map((s) => s.call?.result)
  const last = pages[pages.length - 1]
  if (last === undefined) return calls([callOf(list.tool, list.params ?? {})])
  if (last.isFailure) return answer(`${list.tool} failed: ${summarize(last.value)}`)
  const next = nextCursor(pipeline, last.value)
  if (next !== undefined && list.cursor !== undefined) {
    return calls([callOf(list.tool, { ...list.params, [list.cursor.param]: next })])
  }
  const chosen = select(pipeline, pages.flatMap((p) => p === undefined ? [] : recordsOf(pipeline, p.value)))
  const acted = steps.filter((s) => s.call?.name === act.tool)
  if (acted.length === 0) return calls(chosen.map((r) => callOf(act.tool, actParams(pipeline, r))))
  return done(chosen.map((r) => labelOf(pipeline, r)))
}
