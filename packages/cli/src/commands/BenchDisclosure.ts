/**
 * `tool-search bench-disclosure [--system-prompt-tokens N] [--json]`: the demo's conversation under
 * each delivery mode (`list`, `result`, `native`, `code`), side by side — the tool-definition tokens
 * sent and their saving against sending the whole catalog, the input tokens and the share of them
 * a provider's prefix cache could serve, the number of requests, and whether every scripted task
 * still succeeds (each turn answered, each planned tool run without failure). Then the multi-step
 * tasks (`Tasks`: list 200 records page by page, keep a few, act on each) under each mode: the
 * input tokens, the requests, and whether each task made exactly the right calls — where code
 * mode's one program keeps the intermediate data out of the model's context.
 *
 * The demo agent has no system prompt; real agents carry one, which `list` pays again after every
 * activation. `--system-prompt-tokens` gives the agent one of about that many tokens to show how
 * the modes drift apart with it.
 *
 * @since 0.2.0
 */
import { Executor, TokenCounter, type TurnEvent } from "@tool-search/agent"
import type { UnknownTools } from "@tool-search/core"
import { Console, Effect } from "effect"
import type { AiError } from "effect/ai"
import { Command, Flag } from "effect/cli"
import * as Conversation from "../demo/Conversation.js"
import * as Tasks from "../demo/Tasks.js"
import * as Flags from "../Flags.js"
import * as Demo from "./Demo.js"

// -----------------------------------------------------------------------------
// Measuring
// -----------------------------------------------------------------------------

/**
 * The figures of one delivery mode over the demo's conversation.
 *
 * @since 0.2.0
 * @category models
 */
export interface ModeReport {
  readonly delivery: Executor.Delivery
  readonly requests: number
  /** Tool-definition tokens sent (the tool lists), and what sending the whole catalog would have cost. */
  readonly toolTokens: number
  readonly eagerToolTokens: number
  readonly saved: number
  /** Input tokens of every request (tools, system, messages), and those a prefix cache could serve. */
  readonly inputTokens: number
  readonly prefixTokens: number
  readonly prefixShare: number
  /** Turns whose answer came and whose planned tools all ran without failure. */
  readonly tasksSucceeded: number
  readonly tasks: number
}

/** The tools each turn means to run: its plan's tool, and its sub-agents' tools. */
const plannedTools = (user: string): ReadonlyArray<string> => {
  const plan = Conversation.plans[user]
  if (plan === undefined) return []
  const delegated = plan.delegate === undefined
    ? []
    : typeof plan.delegate === "string"
    ? [plan.delegate]
    : plan.delegate
  return [...(plan.tool === undefined ? [] : [plan.tool]), ...delegated.flatMap(plannedTools)]
}

/** Whether one turn's events show its task done. */
const succeeded = (user: string, events: ReadonlyArray<TurnEvent.TurnEvent>): boolean => {
  const answered = events.some((e) => e._tag === "TurnFinished" && e.path.length === 0 && e.stopReason === "answered")
  const ran = new Set(events.flatMap((e) => e._tag === "ToolResult" && !e.isFailure ? [e.name] : []))
  return answered && plannedTools(user).every((tool) => ran.has(tool))
}

/**
 * Runs the demo's conversation with one delivery mode.
 *
 * @since 0.2.0
 * @category measuring
 */
export const measure = (
  delivery: Executor.Delivery,
  systemPrompt?: string
): Effect.Effect<ModeReport, AiError.AiError | UnknownTools> =>
  Effect.gen(function*() {
    const events = new Map<number, Array<TurnEvent.TurnEvent>>()
    const rows = yield* Demo.run((turn, event) =>
      Effect.sync(() => {
        const list = events.get(turn) ?? []
        list.push(event)
        events.set(turn, list)
      })
    )
    const summary = Demo.summaryJson(rows, delivery)
    const tasksSucceeded = Conversation.turns.filter((t, i) => succeeded(t.user, events.get(i + 1) ?? [])).length
    return {
      delivery,
      requests: summary.requests,
      toolTokens: summary.toolTokens,
      eagerToolTokens: summary.eagerToolTokens,
      saved: summary.saved,
      inputTokens: summary.inputTokens,
      prefixTokens: summary.prefixTokens,
      prefixShare: summary.prefixShare,
      tasksSucceeded,
      tasks: Conversation.turns.length
    }
  }).pipe(Effect.provide(Demo.agent(delivery, systemPrompt === undefined ? {} : { systemPrompt })))

/**
 * The figures of one delivery mode over the multi-step tasks.
 *
 * @since 0.3.0
 * @category models
 */
export interface TaskReport {
  readonly delivery: Executor.Delivery
  readonly requests: number
  readonly inputTokens: number
  /** Tasks answered whose expected calls were made, exactly and without failure. */
  readonly tasksSucceeded: number
  readonly tasks: number
}

/**
 * Runs the multi-step tasks (each a turn of its own conversation) with one delivery mode.
 *
 * @since 0.3.0
 * @category measuring
 */
export const measureTasks = (
  delivery: Executor.Delivery,
  systemPrompt?: string
): Effect.Effect<TaskReport, AiError.AiError | UnknownTools> =>
  Effect.gen(function*() {
    let requests = 0
    let inputTokens = 0
    let tasksSucceeded = 0
    for (const task of Tasks.tasks) {
      const events: Array<TurnEvent.TurnEvent> = []
      const rows = yield* Demo.run((_, event) => Effect.sync(() => void events.push(event)), [task])
      const summary = Demo.summaryJson(rows, delivery)
      requests += summary.requests
      inputTokens += summary.inputTokens
      if (Tasks.succeeded(task, events)) tasksSucceeded++
    }
    return {
      delivery,
      requests,
      inputTokens,
      tasksSucceeded,
      tasks: Tasks.tasks.length
    }
  }).pipe(
    Effect.provide(
      Demo.agent(delivery, { plans: Tasks.plans, ...(systemPrompt === undefined ? {} : { systemPrompt }) })
    )
  )

/**
 * A system prompt of about `tokens` tokens: operating rules of the kind agents carry, repeated.
 *
 * @since 0.2.0
 * @category measuring
 */
export const systemPromptOf = (tokens: number): Effect.Effect<string | undefined> =>
  Effect.map(Effect.service(TokenCounter.TokenCounter), (counter) => {
    if (tokens <= 0) return undefined
    const rules = [
      "You are the operations assistant of a software company.",
      "Use the tools you are given; find the ones you need with ToolSearch before calling them.",
      "Confirm what you did in one or two sentences, naming the systems you changed.",
      "Never invent identifiers: read them from tool results.",
      "When a tool fails, say what failed and what the user can do next."
    ]
    let text = ""
    for (let i = 1; counter.count(text) < tokens; i++) text += `${i}. ${rules[i % rules.length]}\n`
    return counter.truncate(text, tokens)
  }).pipe(Effect.provide(TokenCounter.o200k))

// -----------------------------------------------------------------------------
// Output
// -----------------------------------------------------------------------------

const fmt = (n: number): string => n.toLocaleString("en-US")
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`

/**
 * The reports as an aligned table, then each mode against `list`.
 *
 * @since 0.2.0
 * @category output
 */
export const render = (reports: ReadonlyArray<ModeReport>): ReadonlyArray<string> => {
  const widths = [8, 9, 12, 7, 13, 10, 7, 6]
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 8) : c.padStart(widths[i] ?? 8))).join("  ")
  const list = reports.find((r) => r.delivery === "list")
  return [
    line(["delivery", "requests", "tool tokens", "saved", "input tokens", "cacheable", "share", "tasks"]),
    ...reports.map((r) =>
      line([
        r.delivery,
        String(r.requests),
        fmt(r.toolTokens),
        pct(r.saved),
        fmt(r.inputTokens),
        fmt(r.prefixTokens),
        pct(r.prefixShare),
        `${r.tasksSucceeded}/${r.tasks}`
      ])
    ),
    ...(list === undefined ? [] : reports.filter((r) => r !== list).map((r) => {
      const uncached = (x: ModeReport) => x.inputTokens - x.prefixTokens
      return `${r.delivery} against list: cacheable share ×${(r.prefixShare / list.prefixShare).toFixed(2)}, ` +
        `tokens no cache could serve ${pct(uncached(r) / uncached(list) - 1)}, input tokens ${
          pct(r.inputTokens / list.inputTokens - 1)
        }`
    }))
  ]
}

/**
 * The multi-step reports as an aligned table, then each mode's input tokens against `result`'s.
 *
 * @since 0.3.0
 * @category output
 */
export const renderTasks = (reports: ReadonlyArray<TaskReport>): ReadonlyArray<string> => {
  const widths = [8, 9, 13, 6]
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 8) : c.padStart(widths[i] ?? 8))).join("  ")
  const result = reports.find((r) => r.delivery === "result")
  return [
    line(["delivery", "requests", "input tokens", "tasks"]),
    ...reports.map((r) => line([r.delivery, String(r.requests), fmt(r.inputTokens), `${r.tasksSucceeded}/${r.tasks}`])),
    ...(result === undefined ?
      [] :
      reports.filter((r) => r !== result).map((r) =>
        `${r.delivery} against result: input tokens ${pct(r.inputTokens / result.inputTokens - 1)}, requests ${
          r.requests - result.requests >= 0 ? "+" : ""
        }${r.requests - result.requests}`
      ))
  ]
}

/**
 * The `bench-disclosure` command.
 *
 * @since 0.2.0
 * @category commands
 */
export const command = Command.make("bench-disclosure", {
  systemPromptTokens: Flag.Int("system-prompt-tokens").pipe(
    Flags.withDefault(0, "give the demo agent a system prompt of about this many tokens")
  ),
  json: Flags.json
}, ({ json, systemPromptTokens }) =>
  Effect.gen(function*() {
    const systemPrompt = yield* systemPromptOf(systemPromptTokens)
    // the scripted model never fails: a failure here is a bug
    const reports = yield* Effect.orDie(Effect.forEach(Executor.deliveries, (d) => measure(d, systemPrompt)))
    const multiStep = yield* Effect.orDie(Effect.forEach(Executor.deliveries, (d) => measureTasks(d, systemPrompt)))
    if (json) return yield* Console.log(JSON.stringify({ systemPromptTokens, modes: reports, multiStep }))
    yield* Console.log(
      `delivery modes on the demo's conversation (${Conversation.turns.length} turns, scripted model${
        systemPrompt === undefined ? "" : `, a ${fmt(systemPromptTokens)}-token system prompt`
      })`
    )
    for (const l of render(reports)) yield* Console.log(`  ${l}`)
    yield* Console.log(
      `multi-step tasks (${Tasks.tasks.length}: list ${
        fmt(Tasks.records)
      } records page by page, keep a few, act on each)`
    )
    for (const l of renderTasks(multiStep)) yield* Console.log(`  ${l}`)
  })).pipe(
    Command.withDescription("compare how found tools reach the model: tokens, prompt-cache share, requests, success")
  )
