import { defineConfig } from "vitest/config"
import projects from "./vitest.workspace.js"

// Node 20 lacks Map.groupBy (Node 21+), which Vitest 5's reporter calls to print failed tests:
// without it a failing run crashes the reporter instead of showing the failure.
const MapWithGroupBy = Map as unknown as {
  groupBy?: <K, V>(items: Iterable<V>, key: (item: V, index: number) => K) => Map<K, Array<V>>
}
if (typeof MapWithGroupBy.groupBy !== "function") {
  MapWithGroupBy.groupBy = <K, V>(items: Iterable<V>, key: (item: V, index: number) => K) => {
    const groups = new Map<K, Array<V>>()
    let i = 0
    for (const item of items) {
      const k = key(item, i++)
      const group = groups.get(k)
      if (group === undefined) groups.set(k, [item])
      else group.push(item)
    }
    return groups
  }
}

export default defineConfig({ test: { projects } })
