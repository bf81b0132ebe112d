/**
 * The tool section of the table of contents: building it from the deferred tools that exist for
 * an agent, rendering it, and its default template. `TableOfContents` exposes them.
 *
 * @internal
 */
import * as Disclosure from "../Disclosure.js"
import type { Contents, Named, Options, Template } from "../TableOfContents.js"
import type { Entry } from "../ToolCatalog.js"
import type * as Visibility from "../Visibility.js"
import * as Deferral from "./deferral.js"
import { headingOf, moreHidden, overflowLines, summaryOf } from "./resourceContents.js"

/** The tool table. */
export const build = (
  tools: ReadonlyArray<Entry>,
  policy: Visibility.Visibility,
  options: Options
): Contents => {
  const groups = new Map<string, { named: Array<Named>; hidden: number; order: number }>()
  const perSource = new Map<string, number>()
  for (const tool of tools) {
    const category = headingOf(tool.category, options.uncategorized)
    const group = groups.get(category) ?? { named: [], hidden: 0, order: groups.size }
    groups.set(category, group)
    const kind = policy.kindOf(tool)
    if (policy.names(tool)) {
      group.named.push(namedOf(tool, kind, options))
    } else if (kind !== "platform") {
      // a tool without source cannot be connected, but keep the key total for the type
      const key = tool.source ?? ""
      const shown = perSource.get(key) ?? 0
      if (shown < options.namesPerSource) {
        perSource.set(key, shown + 1)
        group.named.push(namedOf(tool, kind, options))
      } else {
        group.hidden++
      }
    } else {
      group.hidden++
    }
  }
  const all = [...groups.entries()].map(([category, g]) => ({ category, ...g }))
  const withNames = all.filter((g) => g.named.length > 0).sort((a, b) => a.order - b.order)
  const countOnly = all.filter((g) => g.named.length === 0)
    .sort((a, b) => b.hidden - a.hidden || a.category.localeCompare(b.category))
  const shownCounts = countOnly.slice(0, Math.max(0, options.maxFoldedCategories))
  const rest = countOnly.slice(shownCounts.length)
  return {
    groups: [...withNames, ...shownCounts].map((g) => ({ category: g.category, named: g.named, hidden: g.hidden })),
    overflow: { categories: rest.length, tools: rest.reduce((n, g) => n + g.hidden, 0) }
  }
}

/** The tool table as text. */
export const render = (contents: Contents): string => {
  const lines: Array<string> = []
  for (const group of contents.groups) {
    if (group.named.length === 0) {
      lines.push(`[${group.category}] ${moreTools(group.hidden)}`)
      continue
    }
    lines.push(`[${group.category}]`)
    for (const t of group.named) {
      lines.push(t.summary === "" ? `- ${t.name} (load first)` : `- ${t.name} (load first) — ${t.summary}`)
    }
    if (group.hidden > 0) lines.push(`- ${moreTools(group.hidden)}`)
  }
  const { categories, tools } = contents.overflow
  lines.push(...overflowLines(tools, ["tool", "tools"], categories, ["category", "categories"]))
  return lines.join("\n")
}

const namedOf = (tool: Entry, kind: Visibility.CatalogKind, options: Options): Named => ({
  name: tool.modelName,
  summary: summaryOf(tool.description, options.detail),
  kind,
  ...(tool.source === undefined ? {} : { source: tool.source })
})

const moreTools = (n: number): string => moreHidden(n, "tool", "tools")

/** The default section: the table, then what the search tools do. Descriptive, never imperative. */
export const defaultTemplate: Template = ({ searchTools, toc }) =>
  [
    "## Tools to load",
    "Besides the tools you have now, the tools below can be loaded. They are grouped by category;",
    "\"(load first)\" marks a tool you can load by name, and a count stands for tools a search finds.",
    "",
    toc,
    "",
    searchTools
      ? `${Disclosure.toolNames.searchTools} lists candidate tools (name, category, summary) without loading them. ` +
        `${Disclosure.toolNames.toolSearch} loads tools by keywords or by exact names ("select:name1,name2"); ` +
        "a loaded tool can be called from the next step."
      : `${Disclosure.toolNames.toolSearch} finds and loads tools by keywords or by exact names ("select:name1,name2"); ` +
        "a loaded tool can be called from the next step."
  ].join("\n")

/**
 * The system-prompt section of `staged` disclosure: the table of the searchable tools in
 * `options.template`; empty when it lists nothing.
 */
export const section = (
  tools: ReadonlyArray<Entry>,
  policy: Visibility.Visibility,
  disclosure: Disclosure.Options,
  options: Options
): string => {
  const contents = build(tools, policy, options)
  if (contents.groups.length === 0 && contents.overflow.tools === 0) return ""
  return options.template({
    toc: render(contents),
    searchTools: Deferral.offersSearchTools(disclosure, tools.length)
  })
}
