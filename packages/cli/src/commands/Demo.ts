/**
 * `tool-search demo [--json] [--database D]` (what `npm start` runs): an agent with the demo's
 * catalog (`Services.tools`: a few hundred tools of made-up services) talks with a scripted model,
 * offline, and every disclosure step is printed — what the model sees, what it searched, what was
 * activated, what ran, and the tool-definition tokens against sending the whole catalog. A last
 * turn reads instead of calling: the model finds a policy through the resource levels and reads
 * only the passage that answers, and its cost is shown next to pushing the whole document. It ends
 * with a summary table and the share of input tokens a provider's prefix cache could serve.
 * `--json` prints the event stream instead, one JSON object per line, then a summary object.
 * `TOOL_SEARCH_DELIVERY` (or `--delivery`) picks how found tools reach the model. `--database` (or
 * `TOOL_SEARCH_DATABASE`, as for `chat` and `run`) keeps the demo's sessions and audit trail in a
 * database, for `tool-search audit`; without either nothing is kept.
 *
 * @since 0.1.0
 */
import { AgentConfig, Executor, ScriptedModel, TokenCounter, TurnEvent } from "@tool-search/agent"
import { Disclosure, ResourceCatalog, Setting, Strategies, ToolCatalog, Visibility } from "@tool-search/core"
import { Console, Effect, Layer, Option, Stream } from "effect"
import type { Prompt } from "effect/ai"
import { Command, Flag } from "effect/cli"
import { report, UsageError } from "../CliError.js"
import * as Conversation from "../demo/Conversation.js"
import * as Policies from "../demo/Policies.js"
import * as Services from "../demo/Services.js"
import * as Flags from "../Flags.js"
import * as AuditCommand from "./Audit.js"

// -----------------------------------------------------------------------------
// The agent
// -----------------------------------------------------------------------------

/** The demo catalog, ranked by the default strategy. */
const Catalog = ToolCatalog.layerWithTools(Services.tools).pipe(
  Layer.provide(Strategies.layer(Strategies.defaultName)),
  Layer.orDie // static data, checked by its tests
)

/** The attached policies (a handbook, a reply prompt) and the wiki, ranked like the tools. */
const Resources = ResourceCatalog.layerWithResources(Policies.resources).pipe(
  Layer.provide(Strategies.layer(Strategies.defaultName)),
  Layer.orDie // static data, checked by its tests
)

/**
 * The demo agent with a delivery mode (and, for the comparison, a system prompt): executor
 * offering the resources, scripted model, catalogs, real tokenizer.
 *
 * @since 0.2.0
 * @category agent
 */
export const agent = (
  delivery: Executor.Delivery,
  options: {
    readonly systemPrompt?: string
    /** The scripted model's plans, by user message: the conversation's by default. */
    readonly plans?: Readonly<Record<string, ScriptedModel.Plan>>
  } = {}
) => {
  const { plans = Conversation.plans, ...rest } = options
  return Executor.layerMemory({
    maxIterations: 8,
    forks: { maxIterations: 6, inheritActivation: false },
    delivery,
    ...rest
  }).pipe(
    Executor.withResources,
    Layer.provideMerge(ScriptedModel.layer({ policy: "capable", plan: (text) => plans[text] })),
    Layer.provideMerge(Catalog),
    Layer.provide(Resources),
    // the policies are attached to this agent: the resource table of contents names them
    Layer.provide(Visibility.layer({ strict: false, resources: [Policies.handbook.source ?? "policies"] })),
    Layer.provideMerge(TokenCounter.o200k)
  )
}

/**
 * The demo agent: executor, scripted model, catalogs, real tokenizer.
 *
 * @since 0.1.0
 * @category layers
 */
export const Agent = agent("list")

// -----------------------------------------------------------------------------
// Running the conversation
// -----------------------------------------------------------------------------

/**
 * Figures of one turn, for the summary.
 *
 * @since 0.1.0
 * @category models
 */
export interface TurnSummary {
  readonly turn: number
  readonly requests: number
  readonly maxToolsSent: number
  readonly toolTokens: number
  readonly eagerToolTokens: number
  /** Input tokens of the turn's requests, and those a prefix cache could serve. */
  readonly inputTokens: number
  readonly prefixTokens: number
  readonly stopReason: string
  /** Tokens of what the resource tools returned (what the model read of resources). */
  readonly readTokens: number
}

/**
 * The whole conversation (or `turns`, whose plans the agent has) as events, each tagged with its
 * turn, plus the per-turn summaries.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (
  onEvent: (turn: number, event: TurnEvent.TurnEvent) => Effect.Effect<void>,
  turns: ReadonlyArray<{ readonly user: string }> = Conversation.turns
) =>
  Effect.gen(function*() {
    const executor = yield* Executor.Executor
    const counter = yield* TokenCounter.TokenCounter
    const summaries: Array<TurnSummary> = []
    let history: ReadonlyArray<Prompt.MessageEncoded> = []
    for (const [i, turn] of turns.entries()) {
      const n = i + 1
      const prompt: ReadonlyArray<Prompt.MessageEncoded> = [...history, { role: "user", content: turn.user }]
      const requests: Array<TurnEvent.ModelRequest> = []
      let finished: TurnEvent.TurnFinished | undefined
      let readTokens = 0
      yield* executor.stream({ sessionId: "demo", prompt }).pipe(
        AuditCommand.recorded,
        Stream.runForEach((event) => {
          if (event._tag === "ModelRequest") requests.push(event)
          if (event._tag === "ToolResult" && Disclosure.isResourceTool(event.name)) {
            readTokens += counter.count(JSON.stringify(event.result))
          }
          if (event._tag === "TurnFinished" && event.path.length === 0) finished = event
          return onEvent(n, event)
        })
      )
      // The next turn sees the conversation as text (user and assistant messages), as chat apps keep it.
      history = [...prompt, { role: "assistant", content: finished?.text ?? "" }]
      summaries.push({
        turn: n,
        requests: requests.length,
        maxToolsSent: Math.max(...requests.map((r) => r.tools.length)),
        toolTokens: requests.reduce((s, r) => s + r.toolTokens, 0),
        eagerToolTokens: requests.reduce((s, r) => s + r.eagerToolTokens, 0),
        inputTokens: requests.reduce((s, r) => s + r.inputTokens, 0),
        prefixTokens: requests.reduce((s, r) => s + r.prefixTokens, 0),
        stopReason: finished?.stopReason ?? "unknown",
        readTokens
      })
    }
    return summaries
  })

// -----------------------------------------------------------------------------
// Printing
// -----------------------------------------------------------------------------

const fmt = (n: number): string => n.toLocaleString("en-US")
const short = (value: unknown, max = 110): string => {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value)
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

/**
 * Prints one event for people; returns nothing for events not worth a line (`chat` and `run`
 * print their turns with it too).
 *
 * @since 0.2.0
 * @category output
 */
export const render = (
  event: TurnEvent.TurnEvent,
  previousTools: Map<string, ReadonlyArray<string>>
): ReadonlyArray<string> => {
  const indent = event.path.length === 0 ? "  " : `  ${"  ".repeat(event.path.length)}[${event.path.join("/")}] `
  switch (event._tag) {
    case "TurnStarted": {
      // below the deferral threshold every tool is sent: say so
      const direct = event.deferring ? [] : [`${indent}few tools: all sent directly, no search (TOOL_SEARCH_DEFER)`]
      if (event.path.length > 0) return [`${indent}sub-agent started (fresh activation)`, ...direct]
      return [
        `${indent}carried over from earlier turns: ${
          event.carried.length === 0 ? "nothing" : event.carried.join(", ")
        }`,
        ...direct
      ]
    }
    case "ModelRequest": {
      const key = event.path.join("/")
      const before = previousTools.get(key) ?? []
      previousTools.set(key, event.tools)
      const added = event.tools.filter((t) => !before.includes(t))
      const shown = before.length === 0
        ? event.tools.join(", ")
        : added.length === 0
        ? "same tools"
        : `+ ${added.join(", ")}`
      const forced = event.toolChoice === "auto" ? "" : ` · forced to ${event.toolChoice}`
      const deferred = event.deferredTools === undefined ? "" : ` + ${event.deferredTools} deferred`
      return [
        `${indent}request ${event.iteration} · ${event.tools.length} tools${deferred} · ${
          fmt(event.toolTokens)
        } tokens (all ${fmt(event.eagerToolTokens)})${forced}`,
        `${indent}  sees: ${shown}`
      ]
    }
    case "ToolCall":
      return [`${indent}→ ${event.via === undefined ? "" : `${event.via} → `}${event.name} ${short(event.params)}`]
    case "Search":
      return [`${indent}  found: ${event.found.length === 0 ? "nothing" : event.found.join(", ")}`]
    case "Activation":
      return [`${indent}  activated: ${event.tools.join(", ")}`]
    case "ToolResult":
      if (event.name === "ToolSearch" && !event.isFailure) return []
      return [`${indent}  ${event.isFailure ? `✗ ${event.failure}:` : "←"} ${short(event.result)}`]
    case "ToolInterrupted":
      return [`${indent}  ✗ interrupted: ${event.name} was still running when the turn ended`]
    case "TurnFinished":
      return event.path.length === 0
        ? [`${indent}answer: ${event.text}`]
        : [`${indent}sub-agent answered after ${event.iterations} requests`]
    case "IterationStarted":
    case "ModelResponse":
      return []
  }
}

const table = (rows: ReadonlyArray<TurnSummary>): ReadonlyArray<string> => {
  const total = rows.reduce(
    (t, r) => ({ requests: t.requests + r.requests, tool: t.tool + r.toolTokens, eager: t.eager + r.eagerToolTokens }),
    { requests: 0, tool: 0, eager: 0 }
  )
  const saved = (tool: number, eager: number) => eager === 0 ? "-" : `${((1 - tool / eager) * 100).toFixed(1)}%`
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(6) : c.padStart([0, 9, 12, 13, 14, 8][i] ?? 10))).join("  ")
  return [
    line(["turn", "requests", "max tools", "tool tokens", "eager tokens", "saved"]),
    ...rows.map((r) =>
      line([
        String(r.turn),
        String(r.requests),
        String(r.maxToolsSent),
        fmt(r.toolTokens),
        fmt(r.eagerToolTokens),
        saved(r.toolTokens, r.eagerToolTokens)
      ])
    ),
    line(["total", String(total.requests), "", fmt(total.tool), fmt(total.eager), saved(total.tool, total.eager)])
  ]
}

/**
 * The summary object of `--json`: the turns, the tool-definition tokens against the whole catalog,
 * the input tokens with the share a prefix cache could serve, and what the model read of resources
 * against pushing the whole handbook (`documentTokens`) into the prompt.
 *
 * @since 0.2.0
 * @category output
 */
export const summaryJson = (
  rows: ReadonlyArray<TurnSummary>,
  delivery: Executor.Delivery,
  documentTokens = 0
) => {
  const sum = (f: (r: TurnSummary) => number) => rows.reduce((s, r) => s + f(r), 0)
  const readTokens = sum((r) => r.readTokens)
  const toolTokens = sum((r) => r.toolTokens)
  const eagerToolTokens = sum((r) => r.eagerToolTokens)
  const inputTokens = sum((r) => r.inputTokens)
  const prefixTokens = sum((r) => r.prefixTokens)
  return {
    type: "summary",
    delivery,
    turns: rows,
    requests: sum((r) => r.requests),
    toolTokens,
    eagerToolTokens,
    saved: eagerToolTokens === 0 ? 0 : 1 - toolTokens / eagerToolTokens,
    inputTokens,
    prefixTokens,
    prefixShare: inputTokens === 0 ? 0 : prefixTokens / inputTokens,
    resources: { readTokens, documentTokens, share: documentTokens === 0 ? 0 : readTokens / documentTokens }
  }
}

/** What the model read of resources in a turn, next to pushing the whole handbook. */
const readLine = (readTokens: number, documentTokens: number): string =>
  `read ${fmt(readTokens)} tokens of resources (sample, search, slice): ${
    (100 * readTokens / documentTokens).toFixed(1)
  }% of the ${fmt(documentTokens)} tokens of pushing the whole handbook into the prompt`

const human = (delivery: Executor.Delivery) =>
  Effect.gen(function*() {
    const catalog = yield* ToolCatalog.ToolCatalog
    const counter = yield* TokenCounter.TokenCounter
    const all = yield* catalog.all
    const eager = yield* catalog.eager
    const eagerTokens = all.reduce(
      (s, t) => s + counter.definition({ name: t.modelName, description: t.description, parameters: t.parameters }),
      0
    )
    yield* Console.log(
      `tool-search demo — an agent with ${all.length} tools from ${Services.services.length} services, offline, scripted model`
    )
    yield* Console.log(`  eager (always sent): ${eager.map((t) => t.modelName).join(", ")} + ToolSearch`)
    yield* Console.log(
      `  deferred: ${all.length - eager.length} tools, found through ToolSearch (strategy: ${catalog.strategy})`
    )
    yield* Console.log(
      `  sending every definition would cost ${fmt(eagerTokens)} tokens per request (${counter.encoding})`
    )
    const documentTokens = counter.count(Policies.handbookText)
    const seen = new Map<string, ReadonlyArray<string>>()
    let currentTurn = 0
    const rows = yield* run((turn, event) =>
      Effect.gen(function*() {
        if (turn !== currentTurn) {
          currentTurn = turn
          seen.clear()
          const spec = Conversation.turns[turn - 1]
          yield* Console.log(`\n━━ turn ${turn} · ${spec?.shows ?? ""}`)
          yield* Console.log(`  user: ${spec?.user ?? ""}`)
        }
        for (const line of render(event, seen)) yield* Console.log(line)
      })
    )
    const reading = rows.find((r) => r.readTokens > 0)
    if (reading !== undefined) {
      yield* Console.log(`\n  turn ${reading.turn}: ${readLine(reading.readTokens, documentTokens)}`)
    }
    yield* Console.log("\nsummary")
    for (const line of table(rows)) yield* Console.log(`  ${line}`)
    const s = summaryJson(rows, delivery, documentTokens)
    yield* Console.log(
      `\n  ${
        (s.saved * 100).toFixed(1)
      }% fewer tool-definition tokens than sending the whole catalog on every request (target: at least 90%)`
    )
    yield* Console.log(
      `  ${(s.prefixShare * 100).toFixed(1)}% of the input tokens (${fmt(s.prefixTokens)} of ${
        fmt(s.inputTokens)
      }) repeat the start of an earlier request: what a provider's prompt cache could serve (delivery: ${delivery})`
    )
  })

const json = (delivery: Executor.Delivery) =>
  Effect.gen(function*() {
    const documentTokens = (yield* TokenCounter.TokenCounter).count(Policies.handbookText)
    const rows = yield* run((turn, event) => Console.log(JSON.stringify({ turn, ...TurnEvent.toJson(event) })))
    yield* Console.log(JSON.stringify(summaryJson(rows, delivery, documentTokens)))
  })

/**
 * The delivery `--delivery` or `TOOL_SEARCH_DELIVERY` names (flags first), or a usage error.
 *
 * @since 0.2.0
 * @category flags
 */
export const readDelivery = (flag: Option.Option<Executor.Delivery>) =>
  Setting.read(AgentConfig.settings.delivery.config, [AgentConfig.settings], {
    flags: { delivery: Option.getOrUndefined(flag) }
  }).pipe(Effect.mapError((e) => new UsageError({ reason: Setting.explain(e), subject: "settings" })))

/**
 * The `--delivery` flag.
 *
 * @since 0.2.0
 * @category flags
 */
export const deliveryFlag = Flag.Literals("delivery", Executor.deliveries).pipe(
  Flag.withDescription(
    "how found tools reach the model: list, result or native (default: TOOL_SEARCH_DELIVERY, else list)"
  ),
  Flag.optional
)

/**
 * The `demo` command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("demo", {
  json: Flags.toggle("json", "print the event stream, one JSON object per line"),
  delivery: deliveryFlag,
  database: AuditCommand.databaseFlag.pipe(
    Flag.withDescription(
      "keep the demo's sessions and audit trail in this database, for `tool-search audit`: a directory (embedded PostgreSQL), memory, or postgres://user:password@host:5432/db (default: TOOL_SEARCH_DATABASE, else none)"
    )
  )
}, (flags) =>
  Effect.gen(function*() {
    const delivery = yield* readDelivery(flags.delivery)
    // the database the flag or TOOL_SEARCH_DATABASE names, read as chat and run read theirs
    const store = yield* AuditCommand.named("demo", flags.database)
    yield* (flags.json ? json(delivery) : human(delivery)).pipe(
      Effect.provide(Option.match(store, {
        onNone: () => agent(delivery),
        onSome: (settings) => agent(delivery).pipe(Layer.provideMerge(AuditCommand.demoStore(settings)))
      })),
      Effect.catchTag(
        "DatabaseUnavailable",
        (e) => Effect.fail(new UsageError({ reason: e.message, subject: "database" }))
      ),
      Effect.catchIf((e) => !(e instanceof UsageError), Effect.die)
    )
  }).pipe(report("tool-search demo", { json: flags.json }))).pipe(
    Command.withDescription(
      `an offline agent with ${Services.tools.length} tools: progressive disclosure, step by step`
    )
  )
