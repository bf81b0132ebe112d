/**
 * `npm run bench:gateway`: the regex budget that keeps one session's search from stalling the
 * others: a pattern with counted repetitions over 100k generated tool names, with and without the
 * budget, and how long another fiber waits while the search runs. (What a gateway search loads is
 * the agent's "no good match" rule: its figures are `npm run bench -- --min-score`.)
 *
 * Wall-clock figures are for this machine, printed, never asserted.
 */
import { Regex, SearchDocument } from "@tool-search/core"
import { Effect, Fiber } from "effect"
import * as Generate from "./Generate.js"

const regexBudget = Effect.gen(function*() {
  const tools = Generate.catalog(100_000)
  const docs = tools.map(SearchDocument.fromTool)
  const pattern = "(.{0,30}){10}x"
  console.log(`## Regex budget: '${pattern}' over ${tools.length} generated names\n`)
  for (
    const [label, maxSteps] of [["with the budget (default)", Regex.MAX_STEPS], ["without a budget", Infinity]] as const
  ) {
    const index = yield* Regex.makeIndexWith({ maxSteps })
    index.add(docs)
    // another session's request: how long it waits behind this search
    let waited = 0
    const started = performance.now()
    const search = yield* Effect.forkChild(Effect.result(index.search({ text: pattern, limit: 5, accept: () => true })))
    const ping = yield* Effect.forkChild(Effect.sync(() => {
      waited = performance.now() - started
    }))
    const outcome = yield* Fiber.join(search)
    const elapsed = performance.now() - started
    yield* Fiber.join(ping)
    const what = outcome._tag === "Failure"
      ? /stopped after (\d+) steps/.exec(outcome.failure.message)?.[0] ?? outcome.failure.message
      : `${outcome.success.length} hits`
    console.log(`- ${label}: ${elapsed.toFixed(0)} ms (${what}); a concurrent fiber waited ${waited.toFixed(1)} ms`)
  }
  const ordinary = yield* Regex.makeIndexWith({})
  ordinary.add(docs)
  const started = performance.now()
  const hits = yield* ordinary.search({ text: "send.*message", limit: 5, accept: () => true }).pipe(Effect.orDie)
  console.log(
    `- an ordinary pattern ('send.*message'): ${(performance.now() - started).toFixed(0)} ms, ${hits.length} hits`
  )
})

Effect.runPromise(regexBudget).catch((e) => {
  console.error(e)
  process.exit(1)
})
