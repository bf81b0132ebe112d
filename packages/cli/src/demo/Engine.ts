/**
 * The demo's fake handler engine. A tool's answer is chosen by the verb of its name (`create_*`
 * makes a record, `list_*` finds two or three, `get_*` describes one, `update_*`, `delete_*`,
 * anything else is an action) and derived from the call's parameters, unless `Answers` has a
 * hand-written one. A call whose parameters do not match the tool's schema fails with a message
 * naming the problem (`Parameters`).
 *
 * @since 0.2.0
 */
import { CatalogTool } from "@tool-search/core"
import { Effect, Predicate } from "effect"
import * as Parameters from "./Parameters.js"
import { canonical, DEMO_NOW, type Params, pick, tag } from "./Stable.js"

/** What the generic handler does, chosen by the verb of the tool name. */
type Kind = "create" | "list" | "get" | "update" | "delete" | "action"

const VERBS: Readonly<Record<string, Kind>> = {
  send: "create",
  create: "create",
  add: "create",
  post: "create",
  upload: "create",
  invite: "create",
  schedule: "create",
  book: "create",
  submit: "create",
  reply: "create",
  forward: "create",
  draft: "create",
  start: "create",
  copy: "create",
  share: "create",
  trigger: "create",
  request: "create",
  log: "create",
  enroll: "create",
  fork: "create",
  commit: "create",
  refund: "create",
  save: "create",
  subscribe: "create",
  import: "create",
  export: "create",
  charge: "create",
  open: "create",
  record: "create",
  list: "list",
  search: "list",
  find: "list",
  autocomplete: "list",
  get: "get",
  describe: "get",
  download: "get",
  check: "get",
  compare: "get",
  explain: "get",
  lookup: "get",
  preview: "get",
  estimate: "get",
  geocode: "get",
  reverse: "get",
  update: "update",
  edit: "update",
  set: "update",
  rename: "update",
  move: "update",
  assign: "update",
  archive: "update",
  close: "update",
  resolve: "update",
  acknowledge: "update",
  snooze: "update",
  pin: "update",
  mark: "update",
  approve: "update",
  reject: "update",
  merge: "update",
  restore: "update",
  cancel: "update",
  respond: "update",
  transition: "update",
  link: "update",
  lock: "update",
  unlock: "update",
  grant: "update",
  void: "update",
  apply: "update",
  watch: "update",
  offboard: "update",
  rerun: "update",
  mute: "update",
  delete: "delete",
  remove: "delete",
  drop: "delete",
  revoke: "delete",
  unsubscribe: "delete",
  empty: "delete"
}

/** What a creating verb makes when it is not the record it names (`refund_payment` makes a refund). */
const CREATES: Readonly<Record<string, string>> = {
  refund: "refund",
  share: "permission",
  charge: "payment",
  export: "export",
  import: "import",
  trigger: "run",
  reply: "message",
  forward: "message",
  invite: "invitation",
  subscribe: "subscription",
  enroll: "enrollment",
  book: "booking",
  commit: "commit",
  fork: "repository",
  copy: "file"
}

const PREPOSITIONS = new Set(["to", "from", "as", "in", "for", "of", "by", "on", "into", "with"])
const INVARIANT = new Set(["status", "analysis", "alias", "news", "series", "access", "address", "settings"])

const singular = (word: string): string => {
  if (INVARIANT.has(word) || word.endsWith("ss")) return word
  if (word.endsWith("ies")) return `${word.slice(0, -3)}y`
  if (/(ches|shes|xes|sses)$/.test(word)) return word.slice(0, -2)
  return word.endsWith("s") ? word.slice(0, -1) : word
}

const verbOf = (name: string): string => name.split("_")[0] ?? name

/** The record a tool acts on: the words after its verb, prepositions dropped, in the singular. */
const nounOf = (name: string, fallback: string): string => {
  const words = name.split("_").slice(1).filter((w) => !PREPOSITIONS.has(w))
  const last = words.pop()
  return last === undefined ? fallback : [...words, singular(last)].join("_")
}

const humanize = (noun: string): string => {
  const text = noun.replace(/_/g, " ")
  return text.charAt(0).toUpperCase() + text.slice(1)
}

/** The first parameter that names an existing record (`id`, `*_id`, `key`, `number`, ...). */
const targetKeyOf = (params: Params): string | undefined =>
  Object.keys(params).find((k) => /^(id|key|number|sha|path|name)$|_(id|key|ids)$/.test(k))

const PAGING = new Set(["limit", "cursor", "query"])

/** Two or three records, as a list or search would find them; `limit` caps the count. */
const sampleItems = (tool: string, noun: string, params: Params): ReadonlyArray<Params> => {
  const wanted = pick(`${tool}${canonical(params)}`, 2, 3)
  const cap = typeof params["limit"] === "number" ? params["limit"] : wanted
  const filters = Object.fromEntries(
    Object.entries(params).filter(([k, v]) => !PAGING.has(k) && (typeof v === "string" || typeof v === "boolean"))
  )
  const query = typeof params["query"] === "string" ? params["query"] : undefined
  return Array.from({ length: Math.max(0, Math.min(wanted, cap)) }, (_, i) => ({
    id: `${noun}_${tag(tool, params, i)}`,
    name: query === undefined ? `${humanize(noun)} ${i + 1}` : `${humanize(noun)} ${i + 1} about "${query}"`,
    ...filters,
    updated_at: `2025-05-${String(28 - i * 3).padStart(2, "0")}T14:0${i}:00Z`
  }))
}

/** The generic answer of a tool, chosen by the kind of its verb. */
const genericAnswer = (tool: string, op: string, item: string, params: Params): unknown => {
  const verb = verbOf(op)
  const noun = nounOf(op, item)
  const targetKey = targetKeyOf(params)
  const target = targetKey === undefined ? `${noun}_${tag(tool, params)}` : params[targetKey]
  const changed = Object.keys(params).filter((k) => k !== targetKey)
  const kind = VERBS[verb] ?? "action"
  const made = CREATES[verb]
  if (kind === "create" && made === undefined && params[`${noun}_id`] !== undefined) {
    // `send_invoice(invoice_id)` acts on an invoice that exists rather than creating one.
    return { ok: true, id: params[`${noun}_id`], action: verb, ...params, done_at: DEMO_NOW }
  }
  switch (kind) {
    case "create":
      return { ok: true, id: `${made ?? noun}_${tag(tool, params)}`, ...params, created_at: DEMO_NOW }
    case "list": {
      const items = sampleItems(tool, noun, params)
      return { items, count: items.length, next_cursor: null }
    }
    case "get":
      return {
        id: target,
        kind: noun,
        title: `${humanize(noun)} ${String(target)}`,
        ...params,
        created_at: "2025-01-20T08:15:00Z",
        updated_at: DEMO_NOW
      }
    case "update":
      return { ok: true, id: target, action: verb, changed, updated_at: DEMO_NOW }
    case "delete":
      return { ok: true, id: target, deleted: true }
    case "action":
      return { ok: true, action: verb, ...params, done_at: DEMO_NOW }
  }
}

/**
 * The handler of a demo tool: checks the parameters, then answers with `respond` when given, else
 * with the generic answer of the tool's verb. `op` is the tool name without its service prefix.
 *
 * @since 0.2.0
 * @category handlers
 */
export const handler = (
  tool: string,
  op: string,
  item: string,
  parameters: Parameters.ObjectSchema,
  respond?: (params: Params) => unknown
): CatalogTool.Handler => {
  const check = Parameters.checker(parameters)
  return CatalogTool.handler(tool, (raw) => {
    // Models often send no arguments at all for a tool without required parameters.
    if (raw !== undefined && raw !== null && !Predicate.isObject(raw)) {
      return Effect.fail("parameters must be a JSON object")
    }
    const params: Params = Predicate.isObject(raw) ? raw : {}
    const problem = check(params)
    if (problem !== undefined) return Effect.fail(problem)
    return Effect.succeed(respond === undefined ? genericAnswer(tool, op, item, params) : respond(params))
  })
}

/**
 * What a tool's verb says about it: read-only, destructive, idempotent.
 *
 * @since 0.2.0
 * @category handlers
 */
export const annotations = (op: string): CatalogTool.Annotations => {
  const kind = VERBS[verbOf(op)] ?? "action"
  return {
    readOnly: kind === "list" || kind === "get",
    destructive: kind === "delete",
    idempotent: kind !== "create" && kind !== "action"
  }
}
