/**
 * `tool-search bench-executor [--tools 1000] [--turns 300] [--warmup 1000] [--counter o200k] [--json]`: the
 * executor's own cost per loop iteration, with a scripted model that answers instantly, on a generated
 * catalog. Token accounting counts with `o200k` (exact counts for OpenAI's models) unless `--counter
 * approximate` (the library's default counter, four characters a token) says otherwise: the difference
 * is what exact counts of every new message cost.
 *
 * Each turn searches, calls the found tool, and answers: three iterations. The model's share is
 * what the same requests cost when sent again without the executor; the executor's share —
 * re-reading the unit's tools, building the request, resolving and running calls (the search
 * included), token accounting, events, making and ending the unit — is the rest. Times are CPU
 * time of the process (`process.cpuUsage`), which a machine loaded by other work inflates far less
 * than wall-clock time; wall-clock figures are reported too.
 *
 * The replay runs every request a second time, when `effect/ai`'s caches of each request's objects
 * are warm and the heap holds nothing else: a lower bound of what `generateText` costs. The requests
 * replayed are recorded in an untimed second run of the same turns, so that the timed turns keep no
 * more alive than the executor does. The measured turns and their replay run three times (rounds);
 * the figures are those of the median round by the executor's share over the replayed model's, since
 * one round's ratio moves with the machine's load. `inSitu` is
 * the other bound: the CPU time spent inside each `generateText` call as the executor made it (cold
 * per-request work, and the garbage collections that fall inside it, included). Timing each call
 * reads the clocks twice (a system call each, a few µs): what those readings cost, measured before
 * the timed turns, is the benchmark's own and is taken out of the executor's figures.
 *
 * Both are measured at steady state: `--warmup` turns run first (1,000 by default), until V8 has
 * compiled the executor's code as it will stay for a long-running agent; with a short warm-up the
 * executor's share includes its own compilation (its CPU time per iteration falls by half between
 * the 200th and the 3,000th turn), while the replayed model calls are by then the 1,000th of their
 * kind.
 *
 * @since 0.1.0
 */
import { Executor, ScriptedModel, TokenCounter } from "@tool-search/agent"
import { CatalogTool, Strategies, ToolCatalog } from "@tool-search/core"
import { Console, Effect, Layer } from "effect"
import { LanguageModel } from "effect/ai"
import { Command, Flag } from "effect/cli"
import * as Flags from "../Flags.js"

const VERBS = ["create", "list", "get", "update", "delete", "search", "send", "archive"] as const
const NOUNS = ["invoice", "ticket", "message", "event", "file", "user", "report", "alert", "order", "page"] as const

/**
 * A generated catalog: `n` deferred tools over services, plus one eager tool.
 *
 * @since 0.1.0
 * @category data
 */
export const generate = (n: number): ReadonlyArray<CatalogTool.CatalogTool> => {
  const tools = [CatalogTool.make({ name: "read_file", description: "Read a file", loading: "eager" })]
  for (let i = 0; i < n; i++) {
    const verb = VERBS[i % VERBS.length] as string // modulo keeps the index in range
    const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length] as string
    const service = `svc${Math.floor(i / (VERBS.length * NOUNS.length))}`
    const name = `${service}_${verb}_${noun}`
    tools.push(CatalogTool.make({
      name,
      description: `${verb[0]?.toUpperCase()}${verb.slice(1)} a ${noun} in service ${service}.`,
      source: service,
      parameters: {
        type: "object",
        properties: { id: { type: "string", description: `The ${noun} id` }, note: { type: "string" } }
      },
      handler: CatalogTool.handler(name, (params) => Effect.succeed({ ok: true, params }))
    }))
  }
  return tools
}

/**
 * Figures of one run.
 *
 * @since 0.1.0
 * @category models
 */
export interface Report {
  readonly tools: number
  /** The token counter of the accounting. */
  readonly counter: Counter
  readonly turns: number
  /** Turns run before the measured ones. */
  readonly warmup: number
  /**
   * Each round's executor share over the replayed model's, in the order run: the turns are measured
   * three times, and the figures are the median round's.
   */
  readonly rounds: ReadonlyArray<number>
  readonly iterations: number
  readonly usPerIteration: number
  readonly modelUsPerIteration: number
  readonly executorUsPerIteration: number
  /** The same three figures in wall-clock time. */
  readonly wall: {
    readonly usPerIteration: number
    readonly modelUsPerIteration: number
    readonly executorUsPerIteration: number
  }
  /** The CPU split with the model's share measured inside the executor's own calls, not replayed. */
  readonly inSitu: {
    readonly modelUsPerIteration: number
    readonly executorUsPerIteration: number
  }
  /**
   * CPU time of one recorded request (the last: the tools of the turn's second request) sent again as
   * many times as the replay sent requests: `generateText` when the tool list never changes.
   * `effect/ai` keeps one response decoder per model, keyed by the request's tools, so in the loop,
   * where the list changes with each activation, it builds one again for two requests of three.
   */
  readonly modelSameRequestUs: number
}

/**
 * The model the executor calls: the scripted one, recording every request it is sent, so that the
 * same requests can be sent again without the executor (`replay`).
 */
const recordingModel = (requests: Array<Effect.Effect<unknown, unknown>>, inModel: Recorder) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    Effect.map(Effect.service(LanguageModel.LanguageModel), (model) => ({
      ...model,
      generateText: ((options: Parameters<typeof model.generateText>[0]) =>
        Effect.suspend(() => {
          if (inModel.recording) {
            requests.push(Effect.suspend(() => model.generateText(options) as Effect.Effect<unknown, unknown>))
          }
          inModel.calls++
          const started = now().cpu
          return Effect.ensuring(
            model.generateText(options),
            Effect.sync(() => {
              inModel.cpu += now().cpu - started
            })
          )
        })) as typeof model.generateText
    }))
  ).pipe(Layer.provide(ScriptedModel.layer({ policy: "capable" })))

/** CPU time of the process (user + system) and wall-clock time, in µs. */
const now = () => {
  const { system, user } = process.cpuUsage()
  return { cpu: user + system, wall: performance.now() * 1000 }
}

/**
 * What one reading of both clocks costs, in CPU and wall-clock µs (reading the CPU clock is a system
 * call: a few µs). The recording model reads them twice around each call, and the replay does not:
 * that cost is the benchmark's, not the executor's, so it is taken out of the executor's figures.
 */
const readingCost = () => {
  const n = 2_000
  const start = now()
  for (let i = 0; i < n; i++) now()
  const end = now()
  return { cpu: (end.cpu - start.cpu) / (n + 1), wall: (end.wall - start.wall) / (n + 1) }
}

/**
 * Runs the benchmark: `turns` turns of the executor, then the same model requests again without
 * it. The second run is what `generateText` costs (the scripted answer, `effect/ai`'s request
 * building and response decoding); the executor's own cost is the difference. Both are timed as
 * whole runs, in CPU time (which other work on the machine inflates far less than wall-clock time)
 * and in wall-clock time.
 *
 * @since 0.1.0
 * @category measuring
 */
export const measure = (
  toolCount: number,
  turns: number,
  warmup = 1_000,
  counter: Counter = "o200k"
): Effect.Effect<Report> => {
  const requests: Array<Effect.Effect<unknown, unknown>> = []
  const inModel: Recorder = { cpu: 0, calls: 0, recording: false }
  return Effect.gen(function*() {
    const catalog = yield* ToolCatalog.ToolCatalog
    yield* catalog.register(generate(toolCount)).pipe(Effect.orDie) // generated names are valid
    const executor = yield* Executor.Executor
    const task = (i: number) => `svc0 ${VERBS[i % VERBS.length]} ${NOUNS[i % NOUNS.length]}`
    const turn = (i: number) => executor.run({ prompt: [{ role: "user", content: task(i) }] }).pipe(Effect.orDie)
    // warm-up: JIT, token counts, tool definition caches (its requests are not recorded)
    for (let i = 0; i < warmup; i++) yield* turn(i)
    const reading = readingCost()
    // Each round: the measured turns, then their requests replayed. The round reported is the median
    // of `ROUNDS` by the executor's share over the replayed model's: one round's ratio moves with the
    // machine's load (by half between runs on a loaded machine), the median of three much less.
    const measured: Array<Round> = []
    for (let r = 0; r < ROUNDS; r++) {
      inModel.cpu = 0
      inModel.calls = 0
      let iterations = 0
      const start = now()
      for (let i = 0; i < turns; i++) iterations += (yield* turn(i)).iterations
      const end = now()
      // each model call read the clocks twice: about one reading falls inside the timed call, one outside
      const calls = inModel.calls
      const inSituModel = Math.max(0, inModel.cpu - calls * reading.cpu)
      const clocks = { cpu: 2 * calls * reading.cpu, wall: 2 * calls * reading.wall }
      // The same turns again, untimed, to record their requests: recorded in the timed turns, every
      // request's prompt would stay alive until the replay, and the collector's extra work (~13 µs an
      // iteration) would count as the executor's.
      inModel.recording = true
      for (let i = 0; i < turns; i++) yield* turn(i)
      inModel.recording = false
      const sent = [...requests]
      requests.length = 0
      // the same requests, without the executor (after a warm-up of its own in the first round)
      if (r === 0) { for (const request of sent.slice(0, 150)) yield* Effect.orDie(request) }
      const replayStart = now()
      for (const request of sent) yield* Effect.orDie(request)
      const replayEnd = now()
      const per = (total: number, inModel: number) => ({
        usPerIteration: round(total / iterations),
        modelUsPerIteration: round(inModel / iterations),
        executorUsPerIteration: round((total - inModel) / iterations)
      })
      measured.push({
        iterations,
        calls,
        last: sent[sent.length - 1],
        ...per(end.cpu - start.cpu - clocks.cpu, replayEnd.cpu - replayStart.cpu),
        wall: per(end.wall - start.wall - clocks.wall, replayEnd.wall - replayStart.wall),
        inSitu: {
          modelUsPerIteration: round(inSituModel / iterations),
          executorUsPerIteration: round((end.cpu - start.cpu - clocks.cpu - inSituModel) / iterations)
        }
      })
    }
    const ratio = (m: Round) => m.executorUsPerIteration / Math.max(1e-9, m.modelUsPerIteration)
    const byRatio = [...measured].sort((a, b) => ratio(a) - ratio(b))
    const { calls, last, ...median } = byRatio[Math.floor(byRatio.length / 2)] as Round // ROUNDS >= 1
    // one request sent again and again: effect/ai's caches keyed by the request's tools all hit
    let sameCpu = 0
    if (last !== undefined) {
      const sameStart = now()
      for (let i = 0; i < calls; i++) yield* Effect.orDie(last)
      sameCpu = now().cpu - sameStart.cpu
    }
    return {
      tools: toolCount,
      counter,
      turns,
      warmup,
      rounds: measured.map((m) => Math.round(ratio(m) * 100) / 100),
      ...median,
      modelSameRequestUs: round(sameCpu / Math.max(1, calls))
    }
  }).pipe(
    Effect.provide(
      Executor.layerMemory({ maxIterations: 6 }).pipe(
        Layer.provideMerge(recordingModel(requests, inModel)),
        Layer.provideMerge(ToolCatalog.layer.pipe(Layer.provide(Strategies.layer(Strategies.defaultName)))),
        Layer.provide(counter === "o200k" ? TokenCounter.o200k : Layer.empty)
      )
    )
  )
}

const round = (x: number): number => Math.round(x * 10) / 10

/** Rounds of the measured turns; the median one is reported. */
const ROUNDS = 3

/** What the model in the benchmark counts: CPU time inside its calls, the calls, and whether it records them. */
interface Recorder {
  cpu: number
  calls: number
  recording: boolean
}

/** One round's figures, how many requests it sent, and its last. */
type Round = Omit<Report, "tools" | "counter" | "turns" | "warmup" | "rounds" | "modelSameRequestUs"> & {
  readonly calls: number
  readonly last: Effect.Effect<unknown, unknown> | undefined
}

/**
 * The token counters the benchmark can account with.
 *
 * @since 0.3.0
 * @category models
 */
export type Counter = "o200k" | "approximate"

/**
 * The `bench-executor` command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("bench-executor", {
  tools: Flag.Int("tools").pipe(Flags.withDefault(1_000, "catalog size")),
  turns: Flag.Int("turns").pipe(Flags.withDefault(300, "measured turns (3 iterations each)")),
  warmup: Flag.Int("warmup").pipe(Flags.withDefault(1_000, "turns run before the measured ones")),
  counter: Flag.Literals("counter", ["o200k", "approximate"] as const).pipe(
    Flags.withDefault("o200k" as Counter, "token counter of the accounting")
  ),
  json: Flags.json
}, ({ counter, json, tools, turns, warmup }) =>
  Effect.gen(function*() {
    const r = yield* measure(Math.max(1, tools), Math.max(1, turns), Math.max(0, warmup), counter)
    if (json) return yield* Console.log(JSON.stringify(r))
    yield* Console.log(
      `executor overhead, scripted model, ${r.tools} tools, ${r.turns} turns (${r.iterations} iterations) after ${r.warmup}, ${r.counter} counts, CPU time`
    )
    yield* Console.log(`  per iteration, total                 ${r.usPerIteration.toFixed(1)} µs`)
    yield* Console.log(`  in generateText (script + effect/ai) ${r.modelUsPerIteration.toFixed(1)} µs`)
    yield* Console.log(
      `  the executor's own                   ${
        r.executorUsPerIteration.toFixed(1)
      } µs  (target: at most generateText's)`
    )
    yield* Console.log(
      `  in situ (the model's share timed inside the executor's own calls): ${
        r.inSitu.modelUsPerIteration.toFixed(1)
      } µs in generateText, ${r.inSitu.executorUsPerIteration.toFixed(1)} µs the executor's own`
    )
    yield* Console.log(
      `  one request sent again and again (effect/ai's caches hit): ${r.modelSameRequestUs.toFixed(1)} µs a call`
    )
    yield* Console.log(
      `  rounds, the executor's share over the replayed model's: ${
        r.rounds.join(", ")
      } (the figures above are the median round's)`
    )
    yield* Console.log(
      `  wall clock: ${r.wall.usPerIteration.toFixed(1)} µs total, ${
        r.wall.modelUsPerIteration.toFixed(1)
      } in generateText, ${r.wall.executorUsPerIteration.toFixed(1)} the executor's own`
    )
  })).pipe(Command.withDescription("measure the executor's overhead per loop iteration"))
