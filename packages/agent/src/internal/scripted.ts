/**
 * The scripted model's reading of a conversation: which tools it searched and found, which
 * correction a tool result asked for, what a resource read returned, and the parts it answers with.
 *
 * @internal
 */
import { Disclosure, NativeDeferral } from "@tool-search/core"
import type { Prompt, Response } from "effect/ai"
import type { Plan, ReadPlan } from "../ScriptedModel.js"

/** One step of the conversation so far: a call and its result. */
export interface Step {
  readonly call?: {
    readonly name: string
    readonly params: unknown
    readonly result?: { readonly isFailure: boolean; readonly value: unknown }
  }
}

export const isSearch = (name: string): boolean => Disclosure.isMetaTool(name)

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

/** The names a search tool's answer lists (`functions`, `tools`). */
export const foundNames = (value: unknown): ReadonlyArray<string> => {
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

/** A call through the dispatcher as the call of the tool it names. */
const unwrapped = (name: string, params: unknown): { readonly name: string; readonly params: unknown } =>
  name === Disclosure.toolNames.callTool && typeof params === "object" && params !== null && "name" in params &&
    typeof params.name === "string"
    ? { name: params.name, params: "arguments" in params ? params.arguments : {} }
    : { name, params }

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
      steps.push({ call: { ...unwrapped(p.name, p.params), ...(result === undefined ? {} : { result }) } })
    }
  }
  return { steps, userText, callCount }
}
