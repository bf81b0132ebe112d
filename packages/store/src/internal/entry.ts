/**
 * What the store writes behind the requests that cause it (`WriteBehind`): audit entries, the
 * gateway's session changes, the agent's held session writes, search feedback. Each is plain data
 * with a Schema, because it may cross a boundary — written to the local journal and read back by
 * the next process — and each carries what makes writing it twice harmless (an audit entry its id;
 * a session change is a set operation).
 *
 * Text is bounded and NUL-free when an entry is made (`auditBounds`), so the journal holds what the
 * database will: a record read back is decoded, never trusted.
 *
 * @internal
 */
import { Schema } from "effect"

const Text = Schema.String
const Texts = Schema.Array(Schema.String)
const Millis = Schema.Finite
const OptionalText = Schema.NullOr(Schema.String)

const origin = {
  /** The entry's id: writing it again adds nothing. */
  id: Text,
  at: Millis,
  turnId: Text,
  sessionId: OptionalText,
  path: Texts,
  principal: OptionalText
}

/** A search: what it found and activated. */
export const Reveal = Schema.TaggedStruct("Reveal", {
  ...origin,
  tool: Text,
  query: Text,
  found: Texts,
  activated: Texts
})
export type Reveal = typeof Reveal.Type

const call = {
  ...origin,
  callId: Text,
  toolName: Text,
  toolId: OptionalText,
  source: OptionalText,
  target: OptionalText
}

/** A call about to run: its outcome, when it comes, is the `Call` with the same id. */
export const Intent = Schema.TaggedStruct("Intent", call)
export type Intent = typeof Intent.Type

/** A call and its outcome; payloads as bounded JSON text (or null when not recorded). */
export const Call = Schema.TaggedStruct("Call", {
  ...call,
  outcome: Text,
  durationMs: Millis,
  arguments: OptionalText,
  result: OptionalText
})
export type Call = typeof Call.Type

/** Entries that were lost, counted (`null`: how many is not known). */
export const Gap = Schema.TaggedStruct("Gap", {
  id: Text,
  at: Millis,
  lostFrom: Millis,
  lostUntil: Millis,
  entries: Schema.NullOr(Schema.Finite),
  reason: Text
})
export type Gap = typeof Gap.Type

/** An agent session's write that the database did not take at once (`replace`: an eviction came first). */
export const AgentPut = Schema.TaggedStruct("AgentPut", {
  namespace: Text,
  sessionId: Text,
  accumulated: Texts,
  latest: Texts,
  at: Millis,
  replace: Schema.Boolean
})
export type AgentPut = typeof AgentPut.Type

/** An agent session evicted while the database was away. */
export const AgentEvict = Schema.TaggedStruct("AgentEvict", { namespace: Text, sessionId: Text, at: Millis })
export type AgentEvict = typeof AgentEvict.Type

/** A gateway session opened (its row, keyed by the HMAC of its credential and id). */
export const SessionOpened = Schema.TaggedStruct("SessionOpened", { key: Text, at: Millis })
export type SessionOpened = typeof SessionOpened.Type

/** Tools a gateway session loaded and unloaded. */
export const SessionTools = Schema.TaggedStruct("SessionTools", {
  key: Text,
  loaded: Texts,
  unloaded: Texts,
  at: Millis
})
export type SessionTools = typeof SessionTools.Type

/** A gateway session closed by its client, or evicted. */
export const SessionClosed = Schema.TaggedStruct("SessionClosed", { key: Text, at: Millis })
export type SessionClosed = typeof SessionClosed.Type

/** Search feedback: a query found a tool that was then called successfully (`keep`: queries kept per tool). */
export const Evidence = Schema.TaggedStruct("Evidence", {
  catalog: Text,
  toolId: Text,
  query: Text,
  keep: Schema.Int,
  at: Millis
})
export type Evidence = typeof Evidence.Type

/** Search feedback forgotten: the tools left the catalog. */
export const Forget = Schema.TaggedStruct("Forget", { catalog: Text, toolIds: Texts, at: Millis })
export type Forget = typeof Forget.Type

/** Anything written behind. */
export const Entry = Schema.Union([
  Reveal,
  Intent,
  Call,
  Gap,
  AgentPut,
  AgentEvict,
  SessionOpened,
  SessionTools,
  SessionClosed,
  Evidence,
  Forget
])
export type Entry = typeof Entry.Type

/** The audit's entries. */
export type Audit = Reveal | Intent | Call | Gap

/** Whether an entry belongs to the audit trail (lost ones are counted as a gap). */
export const isAudit = (entry: Entry): entry is Audit =>
  entry._tag === "Reveal" || entry._tag === "Intent" || entry._tag === "Call" || entry._tag === "Gap"

/** What a kind of entry is called in log lines. */
export const kindOf = (entry: Entry): "audit" | "session" | "feedback" =>
  isAudit(entry) ? "audit" : entry._tag === "Evidence" || entry._tag === "Forget" ? "feedback" : "session"

/** The time an entry is about (for gaps: the span of what was lost). */
export const timeOf = (entry: Entry): number => entry.at

const decodeJson = Schema.decodeUnknownResult(Schema.fromJsonString(Entry))

/**
 * An entry as one line of JSON. Entries are plain data built by the store (their type is their
 * schema's), so encoding is `JSON.stringify`; reading one back is decoded against the schema.
 */
export const encode = (entry: Entry): string => JSON.stringify(entry)

/** A line of JSON read back (from the journal): the entry, or undefined when it is not one. */
export const decode = (json: string): Entry | undefined => {
  const result = decodeJson(json)
  return result._tag === "Success" ? result.success : undefined
}
