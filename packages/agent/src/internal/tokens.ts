/**
 * Token accounting: the tokens of the tool definitions a request sends, what sending every tool
 * the agent may use would have cost (per visibility policy, recomputed only when the catalog
 * changes), and the totals of every turn since the executor was built.
 */
import type { ToolCatalog, Visibility } from "@tool-search/core"
import { Effect, Ref } from "effect"
import type { Totals } from "../Executor.js"
import type { Definition, Service as TokenCounterService } from "../TokenCounter.js"

/** The accounting of one executor. */
export interface Account {
  /** Tokens of the definitions of `tools`, as a request sends them. */
  readonly sent: (tools: ReadonlyArray<Definition>) => number
  /** What sending every tool of `catalog` that `visibility` lets the agent use would cost. */
  readonly eager: (catalog: ToolCatalog.Service, visibility: Visibility.Visibility) => number
  /** Adds one unit's figures to the totals. */
  readonly add: (unit: Omit<Totals, "turns"> & { readonly isTurn: boolean }) => Effect.Effect<void>
  readonly totals: Effect.Effect<Totals>
}

/** An account starting at zero. */
export const make = (counter: TokenCounterService): Effect.Effect<Account> =>
  Effect.gen(function*() {
    const totals = yield* Ref.make<Totals>({
      turns: 0,
      requests: 0,
      toolTokens: 0,
      eagerToolTokens: 0,
      inputTokens: 0,
      prefixTokens: 0
    })
    // by the catalog's view under the policy: the same object while the catalog's version holds
    const eagerOf = new WeakMap<ToolCatalog.Visible, number>()
    const count = (tools: ReadonlyArray<ToolCatalog.Entry>) =>
      tools.reduce(
        (sum, t) =>
          sum + counter.definition({ name: t.modelName, description: t.description, parameters: t.parameters }),
        0
      )
    const eager = (catalog: ToolCatalog.Service, visibility: Visibility.Visibility) => {
      const visible = catalog.visibleToUnsafe(visibility)
      let tokens = eagerOf.get(visible)
      if (tokens === undefined) eagerOf.set(visible, tokens = count(visible.eager) + count(visible.deferred))
      return tokens
    }
    return {
      sent: (tools) => tools.reduce((sum, t) => sum + counter.definition(t), 0),
      eager,
      add: (unit) =>
        Ref.update(totals, (t) => ({
          turns: t.turns + (unit.isTurn ? 1 : 0),
          requests: t.requests + unit.requests,
          toolTokens: t.toolTokens + unit.toolTokens,
          eagerToolTokens: t.eagerToolTokens + unit.eagerToolTokens,
          inputTokens: t.inputTokens + unit.inputTokens,
          prefixTokens: t.prefixTokens + unit.prefixTokens
        })),
      totals: Ref.get(totals)
    }
  })
