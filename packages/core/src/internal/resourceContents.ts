/**
 * The resource section of the table of contents: building it from the resources that exist for an
 * agent, rendering it, and the default template around it. `TableOfContents` exposes them.
 *
 * @internal
 */
import { firstSentence } from "../CatalogTool.js"
import * as Disclosure from "../Disclosure.js"
import type * as ResourceCatalog from "../ResourceCatalog.js"
import type { NamedResource, Options, ResourceContents, ResourceTemplate } from "../TableOfContents.js"
import type * as Visibility from "../Visibility.js"

/** The default resource section. */
export const defaultTemplate: ResourceTemplate = ({ toc, tools }) => {
  const does: Readonly<Record<string, string>> = {
    [Disclosure.toolNames.sampleResources]: "shows resources (metadata and a short snippet) for a query or a uri",
    [Disclosure.toolNames.searchResources]: "ranks passages inside resources, with their offsets",
    [Disclosure.toolNames.readResource]: "reads a slice of a shown resource",
    [Disclosure.toolNames.getPrompt]: "renders a shown prompt with its arguments"
  }
  return [
    "## Resources to read",
    "Besides tools, the resources below can be read. They are grouped by kind and source;",
    `"(load first)" marks a resource listed by name, which ${Disclosure.toolNames.sampleResources} with its uri shows,`,
    "and a count stands for resources a search finds.",
    "",
    toc,
    "",
    `${tools.flatMap((t) => does[t] === undefined ? [] : [`${t} ${does[t]}`]).join("; ")}.`
  ].join("\n")
}

/** The resource table. */
export const build = (
  resources: ReadonlyArray<ResourceCatalog.Entry>,
  policy: Visibility.Visibility,
  options: Options
): ResourceContents => {
  interface Building {
    readonly kind: string
    readonly source?: string
    readonly order: number
    readonly named: Array<NamedResource>
    hidden: number
  }
  const groups = new Map<string, Building>()
  const perSource = new Map<string, number>()
  for (const resource of resources) {
    const kind = headingOf(resource.kind, "document")
    const key = `${kind}\u0000${resource.source ?? ""}`
    let group = groups.get(key)
    if (group === undefined) {
      group = {
        kind,
        ...(resource.source === undefined ? {} : { source: headingOf(resource.source, "") }),
        order: groups.size,
        named: [],
        hidden: 0
      }
      groups.set(key, group)
    }
    const named = { name: resource.name, uri: resource.uri, summary: summaryOf(resource.description, options.detail) }
    if (policy.names(resource)) {
      group.named.push(named)
    } else if (policy.kindOf(resource) !== "platform") {
      const shown = perSource.get(resource.source ?? "") ?? 0
      if (shown < options.namesPerSource) {
        perSource.set(resource.source ?? "", shown + 1)
        group.named.push(named)
      } else {
        group.hidden++
      }
    } else {
      group.hidden++
    }
  }
  const all = [...groups.values()]
  const withNames = all.filter((g) => g.named.length > 0)
  const countOnly = all.filter((g) => g.named.length === 0).sort((a, b) => b.hidden - a.hidden || a.order - b.order)
  const shown = countOnly.slice(0, Math.max(0, options.maxFoldedCategories))
  const rest = countOnly.slice(shown.length)
  return {
    groups: [...withNames, ...shown].map((g) => ({
      kind: g.kind,
      ...(g.source === undefined ? {} : { source: g.source }),
      named: g.named,
      hidden: g.hidden
    })),
    overflow: { groups: rest.length, resources: rest.reduce((n, g) => n + g.hidden, 0) }
  }
}

/** The resource table as text. */
export const render = (contents: ResourceContents): string => {
  const lines: Array<string> = []
  for (const group of contents.groups) {
    const heading = group.source === undefined || group.source === ""
      ? `[${group.kind}]`
      : `[${group.kind} · ${group.source}]`
    if (group.named.length === 0) {
      lines.push(`${heading} ${moreResources(group.hidden)}`)
      continue
    }
    lines.push(heading)
    for (const r of group.named) {
      const name = `- ${r.name} <${r.uri}> (load first)`
      lines.push(r.summary === "" ? name : `${name} — ${r.summary}`)
    }
    if (group.hidden > 0) lines.push(`- ${moreResources(group.hidden)}`)
  }
  const { groups, resources } = contents.overflow
  lines.push(...overflowLines(resources, ["resource", "resources"], groups, ["group", "groups"]))
  return lines.join("\n")
}

/** A heading from free text (a category, a kind, a source): one line, `fallback` when empty. */
export const headingOf = (category: string | undefined, fallback: string): string => {
  // a category is free text from a catalog; keep the table one line per entry
  const clean = category?.replace(/\s+/g, " ").trim() ?? ""
  return clean === "" ? fallback : clean
}

/** As much of a description as `detail` asks for. */
export const summaryOf = (description: string, detail: Disclosure.DescriptionDetail): string =>
  detail === "none"
    ? ""
    : detail === "first-sentence"
    ? firstSentence(description)
    : description.replace(/\s+/g, " ").trim()

const counted = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`

/** `(3 more tools, hidden)`: what a group does not name. Shared by both tables. */
export const moreHidden = (n: number, one: string, many: string): string =>
  `(${counted(n, `more ${one}`, `more ${many}`)}, hidden)`

/** The line after the groups for the entries of groups the table does not show; none when there are none. */
export const overflowLines = (
  entries: number,
  entry: readonly [string, string],
  groups: number,
  group: readonly [string, string]
): ReadonlyArray<string> =>
  entries > 0
    ? [
      `(${counted(entries, `more ${entry[0]}`, `more ${entry[1]}`)} in ${
        counted(groups, `other ${group[0]}`, `other ${group[1]}`)
      }, hidden)`
    ]
    : []

const moreResources = (n: number): string => moreHidden(n, "resource", "resources")

/**
 * The resource section of the system prompt: the table in `options.resourceTemplate`, naming the
 * resource tools offered; empty when no resource exists for the agent. The same in every mode.
 */
export const section = (
  resources: ReadonlyArray<ResourceCatalog.Entry>,
  policy: Visibility.Visibility,
  tools: ReadonlyArray<string>,
  options: Options
): string => {
  const contents = build(resources, policy, options)
  if (contents.groups.length === 0 && contents.overflow.resources === 0) return ""
  return options.resourceTemplate({ toc: render(contents), tools })
}
