/**
 * The scripted model's reading of a conversation: which tools it searched and found, which
 * correction a tool result asked for, what a resource read returned, and the parts it answers with.
 *
 * @internal
 */
import { Disclosure, NativeDeferral } from "@tool-search/core"
import type { Prompt, Response } from "effect/ai"
import type { Pipeline, Plan, ReadPlan } from "../ScriptedModel.js"

/** One step of the conversation so far: a call and its result. */
export interface Step {
  readonly call?: {
    readonly name: string
    readonly params: unknown
    readonly result?: { readonly isFailure: boolean; readonly value: unknown }
  }
}

/** Whether a call searched (or read resources): a meta tool other than the code tool. */
export const isSearch = (name: string): boolean =>
  Disclosure.isMetaTool(name) && name !== Disclosure.toolNames.executeCode

/** The next step of a read plan: a call, or the answer. */
export const reading = (
  plan: ReadPlan,
  lastOf: (name: string) => Step["call"]
): { readonly name: string; readonly params: unknown } | string => {
  const sampled = lastOf(Disclosure.toolNames.sampleResources)
  if (sampled?.result === undefined) {
    return { name: Disclosure.toolNames.sampleResources, params: { query: plan.topic, max: 3 } }
  }
  const resource = list(sampled.result.value, "resources").find((r) =>
    plan.kind === undefined || r["kind"] === plan.kind
  )
  if (resource === undefined || typeof resource["uri"] !== "string") return "I found no document about that."
  const searched = lastOf(Disclosure.toolNames.searchResources)
  if (searched?.result === undefined) {
    return {
      name: Disclosure.toolNames.searchResources,
      params: { query: plan.keywords, uri: resource["uri"], max: 3 }
    }
  }
  const passage = list(searched.result.value, "passages")[0]
  if (passage === undefined) return `${String(resource["name"])} does not say.`
  const read = lastOf(Disclosure.toolNames.readResource)
  if (read?.result === undefined) {
    return {
      name: Disclosure.toolNames.readResource,
      params: { uri: passage["uri"], offset: passage["offset"], length: passage["length"] }
    }
  }
  const value = read.result.value
  const text = typeof value === "object" && value !== null && "text" in value && typeof value.text === "string"
    ? value.text
    : ""
  // the model's reading of the slice: the sentences that hold the answer
  const prose = text.split("\n").filter((line) => !line.startsWith("#")).join(" ")
  const sentences = prose.split(/(?<=\.)\s+/).filter((sentence) =>
    plan.answerWords.some((w) => sentence.toLowerCase().includes(w.toLowerCase()))
  )
  return sentences.length === 0 ? `${String(resource["name"])} does not say.` : sentences.join(" ").trim()
}

/** The objects of an array field of a tool result. */
const list = (value: unknown, field: string): ReadonlyArray<Record<string, unknown>> => {
  if (typeof value !== "object" || value === null || !(field in value)) return []
  const items = (value as Record<string, unknown>)[field]
  return Array.isArray(items)
    ? items.filter((i): i is Record<string, unknown> => typeof i === "object" && i !== null)
    : []
}

export const searchParams = (tool: string, plan: Plan): unknown =>
  tool === Disclosure.toolNames.discoverTools
    ? { toolNames: plan.tool === undefined ? [] : [plan.tool] }
    : { query: plan.search }

/** The names a search tool's answer lists (`functions`, `tools`, or the members of code mode's declarations). */
export const foundNames = (value: unknown): ReadonlyArray<string> => {
  if (typeof value === "string") return declaredNames(value)
  if (typeof value !== "object" || value === null) return []
  const list = "functions" in value ? value.functions : "tools" in value ? value.tools : undefined
  if (!Array.isArray(list)) return []
  return list.flatMap((item: unknown) =>
    typeof item === "object" && item !== null && "name" in item && typeof item.name === "string" ? [item.name] : []
  )
}

/** The call a corrective message asks for: `Call ToolSearch with {"query": "select:X"}`. */
export const correction = (message: string): { readonly tool: string; readonly params: unknown } | undefined => {
  const match = /Call (\w+) with (\{.*?\})(?: to| then|,)/.exec(message)
  if (match === null) return undefined
  try {
    return { tool: match[1] as string, params: JSON.parse(match[2] as string) } // both groups matched
  } catch {
    return undefined
  }
}

export const summarize = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 120 ? `${text.slice(0, 117)}...` : text
}

export const finish = (reason: "stop" | "tool-calls"): Response.PartEncoded => ({
  type: "finish",
  reason,
  usage: { inputTokens: {}, outputTokens: {} }
})

/** The tool names the tool results of `prompt` reference (`NativeDeferral.references`). */
export const referenced = (prompt: Prompt.Prompt): ReadonlyArray<string> =>
  prompt.content.flatMap((m) =>
    m.role === "tool" ? m.content.flatMap((p) => p.type === "tool-result" ? NativeDeferral.referencesOf(p) : []) : []
  )

/**
 * A call through the dispatcher as the call of the tool it names; a program of one call (what
 * `program` writes for a single call) as that call. Anything else passes unchanged.
 */
const unwrapped = (name: string, params: unknown): { readonly name: string; readonly params: unknown } => {
  if (typeof params !== "object" || params === null) return { name, params }
  if (name === Disclosure.toolNames.callTool && "name" in params && typeof params.name === "string") {
    return { name: params.name, params: "arguments" in params ? params.arguments : {} }
  }
  if (name === Disclosure.toolNames.executeCode && "code" in params && typeof params.code === "string") {
    const single = ONE_CALL.exec(params.code)
    if (single !== null) {
      try {
        return { name: JSON.parse(single[1] as string) as string, params: JSON.parse(single[2] as string) }
      } catch {
        return { name, params }
      }
    }
  }
  return { name, params }
}

/** A program's answer (`{result, logs}` or `{error, logs}`) as what the call it stands for returned. */
const programValue = (value: unknown): unknown =>
  typeof value !== "object" || value === null
    ? value
    : "result" in value
    ? value.result
    : "error" in value
    ? value.error
    : value

/** The program of one call, as `program` writes it. */
const ONE_CALL = /^return await tools\[("(?:[^"\\]|\\.)*")\]\((.*)\)$/s

// -----------------------------------------------------------------------------
// Code mode
// -----------------------------------------------------------------------------

/** A program that makes one call and returns its result. */
export const program = (tool: string, params: unknown): string =>
  `return await tools[${JSON.stringify(tool)}](${JSON.stringify(params ?? {})})`

/** The members `interface Tools` declares (code mode's `ToolSearch` answer). */
const declaredNames = (text: string): ReadonlyArray<string> =>
  [...text.matchAll(/^ {2}(?:("(?:[^"\\]|\\.)*")|([A-Za-z_$][\w$]*))\(args\??:/gm)].flatMap((m) => {
    if (m[2] !== undefined) return [m[2]]
    try {
      return [JSON.parse(m[1] as string) as string]
    } catch {
      return []
    }
  })

// -----------------------------------------------------------------------------
// Pipelines: list many records, keep a few, act on each
// -----------------------------------------------------------------------------

/** The records a pipeline acts on, out of every record its listing returned. */
export const select = (pipeline: Pipeline, records: ReadonlyArray<Readonly<Record<string, unknown>>>) =>
  records
    .filter((r) => Object.entries(pipeline.where).every(([k, v]) => r[k] === v))
    .sort((a, b) => Number(b[pipeline.largest]) - Number(a[pipeline.largest]))
    .slice(0, pipeline.take)

/** The arguments of the act call for one record. */
export const actParams = (pipeline: Pipeline, record: Readonly<Record<string, unknown>>) => ({
  ...pipeline.act.params,
  ...Object.fromEntries(Object.entries(pipeline.act.from).map(([param, field]) => [param, record[field]]))
})

/** What names a record in the answer: the field its first act parameter comes from. */
export const labelOf = (pipeline: Pipeline, record: Readonly<Record<string, unknown>>): string =>
  String(record[Object.values(pipeline.act.from)[0] ?? "id"])

/** The program that runs a whole pipeline: every page, the selection, the act calls; returns the labels. */
export const pipelineProgram = (pipeline: Pipeline): string => {
  const { cursor, items, tool } = pipeline.list
  const { act } = pipeline
  const label = Object.values(act.from)[0] ?? "id"
  const from = Object.entries(act.from).map(([param, field]) => `${JSON.stringify(param)}: r[${JSON.stringify(field)}]`)
  return [
    "const records = []",
    "let cursor = null",
    "do {",
    `  const page = await tools[${JSON.stringify(tool)}]({ ...${JSON.stringify(pipeline.list.params ?? {})}${
      cursor === undefined ? "" : `, ...(cursor === null ? {} : { ${JSON.stringify(cursor.param)}: cursor })`
    } })`,
    `  records.push(...page[${JSON.stringify(items)}])`,
    cursor === undefined ? "  cursor = null" : `  cursor = page[${JSON.stringify(cursor.next)}] ?? null`,
    "} while (cursor !== null)",
    `const where = ${JSON.stringify(pipeline.where)}`,
    "const chosen = records",
    "  .filter((r) => Object.entries(where).every(([k, v]) => r[k] === v))",
    `  .sort((a, b) => b[${JSON.stringify(pipeline.largest)}] - a[${JSON.stringify(pipeline.largest)}])`,
    `  .slice(0, ${pipeline.take})`,
    `await Promise.all(chosen.map((r) => tools[${JSON.stringify(act.tool)}]({ ...${JSON.stringify(act.params ?? {})}, ${
      from.join(", ")
    } })))`,
    `console.log("kept", chosen.length, "of", records.length)`,
    `return chosen.map((r) => r[${JSON.stringify(label)}])`
  ].join("\n")
}

/** The records of one listing result (its `items` field). */
export const recordsOf = (pipeline: Pipeline, value: unknown): ReadonlyArray<Readonly<Record<string, unknown>>> =>
  list(value, pipeline.list.items)

/** The cursor of the next page a listing result names, if any. */
export const nextCursor = (pipeline: Pipeline, value: unknown): string | undefined => {
  const field = pipeline.list.cursor?.next
  if (field === undefined || typeof value !== "object" || value === null) return undefined
  const next = (value as Record<string, unknown>)[field]
  return typeof next === "string" && next !== "" ? next : undefined
}

/** The steps taken since the last user message (dispatched calls as the calls they stand for), that message's text, and the calls so far. */
export const readPrompt = (prompt: Prompt.Prompt) => {
  let lastUser = -1
  prompt.content.forEach((m, i) => {
    if (m.role === "user") lastUser = i
  })
  const user = prompt.content[lastUser]
  const userText = user?.role === "user"
    ? user.content.flatMap((p) => p.type === "text" ? [p.text] : []).join("\n")
    : ""
  const results = new Map<string, { isFailure: boolean; value: unknown }>()
  let callCount = 0
  for (const m of prompt.content) {
    if (m.role === "assistant") callCount += m.content.filter((p) => p.type === "tool-call").length
    if (m.role === "tool") {
      for (const p of m.content) {
        if (p.type === "tool-result") results.set(p.id, { isFailure: p.isFailure, value: p.result })
      }
    }
  }
  const steps: Array<Step> = []
  for (const m of prompt.content.slice(lastUser + 1)) {
    if (m.role !== "assistant") continue
    for (const p of m.content) {
      if (p.type !== "tool-call") continue
      const result = results.get(p.id)
      const call = unwrapped(p.name, p.params)
      // a program of one call answers with what that call returned
      const value = result === undefined || call.name === p.name || p.name !== Disclosure.toolNames.executeCode
        ? result
        : { isFailure: result.isFailure, value: programValue(result.value) }
      steps.push({ call: { ...call, ...(value === undefined ? {} : { result: value }) } })
    }
  }
  return { steps, userText, callCount }
}
