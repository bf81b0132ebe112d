/**
 * The demo catalog: a few hundred invented tools from fifteen made-up services (chat, code hosting,
 * tickets, calendar, email, storage, CRM, billing, monitoring, databases, docs, HR, maps, weather,
 * translation) plus the agent's own workspace tools, so `npm start` can show progressive disclosure
 * on a catalog as large as a real agent's.
 *
 * Every text here was written for this project. Each tool has a fake handler that is a pure function
 * of its parameters (no randomness, no I/O, no clock): the same call always answers the same JSON,
 * so the demo and its tests are reproducible. Handlers check their parameters against the tool's
 * schema (required, type, enum, unknown names) and answer a bad call with an error naming the problem.
 *
 * @since 0.1.0
 */
import { CatalogTool } from "@tool-search/core"
import type { JsonSchema } from "effect"
import { Effect } from "effect"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/** A service of the demo catalog: the `source` of its tools. */
export interface Service {
  readonly id: string
  readonly title: string
  readonly description: string
}

/** The instant the demo's clock is stopped at, so time-dependent answers never change. */
export const DEMO_NOW = "2025-06-02T09:30:00Z"

type Schema = JsonSchema.JsonSchema
type Properties = Readonly<Record<string, Schema>>
type Params = Readonly<Record<string, unknown>>

/** What the generic handler does, chosen by the verb of the tool name. */
type Kind = "create" | "list" | "get" | "update" | "delete" | "action"

interface Op {
  /** The tool name without the service prefix; its first word is the verb. */
  readonly name: string
  readonly description: string
  readonly properties: Properties
  readonly required: ReadonlyArray<string>
  readonly loading?: CatalogTool.Loading
  /** A hand-written answer, for the tools the demo conversation shows. */
  readonly respond?: (params: Params) => unknown
}

interface ServiceSpec extends Service {
  /** The category word of every tool of the service. */
  readonly category: string
  /** Prepended to op names; the workspace tools have none, like an agent's built-ins. */
  readonly prefix: string
  /** What the service's records are called, when a tool name has no noun. */
  readonly item: string
  readonly ops: ReadonlyArray<Op>
}

// -----------------------------------------------------------------------------
// Declaration helpers
// -----------------------------------------------------------------------------

const str = (description: string): Schema => ({ type: "string", description })
const int = (description: string, minimum?: number, maximum?: number): Schema => ({
  type: "integer",
  description,
  ...(minimum === undefined ? {} : { minimum }),
  ...(maximum === undefined ? {} : { maximum })
})
const num = (description: string): Schema => ({ type: "number", description })
const bool = (description: string): Schema => ({ type: "boolean", description })
const enumOf = (values: ReadonlyArray<string>, description: string): Schema => ({
  type: "string",
  enum: values,
  description
})
const arr = (items: Schema, description: string): Schema => ({ type: "array", items, description })
const strs = (description: string): Schema => arr({ type: "string" }, description)
const obj = (properties: Properties, description: string, required: ReadonlyArray<string> = []): Schema => ({
  type: "object",
  description,
  properties,
  ...(required.length === 0 ? {} : { required })
})

const limit = int("How many results to return at most (default 20).", 1, 100)
const cursor = str("The next_cursor of a previous page, to continue listing.")
const date = (what: string) => str(`${what}, as an ISO 8601 date (YYYY-MM-DD).`)
const time = (what: string) => str(`${what}, as an ISO 8601 date-time.`)

/**
 * Declares one tool of a service. `required` is checked against the property names at compile
 * time, so a typo there is a type error rather than a tool no call can satisfy.
 */
const op = <const P extends Properties>(
  name: string,
  description: string,
  properties: P,
  required: ReadonlyArray<keyof P & string> = [],
  extra: { readonly loading?: CatalogTool.Loading; readonly respond?: (params: Params) => unknown } = {}
): Op => ({ name, description, properties, required, ...extra })

// -----------------------------------------------------------------------------
// Fake handlers
// -----------------------------------------------------------------------------

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

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** JSON with sorted keys, so `{a, b}` and `{b, a}` hash alike. */
const canonical = (u: unknown): string => {
  if (Array.isArray(u)) return `[${u.map(canonical).join(",")}]`
  if (isRecord(u)) {
    return `{${Object.keys(u).sort().map((k) => `${JSON.stringify(k)}:${canonical(u[k])}`).join(",")}}`
  }
  return JSON.stringify(u) ?? "null"
}

/** A stable 8-hex-digit tag of a call, for fake ids. */
const tag = (...parts: ReadonlyArray<unknown>): string => CatalogTool.hash(canonical(parts))

/** A stable number in [min, max] derived from a seed. */
const pick = (seed: string, min: number, max: number): number =>
  min + (parseInt(CatalogTool.hash(seed).slice(0, 6), 16) % (max - min + 1))

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

const typeMatches = (schema: Schema, value: unknown): boolean => {
  switch (schema["type"]) {
    case "string":
      return typeof value === "string"
    case "integer":
      return typeof value === "number" && Number.isInteger(value)
    case "number":
      return typeof value === "number" && Number.isFinite(value)
    case "boolean":
      return typeof value === "boolean"
    case "array":
      return Array.isArray(value)
    case "object":
      return isRecord(value)
    default:
      return true
  }
}

/** What is wrong with a call's parameters, written for the model, or `undefined` when nothing is. */
const problemWith = (op: Op, params: Params): string | undefined => {
  const names = Object.keys(op.properties)
  for (const key of Object.keys(params)) {
    if (!(key in op.properties)) {
      return names.length === 0
        ? `unknown parameter '${key}': this tool takes no parameters`
        : `unknown parameter '${key}' (expected: ${names.join(", ")})`
    }
  }
  for (const key of op.required) {
    if (params[key] === undefined) return `missing required parameter '${key}'`
  }
  for (const [key, value] of Object.entries(params)) {
    const schema = op.properties[key]
    if (schema === undefined || value === undefined) continue
    if (!typeMatches(schema, value)) return `parameter '${key}' must be of type ${String(schema["type"])}`
    const allowed = schema["enum"]
    if (Array.isArray(allowed) && !allowed.includes(value)) {
      return `parameter '${key}' must be one of: ${allowed.map(String).join(", ")}`
    }
    const min = schema["minimum"]
    const max = schema["maximum"]
    if (typeof value === "number" && typeof min === "number" && value < min) {
      return `parameter '${key}' must be at least ${min}`
    }
    if (typeof value === "number" && typeof max === "number" && value > max) {
      return `parameter '${key}' must be at most ${max}`
    }
  }
  return undefined
}

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
const genericAnswer = (tool: string, op: Op, item: string, params: Params): unknown => {
  const verb = verbOf(op.name)
  const noun = nounOf(op.name, item)
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

const handlerOf = (tool: string, op: Op, item: string): CatalogTool.Handler =>
  CatalogTool.handler(tool, (raw) => {
    // Models often send no arguments at all for a tool without required parameters.
    if (raw !== undefined && raw !== null && !isRecord(raw)) {
      return Effect.fail("parameters must be a JSON object")
    }
    const params: Params = isRecord(raw) ? raw : {}
    const problem = problemWith(op, params)
    if (problem !== undefined) return Effect.fail(problem)
    return Effect.succeed(op.respond === undefined ? genericAnswer(tool, op, item, params) : op.respond(params))
  })

const annotationsOf = (op: Op): CatalogTool.Annotations => {
  const kind = VERBS[verbOf(op.name)] ?? "action"
  return {
    readOnly: kind === "list" || kind === "get",
    destructive: kind === "delete",
    idempotent: kind !== "create" && kind !== "action"
  }
}

const build = (spec: ServiceSpec): ReadonlyArray<CatalogTool.CatalogTool> =>
  spec.ops.map((op) => {
    const name = `${spec.prefix}${op.name}`
    return CatalogTool.make({
      name,
      description: op.description,
      parameters: {
        type: "object",
        properties: op.properties,
        ...(op.required.length === 0 ? {} : { required: op.required })
      },
      loading: op.loading ?? "deferred",
      category: spec.category,
      source: spec.id,
      annotations: annotationsOf(op),
      handler: handlerOf(name, op, spec.item)
    })
  })

// Helpers of the hand-written answers.
const text = (params: Params, key: string, fallback = ""): string => {
  const value = params[key]
  return typeof value === "string" ? value : fallback
}
const count = (params: Params, key: string, fallback: number): number => {
  const value = params[key]
  return typeof value === "number" ? value : fallback
}
const coordinates = (place: string) => ({
  lat: pick(`lat${place}`, -6000, 6000) / 100,
  lng: pick(`lng${place}`, -18000, 18000) / 100
})
const CONDITIONS = ["clear", "partly cloudy", "overcast", "light rain", "showers", "thunderstorms", "fog"]

// -----------------------------------------------------------------------------
// The services
// -----------------------------------------------------------------------------

const workspace: ServiceSpec = {
  id: "workspace",
  title: "Workspace",
  description: "The agent's own working folder and clock: always available, never searched for.",
  category: "workspace",
  prefix: "",
  item: "file",
  ops: [
    op(
      "read_file",
      "Read a text file from the agent's workspace and return its contents. Long files can be read in slices with offset and limit (line numbers).",
      {
        path: str("Path of the file, relative to the workspace root."),
        offset: int("First line to return (1-based).", 1),
        limit: int("How many lines to return.", 1)
      },
      ["path"],
      {
        loading: "eager",
        respond: (p) => ({
          path: text(p, "path"),
          content: `# ${text(p, "path")}\n\nDemo content of this file.\n`,
          lines: 3
        })
      }
    ),
    op(
      "write_file",
      "Write text to a workspace file, creating it or replacing its whole content.",
      { path: str("Path of the file, relative to the workspace root."), content: str("The complete new content.") },
      ["path", "content"],
      { loading: "eager", respond: (p) => ({ ok: true, path: text(p, "path"), bytes: text(p, "content").length }) }
    ),
    op(
      "edit_file",
      "Replace one exact passage of a workspace file with new text. Fails when the passage is missing or occurs more than once.",
      {
        path: str("Path of the file, relative to the workspace root."),
        old_text: str("The passage to replace, exactly as it appears."),
        new_text: str("The replacement text.")
      },
      ["path", "old_text", "new_text"],
      { loading: "eager", respond: (p) => ({ ok: true, path: text(p, "path"), replacements: 1 }) }
    ),
    op(
      "list_files",
      "List the files and folders under a workspace directory.",
      {
        path: str("Directory to list (default: the workspace root)."),
        recursive: bool("Also list the content of sub-folders.")
      },
      [],
      {
        loading: "eager",
        respond: (p) => {
          const dir = text(p, "path", ".")
          return {
            path: dir,
            entries: ["README.md", "notes.md", "data/"].map((e) => (dir === "." ? e : `${dir}/${e}`))
          }
        }
      }
    ),
    op(
      "get_current_time",
      "Return the current date and time, in UTC or in a given IANA time zone.",
      { timezone: str("An IANA time zone such as Europe/Paris (default UTC).") },
      [],
      { loading: "eager", respond: (p) => ({ now: DEMO_NOW, timezone: text(p, "timezone", "UTC"), weekday: "Monday" }) }
    )
  ]
}

const chat: ServiceSpec = {
  id: "chat",
  title: "Chat",
  description: "Team chat: channels, threads, direct messages, reactions and reminders.",
  category: "messaging",
  prefix: "chat_",
  item: "message",
  ops: [
    op(
      "send_message",
      "Send a message to a chat channel, posted as the bot user. Markdown and @-mentions are rendered; pass thread_id to answer inside a thread instead.",
      {
        channel: str("Channel name (#ops) or channel id."),
        text: str("The message body, Markdown allowed."),
        thread_id: str("Id of the parent message, to post in its thread.")
      },
      ["channel", "text"]
    ),
    op(
      "send_direct_message",
      "Write privately to one workspace member, in a one-to-one conversation that is opened if none exists yet.",
      { user: str("User id, @handle or e-mail of the recipient."), text: str("The message body.") },
      ["user", "text"]
    ),
    op(
      "reply_in_thread",
      "Answer a message in its thread, leaving the channel itself untouched. Set also_post_to_channel to echo the reply in the channel.",
      {
        channel: str("Channel of the parent message."),
        message_id: str("Id of the parent message."),
        text: str("The reply."),
        also_post_to_channel: bool("Echo the reply in the channel too.")
      },
      ["channel", "message_id", "text"]
    ),
    op(
      "edit_message",
      "Change the text of a message the bot posted earlier. Other users' messages cannot be edited.",
      { channel: str("Channel of the message."), message_id: str("Id of the message."), text: str("The new text.") },
      ["channel", "message_id", "text"]
    ),
    op(
      "delete_message",
      "Delete a message the bot posted. Replies in its thread stay visible.",
      { channel: str("Channel of the message."), message_id: str("Id of the message.") },
      ["channel", "message_id"]
    ),
    op(
      "list_channels",
      "List the chat channels the bot can see, with topic and member count.",
      {
        types: enumOf(["public", "private", "all"], "Which channels to include (default public)."),
        include_archived: bool("Include archived channels."),
        limit,
        cursor
      }
    ),
    op(
      "get_channel",
      "Show one channel's details: topic, purpose, creator, member count and whether it is archived.",
      { channel: str("Channel name or id.") },
      ["channel"]
    ),
    op(
      "create_channel",
      "Create a new chat channel. Names are lower case, without spaces, at most 80 characters.",
      {
        name: str("Channel name without the leading #."),
        is_private: bool("Create an invite-only channel."),
        topic: str("Initial topic line.")
      },
      ["name"]
    ),
    op(
      "archive_channel",
      "Archive a channel: it becomes read-only and leaves the channel list, but its history is kept.",
      { channel: str("Channel name or id.") },
      ["channel"]
    ),
    op(
      "set_channel_topic",
      "Set the topic line shown at the top of a channel.",
      { channel: str("Channel name or id."), topic: str("The new topic, at most 250 characters.") },
      ["channel", "topic"]
    ),
    op(
      "invite_to_channel",
      "Add one or more members to a channel. Members already in it are skipped.",
      { channel: str("Channel name or id."), users: strs("User ids or @handles to add.") },
      ["channel", "users"]
    ),
    op(
      "remove_from_channel",
      "Take a member out of a channel. They keep access to public channels' history.",
      { channel: str("Channel name or id."), user: str("User id or @handle.") },
      ["channel", "user"]
    ),
    op("list_channel_members", "List who is in a channel.", { channel: str("Channel name or id."), limit, cursor }, [
      "channel"
    ]),
    op(
      "list_messages",
      "Read the recent messages of a channel, newest first. Use oldest/latest to page through a time window.",
      {
        channel: str("Channel name or id."),
        oldest: time("Only messages after this instant"),
        latest: time("Only messages before this instant"),
        limit
      },
      ["channel"]
    ),
    op(
      "search_messages",
      "Search chat history across every channel the bot is in. Matches words in the text; filter by channel, author or date.",
      {
        query: str("Words to look for."),
        channel: str("Restrict to one channel."),
        from_user: str("Restrict to one author."),
        after: date("Only messages on or after"),
        limit
      },
      ["query"]
    ),
    op(
      "add_reaction",
      "React to a message with an emoji.",
      {
        channel: str("Channel of the message."),
        message_id: str("Id of the message."),
        emoji: str("Emoji name without colons, e.g. thumbsup.")
      },
      ["channel", "message_id", "emoji"]
    ),
    op(
      "pin_message",
      "Pin a message to its channel so it shows in the channel's pinned list.",
      { channel: str("Channel of the message."), message_id: str("Id of the message.") },
      ["channel", "message_id"]
    ),
    op("list_pinned_messages", "List the messages pinned in a channel.", { channel: str("Channel name or id.") }, [
      "channel"
    ]),
    op(
      "upload_file",
      "Share a file in a chat channel, with an optional comment. Text content only in this demo.",
      {
        channel: str("Channel name or id."),
        filename: str("Name shown for the file."),
        content: str("The file's text content."),
        comment: str("A message posted with the file.")
      },
      ["channel", "filename", "content"]
    ),
    op(
      "list_users",
      "List the members of the chat workspace with their display names and time zones.",
      { include_bots: bool("Also list bot users."), limit, cursor }
    ),
    op("lookup_user_by_email", "Find the chat account that belongs to an e-mail address.", {
      email: str("The e-mail address.")
    }, ["email"]),
    op(
      "set_status",
      "Set the bot's status text and emoji, optionally until a given time.",
      {
        text: str("Status text, e.g. 'Deploying'."),
        emoji: str("Emoji name without colons."),
        expires_at: time("When the status clears")
      },
      ["text"]
    ),
    op(
      "schedule_message",
      "Queue a channel message to be posted later at a given time.",
      { channel: str("Channel name or id."), text: str("The message body."), post_at: time("When to post it") },
      ["channel", "text", "post_at"]
    ),
    op(
      "create_reminder",
      "Remind a member (the bot by default) about something at a given time, by a private chat message.",
      {
        text: str("What to remind about."),
        remind_at: time("When to send the reminder"),
        user: str("Who to remind (default: the bot).")
      },
      ["text", "remind_at"]
    )
  ]
}

const code: ServiceSpec = {
  id: "code",
  title: "Code hosting",
  description: "Git repositories, branches, pull requests, issues and CI workflows.",
  category: "development",
  prefix: "code_",
  item: "repository",
  ops: [
    op(
      "list_repositories",
      "List the repositories of a user or organization, most recently pushed first.",
      {
        owner: str("User or organization name."),
        visibility: enumOf(["public", "private", "all"], "Which repositories to include."),
        sort: enumOf(["pushed", "created", "name"], "Sort order."),
        limit
      },
      ["owner"]
    ),
    op(
      "get_repository",
      "Show a repository's settings and statistics: default branch, language, stars, open issues.",
      { repo: str("Repository as owner/name.") },
      ["repo"]
    ),
    op(
      "create_repository",
      "Create a new git repository, optionally initialized with a README and a license.",
      {
        name: str("Repository name."),
        owner: str("Organization to create it in (default: the token's user)."),
        description: str("One-line description."),
        private: bool("Make it private."),
        license: enumOf(["mit", "apache-2.0", "gpl-3.0", "none"], "License file to add.")
      },
      ["name"]
    ),
    op(
      "fork_repository",
      "Fork a repository into your account or an organization.",
      {
        repo: str("Repository to fork, as owner/name."),
        into: str("Organization to fork into (default: your account).")
      },
      ["repo"]
    ),
    op(
      "search_code",
      "Search source code across repositories. Supports qualifiers such as language:go or path:src/.",
      {
        query: str("Words or symbols to find, with optional qualifiers."),
        repo: str("Restrict to one repository (owner/name)."),
        language: str("Restrict to one language."),
        limit
      },
      ["query"]
    ),
    op(
      "get_file_contents",
      "Read one file of a repository at a branch, tag or commit.",
      {
        repo: str("Repository as owner/name."),
        path: str("File path in the repository."),
        ref: str("Branch, tag or commit sha (default: the default branch).")
      },
      ["repo", "path"]
    ),
    op(
      "commit_file",
      "Create or overwrite one file on a branch as a new commit.",
      {
        repo: str("Repository as owner/name."),
        path: str("File path in the repository."),
        content: str("The complete new file content."),
        message: str("Commit message."),
        branch: str("Branch to commit to.")
      },
      ["repo", "path", "content", "message"]
    ),
    op(
      "list_branches",
      "List the branches of a repository, with their last commit and protection status.",
      { repo: str("Repository as owner/name."), protected_only: bool("Only protected branches."), limit },
      ["repo"]
    ),
    op(
      "create_branch",
      "Create a branch pointing at another branch or a commit.",
      {
        repo: str("Repository as owner/name."),
        name: str("New branch name."),
        from: str("Branch or sha to start from (default: the default branch).")
      },
      ["repo", "name"]
    ),
    op(
      "delete_branch",
      "Delete a branch. Protected branches and the default branch are refused.",
      { repo: str("Repository as owner/name."), name: str("Branch name.") },
      ["repo", "name"]
    ),
    op(
      "list_commits",
      "List the commits of a branch, newest first, optionally by author or since a date.",
      {
        repo: str("Repository as owner/name."),
        branch: str("Branch name."),
        author: str("Author login or e-mail."),
        since: date("Only commits on or after"),
        limit
      },
      ["repo"]
    ),
    op(
      "get_commit",
      "Show one commit: message, author, parents and the files it changed with line counts.",
      { repo: str("Repository as owner/name."), sha: str("Full or abbreviated commit sha.") },
      ["repo", "sha"]
    ),
    op(
      "compare_refs",
      "Compare two branches or commits: commits ahead and behind, and the changed files.",
      {
        repo: str("Repository as owner/name."),
        base: str("The base branch or sha."),
        head: str("The branch or sha to compare.")
      },
      ["repo", "base", "head"]
    ),
    op(
      "create_pull_request",
      "Open a pull request asking to merge one branch into another. Can be opened as a draft.",
      {
        repo: str("Repository as owner/name."),
        title: str("Pull request title."),
        head: str("Branch with the changes."),
        base: str("Branch to merge into (default: the default branch)."),
        body: str("Description in Markdown."),
        draft: bool("Open as a draft.")
      },
      ["repo", "title", "head"]
    ),
    op(
      "list_pull_requests",
      "List a repository's pull requests, filtered by state, author or target branch.",
      {
        repo: str("Repository as owner/name."),
        state: enumOf(["open", "closed", "merged", "all"], "Which pull requests (default open)."),
        author: str("Author login."),
        base: str("Target branch."),
        limit
      },
      ["repo"]
    ),
    op(
      "get_pull_request",
      "Show a pull request: description, reviews, checks status and whether it can be merged.",
      { repo: str("Repository as owner/name."), number: int("Pull request number.", 1) },
      ["repo", "number"]
    ),
    op(
      "merge_pull_request",
      "Merge an approved pull request with the chosen method.",
      {
        repo: str("Repository as owner/name."),
        number: int("Pull request number.", 1),
        method: enumOf(["merge", "squash", "rebase"], "How to merge (default merge)."),
        delete_branch: bool("Delete the head branch afterwards.")
      },
      ["repo", "number"]
    ),
    op(
      "request_review",
      "Ask people or teams to review a pull request.",
      {
        repo: str("Repository as owner/name."),
        number: int("Pull request number.", 1),
        reviewers: strs("Logins or team slugs.")
      },
      ["repo", "number", "reviewers"]
    ),
    op(
      "add_review_comment",
      "Comment on a specific line of a pull request's diff.",
      {
        repo: str("Repository as owner/name."),
        number: int("Pull request number.", 1),
        path: str("File path in the diff."),
        line: int("Line number in the new version of the file.", 1),
        body: str("The comment.")
      },
      ["repo", "number", "path", "line", "body"]
    ),
    op(
      "create_issue",
      "Open an issue in a repository's issue tracker, with labels and assignees.",
      {
        repo: str("Repository as owner/name."),
        title: str("Issue title."),
        body: str("Description in Markdown."),
        labels: strs("Label names."),
        assignees: strs("Logins to assign.")
      },
      ["repo", "title"]
    ),
    op(
      "list_issues",
      "List a repository's issues, filtered by state, label or assignee. Pull requests are not included.",
      {
        repo: str("Repository as owner/name."),
        state: enumOf(["open", "closed", "all"], "Which issues (default open)."),
        label: str("Only issues with this label."),
        assignee: str("Only issues assigned to this login."),
        limit
      },
      ["repo"]
    ),
    op(
      "add_comment",
      "Comment on an issue or a pull request (the conversation, not a diff line).",
      {
        repo: str("Repository as owner/name."),
        number: int("Issue or pull request number.", 1),
        body: str("The comment in Markdown.")
      },
      ["repo", "number", "body"]
    ),
    op(
      "close_issue",
      "Close an issue, as completed or as not planned.",
      {
        repo: str("Repository as owner/name."),
        number: int("Issue number.", 1),
        reason: enumOf(["completed", "not_planned"], "Why it is closed.")
      },
      ["repo", "number"]
    ),
    op(
      "list_workflow_runs",
      "List recent CI workflow runs of a repository with their status and duration.",
      {
        repo: str("Repository as owner/name."),
        status: enumOf(["queued", "in_progress", "success", "failure", "cancelled"], "Only runs in this state."),
        branch: str("Only runs for this branch."),
        limit
      },
      ["repo"]
    ),
    op(
      "trigger_workflow",
      "Start a CI workflow by hand on a branch, with optional inputs.",
      {
        repo: str("Repository as owner/name."),
        workflow: str("Workflow file name, e.g. deploy.yml."),
        ref: str("Branch or tag to run on."),
        inputs: obj({}, "Workflow inputs as name-value pairs.")
      },
      ["repo", "workflow", "ref"]
    ),
    op(
      "create_release",
      "Publish a release from a tag, with notes. Creates the tag when it does not exist.",
      {
        repo: str("Repository as owner/name."),
        tag: str("Tag name, e.g. v1.4.0."),
        name: str("Release title."),
        notes: str("Release notes in Markdown."),
        prerelease: bool("Mark as a pre-release.")
      },
      ["repo", "tag"]
    )
  ]
}

const tickets: ServiceSpec = {
  id: "tickets",
  title: "Tickets",
  description: "Project tracking: issues, sprints, boards, comments and work logs.",
  category: "tracking",
  prefix: "tickets_",
  item: "issue",
  ops: [
    op(
      "create_issue",
      "Open a new ticket for a bug, task, story or epic in a project. Returns its key, such as WEB-123.",
      {
        project: str("Project key, e.g. WEB."),
        summary: str("One-line summary."),
        description: str("Details in Markdown."),
        type: enumOf(["bug", "task", "story", "epic"], "Issue type (default task)."),
        priority: enumOf(["lowest", "low", "medium", "high", "highest"], "Priority (default medium)."),
        assignee: str("Account to assign."),
        labels: strs("Labels to add.")
      },
      ["project", "summary"]
    ),
    op("get_issue", "Show a ticket with its status, assignee, sprint, links and latest comments.", {
      key: str("Issue key, e.g. WEB-123.")
    }, ["key"]),
    op(
      "update_issue",
      "Change fields of a ticket. Only the fields given are touched.",
      {
        key: str("Issue key."),
        fields: obj({
          summary: str("New summary."),
          description: str("New description."),
          priority: enumOf(["lowest", "low", "medium", "high", "highest"], "New priority."),
          labels: strs("Replaces the labels."),
          story_points: num("Estimate in points.")
        }, "The fields to change.")
      },
      ["key", "fields"]
    ),
    op(
      "delete_issue",
      "Delete a ticket and its sub-tasks for good. Prefer closing it unless it was created by mistake.",
      { key: str("Issue key.") },
      ["key"]
    ),
    op(
      "search_issues",
      "Search tickets with free text or a filter such as `project = WEB AND status = open`.",
      { query: str("Free text or a filter expression."), limit, cursor },
      ["query"]
    ),
    op("list_projects", "List the projects you can see, with their keys and leads.", { limit, cursor }),
    op("get_project", "Show a project's issue types, workflow statuses, components and versions.", {
      project: str("Project key.")
    }, ["project"]),
    op(
      "transition_issue",
      "Move a ticket to another workflow status, e.g. from in progress to in review.",
      {
        key: str("Issue key."),
        status: enumOf(["todo", "in_progress", "in_review", "done", "wont_do"], "Target status."),
        comment: str("Comment recorded with the change.")
      },
      ["key", "status"]
    ),
    op(
      "assign_issue",
      "Assign a ticket to someone, or unassign it with an empty assignee.",
      { key: str("Issue key."), assignee: str("Account to assign; empty to unassign.") },
      ["key", "assignee"]
    ),
    op(
      "add_comment",
      "Comment on a ticket. Mentions with @name notify the person.",
      { key: str("Issue key."), body: str("Comment in Markdown."), internal: bool("Visible to the team only.") },
      ["key", "body"]
    ),
    op("list_comments", "List the comments of a ticket, oldest first.", { key: str("Issue key."), limit }, ["key"]),
    op(
      "add_worklog",
      "Log time spent on a ticket, e.g. 2h 30m.",
      {
        key: str("Issue key."),
        time_spent: str("Duration such as 45m or 1d 2h."),
        comment: str("What was done."),
        started: time("When the work started")
      },
      ["key", "time_spent"]
    ),
    op(
      "link_issues",
      "Record a relation between two tickets, such as one blocking the other.",
      {
        from: str("Key of the first issue."),
        to: str("Key of the second issue."),
        relation: enumOf(["blocks", "relates_to", "duplicates", "clones"], "How the first relates to the second.")
      },
      ["from", "to", "relation"]
    ),
    op(
      "list_sprints",
      "List the sprints of a board: active, future or closed.",
      { board: str("Board id or name."), state: enumOf(["active", "future", "closed"], "Which sprints.") },
      ["board"]
    ),
    op(
      "create_sprint",
      "Create a sprint on a board with dates and a goal.",
      {
        board: str("Board id or name."),
        name: str("Sprint name."),
        start_date: date("First day"),
        end_date: date("Last day"),
        goal: str("The sprint goal.")
      },
      ["board", "name"]
    ),
    op(
      "move_to_sprint",
      "Move tickets into a sprint, or back to the backlog.",
      { sprint: str("Sprint id, or 'backlog'."), keys: strs("Issue keys to move.") },
      ["sprint", "keys"]
    ),
    op("get_board", "Show a board's columns and the tickets in each.", { board: str("Board id or name.") }, ["board"]),
    op(
      "list_assigned_issues",
      "List the open tickets assigned to a person, most urgent first.",
      {
        assignee: str("Account name; default: you."),
        status: enumOf(["todo", "in_progress", "in_review"], "Only this status."),
        limit
      }
    ),
    op(
      "add_watcher",
      "Subscribe someone to updates of a ticket.",
      { key: str("Issue key."), user: str("Account to add as watcher.") },
      ["key", "user"]
    ),
    op(
      "create_subtask",
      "Split a ticket: create a sub-task under it.",
      {
        parent: str("Key of the parent issue."),
        summary: str("One-line summary."),
        assignee: str("Account to assign.")
      },
      ["parent", "summary"]
    ),
    op(
      "get_sprint_report",
      "Summarize a sprint: committed and completed points, scope changes and unfinished tickets.",
      { sprint: str("Sprint id.") },
      ["sprint"]
    )
  ]
}

const calendar: ServiceSpec = {
  id: "calendar",
  title: "Calendar",
  description: "Shared calendars: events, invitations, free time and meeting rooms.",
  category: "scheduling",
  prefix: "calendar_",
  item: "event",
  ops: [
    op("list_calendars", "List the calendars you own or that are shared with you.", { limit }),
    op(
      "list_events",
      "List the events of a calendar between two instants, in start order.",
      {
        calendar: str("Calendar id (default: primary)."),
        from: time("Start of the window"),
        to: time("End of the window"),
        limit,
        cursor
      },
      ["from", "to"]
    ),
    op(
      "get_event",
      "Show an event: time, place, attendees and their answers, conferencing link.",
      { event_id: str("Event id."), calendar: str("Calendar id (default: primary).") },
      ["event_id"]
    ),
    op(
      "create_event",
      "Schedule a meeting or other event in a calendar and invite attendees. Supports recurrence and a video link.",
      {
        title: str("Event title."),
        start: time("Start"),
        end: time("End"),
        attendees: strs("E-mail addresses to invite."),
        location: str("Room or address."),
        description: str("Agenda or notes."),
        calendar: str("Calendar id (default: primary)."),
        video_link: bool("Attach a video meeting link."),
        recurrence: obj(
          {
            frequency: enumOf(["daily", "weekly", "monthly"], "How often."),
            interval: int("Every how many periods.", 1),
            until: date("Last occurrence")
          },
          "Repeat rule.",
          ["frequency"]
        )
      },
      ["title", "start", "end"]
    ),
    op(
      "update_event",
      "Change an event's time, title, place or description. Attendees are notified of time changes.",
      {
        event_id: str("Event id."),
        title: str("New title."),
        start: time("New start"),
        end: time("New end"),
        location: str("New place."),
        notify: bool("Notify attendees (default true).")
      },
      ["event_id"]
    ),
    op(
      "delete_event",
      "Cancel and remove an event; attendees get a cancellation notice unless notify is false.",
      { event_id: str("Event id."), notify: bool("Send cancellation notices (default true).") },
      ["event_id"]
    ),
    op(
      "respond_to_event",
      "Answer an invitation: accept, decline or maybe, with an optional note to the organizer.",
      {
        event_id: str("Event id."),
        response: enumOf(["accepted", "declined", "tentative"], "Your answer."),
        note: str("Message to the organizer.")
      },
      ["event_id", "response"]
    ),
    op(
      "find_free_slots",
      "Find times when all the given people are free for a meeting of a given length.",
      {
        attendees: strs("E-mail addresses."),
        duration_minutes: int("Meeting length in minutes.", 5, 480),
        from: time("Earliest start"),
        to: time("Latest end"),
        working_hours_only: bool("Only propose times within everyone's working hours.")
      },
      ["attendees", "duration_minutes"],
      {
        respond: (p) => ({
          duration_minutes: count(p, "duration_minutes", 30),
          slots: [
            { start: "2025-06-03T10:00:00Z", end: "2025-06-03T10:30:00Z" },
            { start: "2025-06-03T14:00:00Z", end: "2025-06-03T14:30:00Z" },
            { start: "2025-06-04T09:00:00Z", end: "2025-06-04T09:30:00Z" }
          ]
        })
      }
    ),
    op(
      "check_availability",
      "Tell whether people are busy or free during a time range, with their busy blocks.",
      { people: strs("E-mail addresses."), start: time("Start"), end: time("End") },
      ["people", "start", "end"]
    ),
    op(
      "create_calendar",
      "Create a secondary calendar, e.g. for a project or a team rota.",
      { name: str("Calendar name."), timezone: str("IANA time zone."), color: str("Color as #rrggbb.") },
      ["name"]
    ),
    op(
      "share_calendar",
      "Give someone access to a calendar with a role.",
      {
        calendar: str("Calendar id."),
        email: str("Who to share with."),
        role: enumOf(["free_busy", "reader", "writer", "owner"], "Access level.")
      },
      ["calendar", "email", "role"]
    ),
    op(
      "search_events",
      "Search events by words in their title, description or location.",
      { query: str("Words to find."), calendar: str("Calendar id (default: all)."), limit },
      ["query"]
    ),
    op(
      "add_attendees",
      "Invite more people to an existing event.",
      { event_id: str("Event id."), attendees: strs("E-mail addresses."), optional: bool("Invite them as optional.") },
      ["event_id", "attendees"]
    ),
    op(
      "remove_attendee",
      "Take someone off an event's guest list.",
      { event_id: str("Event id."), email: str("Attendee to remove.") },
      ["event_id", "email"]
    ),
    op(
      "set_working_hours",
      "Set the hours others can book you in, per weekday.",
      {
        days: arr(
          obj(
            {
              day: enumOf(["mon", "tue", "wed", "thu", "fri", "sat", "sun"], "Weekday."),
              start: str("HH:MM."),
              end: str("HH:MM.")
            },
            "One day's hours.",
            ["day", "start", "end"]
          ),
          "Working hours by day."
        ),
        timezone: str("IANA time zone.")
      },
      ["days"]
    ),
    op(
      "set_out_of_office",
      "Block your calendar as out of office, e.g. for a vacation; new invitations in that period are declined with your message.",
      { start: time("Start"), end: time("End"), message: str("Text sent with declines.") },
      ["start", "end"]
    ),
    op(
      "book_room",
      "Reserve a meeting room for a time slot.",
      { room: str("Room id or name."), start: time("Start"), end: time("End"), title: str("What the room is for.") },
      ["room", "start", "end"]
    ),
    op(
      "list_rooms",
      "List meeting rooms, filtered by building, capacity or equipment.",
      {
        building: str("Building name."),
        min_capacity: int("Seats needed.", 1),
        equipment: arr(
          enumOf(["screen", "video", "whiteboard", "phone"], "Equipment."),
          "Equipment the room must have."
        )
      }
    ),
    op(
      "move_event",
      "Move an event to another calendar you can write to.",
      { event_id: str("Event id."), to_calendar: str("Target calendar id.") },
      ["event_id", "to_calendar"]
    ),
    op(
      "convert_time",
      "Convert a time from one time zone to another, e.g. to propose a meeting across offices.",
      {
        time: str("Local time as YYYY-MM-DDTHH:MM."),
        from_zone: str("IANA zone of the input."),
        to_zone: str("IANA zone wanted.")
      },
      ["time", "from_zone", "to_zone"]
    )
  ]
}

const email: ServiceSpec = {
  id: "email",
  title: "Email",
  description: "A mailbox: sending, drafts, search, folders, labels and filters.",
  category: "mail",
  prefix: "email_",
  item: "message",
  ops: [
    op(
      "send_message",
      "Send an e-mail from your mailbox. Attachments are given inline as base64.",
      {
        to: strs("Recipient addresses."),
        subject: str("Subject line."),
        body: str("Body, plain text or Markdown."),
        cc: strs("Copy addresses."),
        bcc: strs("Blind copy addresses."),
        attachments: arr(
          obj({ filename: str("File name."), content_base64: str("File content, base64.") }, "One attachment.", [
            "filename",
            "content_base64"
          ]),
          "Files to attach."
        )
      },
      ["to", "subject", "body"]
    ),
    op(
      "create_draft",
      "Save an e-mail as a draft without sending it.",
      { to: strs("Recipient addresses."), subject: str("Subject line."), body: str("Body text.") },
      ["subject", "body"]
    ),
    op("send_draft", "Send a draft saved earlier, as it is.", { draft_id: str("Draft id.") }, ["draft_id"]),
    op("list_drafts", "List your saved drafts, newest first.", { limit }),
    op(
      "search_messages",
      "Search the mailbox by sender, subject, words, dates or attachments.",
      {
        query: str("Words to find in subject or body."),
        from: str("Sender address or name."),
        folder: str("Folder to search (default: all)."),
        has_attachment: bool("Only messages with attachments."),
        after: date("Received on or after"),
        before: date("Received before"),
        limit
      },
      []
    ),
    op(
      "get_message",
      "Read one e-mail: headers, body and the list of attachments.",
      { message_id: str("Message id."), format: enumOf(["text", "html", "raw"], "Body format (default text).") },
      ["message_id"]
    ),
    op("get_thread", "Read a whole e-mail conversation, oldest message first.", { thread_id: str("Thread id.") }, [
      "thread_id"
    ]),
    op(
      "reply_to_message",
      "Reply to an e-mail, keeping it in the same conversation.",
      {
        message_id: str("Message to answer."),
        body: str("Reply text."),
        reply_all: bool("Answer everyone on the thread.")
      },
      ["message_id", "body"]
    ),
    op(
      "forward_message",
      "Forward an e-mail with its attachments to other people.",
      {
        message_id: str("Message to forward."),
        to: strs("Recipient addresses."),
        note: str("Text added above the forwarded message.")
      },
      ["message_id", "to"]
    ),
    op(
      "delete_message",
      "Move an e-mail to the trash, or erase it at once with permanent.",
      { message_id: str("Message id."), permanent: bool("Skip the trash.") },
      ["message_id"]
    ),
    op(
      "move_message",
      "File an e-mail into another folder, e.g. Archive.",
      { message_id: str("Message id."), folder: str("Target folder.") },
      ["message_id", "folder"]
    ),
    op(
      "mark_as_read",
      "Mark e-mails read or unread.",
      { message_ids: strs("Message ids."), read: bool("true: read, false: unread (default true).") },
      ["message_ids"]
    ),
    op("list_folders", "List the mailbox folders with unread counts.", {}),
    op("list_labels", "List the labels you can put on e-mails.", {}),
    op(
      "create_label",
      "Create a new label to tag e-mails with.",
      { name: str("Label name; use / for nesting, e.g. Clients/Acme."), color: str("Color as #rrggbb.") },
      ["name"]
    ),
    op(
      "add_label",
      "Put a label on one or more e-mails.",
      { message_ids: strs("Message ids."), label: str("Label name.") },
      ["message_ids", "label"]
    ),
    op(
      "remove_label",
      "Take a label off one or more e-mails.",
      { message_ids: strs("Message ids."), label: str("Label name.") },
      ["message_ids", "label"]
    ),
    op(
      "get_attachment",
      "Download an attachment of an e-mail as base64 with its file name and type.",
      { message_id: str("Message id."), attachment_id: str("Attachment id.") },
      ["message_id", "attachment_id"]
    ),
    op(
      "create_filter",
      "Create a rule applied to incoming mail: when criteria match, label, archive or forward it.",
      {
        criteria: obj({
          from: str("Sender contains."),
          subject: str("Subject contains."),
          has_words: str("Body contains.")
        }, "When the rule applies."),
        action: obj({
          add_label: str("Label to add."),
          archive: bool("Skip the inbox."),
          forward_to: str("Address to forward to.")
        }, "What to do.")
      },
      ["criteria", "action"]
    ),
    op("list_filters", "List the rules applied to incoming mail.", {}),
    op(
      "set_auto_reply",
      "Turn the vacation auto-reply on or off, with its message and dates.",
      {
        enabled: bool("On or off."),
        subject: str("Subject of the automatic answer."),
        body: str("Text of the automatic answer."),
        start: date("First day"),
        end: date("Last day")
      },
      ["enabled"]
    ),
    op(
      "schedule_message",
      "Write an e-mail now and have it sent later at a chosen time.",
      {
        to: strs("Recipient addresses."),
        subject: str("Subject line."),
        body: str("Body text."),
        send_at: time("When to send")
      },
      ["to", "subject", "body", "send_at"]
    ),
    op(
      "unsubscribe",
      "Unsubscribe from the mailing list that sent a given e-mail, using its unsubscribe header.",
      { message_id: str("A message from the list.") },
      ["message_id"]
    )
  ]
}

const storage: ServiceSpec = {
  id: "storage",
  title: "Cloud storage",
  description: "Cloud drive: files, folders, sharing, versions and trash.",
  category: "files",
  prefix: "storage_",
  item: "file",
  ops: [
    op(
      "list_files",
      "List the files and sub-folders of a drive folder.",
      {
        folder_id: str("Folder id (default: the drive root)."),
        order: enumOf(["name", "modified", "size"], "Sort order."),
        limit,
        cursor
      }
    ),
    op(
      "search_files",
      "Search the cloud drive by file name or content, type, owner or date.",
      {
        query: str("Words in the name or content."),
        mime_type: str("Only this type, e.g. application/pdf."),
        owner: str("Owner e-mail."),
        modified_after: date("Modified on or after"),
        limit
      },
      ["query"]
    ),
    op("get_file_metadata", "Show a file's name, size, type, owner, path and last change.", {
      file_id: str("File id.")
    }, ["file_id"]),
    op(
      "download_file",
      "Get the content of a file stored in the cloud drive, as text or base64.",
      { file_id: str("File id."), as_text: bool("Return text instead of base64.") },
      ["file_id"]
    ),
    op(
      "upload_file",
      "Upload a new file to a folder of the cloud drive. A file with the same name gets a new version.",
      {
        name: str("File name."),
        content: str("The content (text, or base64 with base64=true)."),
        folder_id: str("Target folder (default: root)."),
        base64: bool("The content is base64."),
        mime_type: str("Content type.")
      },
      ["name", "content"]
    ),
    op("create_folder", "Create a folder in the drive.", {
      name: str("Folder name."),
      parent_id: str("Parent folder (default: root).")
    }, ["name"]),
    op("move_file", "Move a file or folder to another folder.", {
      file_id: str("File or folder id."),
      to_folder_id: str("Target folder.")
    }, ["file_id", "to_folder_id"]),
    op("copy_file", "Duplicate a file, optionally into another folder or under a new name.", {
      file_id: str("File id."),
      to_folder_id: str("Target folder."),
      name: str("Name of the copy.")
    }, ["file_id"]),
    op("rename_file", "Rename a file or folder.", { file_id: str("File or folder id."), name: str("New name.") }, [
      "file_id",
      "name"
    ]),
    op("delete_file", "Move a file or folder to the trash, where it stays 30 days.", {
      file_id: str("File or folder id.")
    }, ["file_id"]),
    op("restore_file", "Bring a file back from the trash to where it was.", { file_id: str("File id.") }, ["file_id"]),
    op("empty_trash", "Permanently erase everything in the trash. Cannot be undone.", {
      confirm: bool("Must be true.")
    }, ["confirm"]),
    op(
      "share_file",
      "Give a person access to a file or folder, as viewer, commenter or editor.",
      {
        file_id: str("File or folder id."),
        email: str("Who to share with."),
        role: enumOf(["viewer", "commenter", "editor"], "Access level."),
        notify: bool("E-mail them a notice.")
      },
      ["file_id", "email", "role"]
    ),
    op("list_permissions", "List who can access a file and how.", { file_id: str("File id.") }, ["file_id"]),
    op("revoke_access", "Remove one person's access to a file or folder.", {
      file_id: str("File id."),
      email: str("Whose access to remove.")
    }, ["file_id", "email"]),
    op(
      "create_share_link",
      "Make a link anyone can open, with an optional expiry and download switch.",
      {
        file_id: str("File id."),
        expires_in_days: int("Days until the link stops working.", 1, 365),
        allow_download: bool("Allow downloading, not just viewing.")
      },
      ["file_id"]
    ),
    op("list_versions", "List the stored versions of a file with who changed it and when.", {
      file_id: str("File id.")
    }, ["file_id"]),
    op("restore_version", "Make an earlier version of a file the current one.", {
      file_id: str("File id."),
      version_id: str("Version id.")
    }, ["file_id", "version_id"]),
    op("get_storage_quota", "Show used and available drive space, by file type.", {}),
    op("lock_file", "Lock a file against edits by others while you work on it.", {
      file_id: str("File id."),
      reason: str("Shown to others.")
    }, ["file_id"]),
    op("unlock_file", "Release a lock you hold on a file.", { file_id: str("File id.") }, ["file_id"]),
    op("list_recent_files", "List the files you opened or changed lately.", { limit }),
    op(
      "export_file",
      "Convert a document to another format and store the result next to it.",
      { file_id: str("File id."), format: enumOf(["pdf", "docx", "txt", "csv", "xlsx"], "Target format.") },
      ["file_id", "format"]
    )
  ]
}

const crm: ServiceSpec = {
  id: "crm",
  title: "CRM",
  description: "Customer relationships: contacts, companies, deals, pipelines and activities.",
  category: "sales",
  prefix: "crm_",
  item: "record",
  ops: [
    op(
      "search_contacts",
      "Find customer contacts by name, e-mail, phone or company.",
      {
        query: str("Name, e-mail, phone or company words."),
        owner: str("Only contacts owned by this sales rep."),
        limit
      },
      ["query"]
    ),
    op("get_contact", "Show a contact with their company, owner, deals and last activities.", {
      contact_id: str("Contact id.")
    }, ["contact_id"]),
    op(
      "create_contact",
      "Add a person to the CRM.",
      {
        first_name: str("Given name."),
        last_name: str("Family name."),
        email: str("E-mail address."),
        phone: str("Phone number."),
        company_id: str("Company they work for."),
        job_title: str("Their role."),
        tags: strs("Tags.")
      },
      ["last_name"]
    ),
    op(
      "update_contact",
      "Change a contact's fields. Only the fields given are touched.",
      {
        contact_id: str("Contact id."),
        email: str("New e-mail."),
        phone: str("New phone."),
        job_title: str("New role."),
        tags: strs("Replaces the tags.")
      },
      ["contact_id"]
    ),
    op(
      "delete_contact",
      "Remove a contact; their activities stay on the company.",
      { contact_id: str("Contact id.") },
      ["contact_id"]
    ),
    op(
      "merge_contacts",
      "Merge a duplicate contact into another; activities and deals move over.",
      { primary_id: str("Contact to keep."), duplicate_id: str("Contact to fold in.") },
      ["primary_id", "duplicate_id"]
    ),
    op("list_companies", "List companies (accounts), filtered by industry or size.", {
      industry: str("Industry."),
      min_employees: int("Smallest size.", 1),
      limit,
      cursor
    }),
    op("get_company", "Show a company with its contacts, open deals and revenue to date.", {
      company_id: str("Company id.")
    }, ["company_id"]),
    op(
      "create_company",
      "Add a company (account) to the CRM.",
      {
        name: str("Company name."),
        domain: str("Web domain, used to match contacts."),
        industry: str("Industry."),
        employees: int("Headcount.", 1)
      },
      ["name"]
    ),
    op(
      "list_deals",
      "List sales deals by stage, owner or size.",
      {
        stage: enumOf(["lead", "qualified", "proposal", "negotiation", "won", "lost"], "Pipeline stage."),
        owner: str("Sales rep."),
        min_amount: num("Smallest amount."),
        limit,
        cursor
      }
    ),
    op("get_deal", "Show a deal: amount, stage history, contacts and next steps.", { deal_id: str("Deal id.") }, [
      "deal_id"
    ]),
    op(
      "create_deal",
      "Create a new deal, a sales opportunity with a company, at the first stages of the pipeline.",
      {
        name: str("Deal name."),
        company_id: str("Company id."),
        amount: num("Expected value."),
        currency: str("ISO 4217 code (default USD)."),
        stage: enumOf(["lead", "qualified", "proposal", "negotiation"], "Starting stage."),
        close_date: date("Expected close")
      },
      ["name", "company_id"]
    ),
    op(
      "update_deal_stage",
      "Move a deal to another pipeline stage; won or lost closes it.",
      {
        deal_id: str("Deal id."),
        stage: enumOf(["lead", "qualified", "proposal", "negotiation", "won", "lost"], "New stage."),
        lost_reason: str("Why, when lost.")
      },
      ["deal_id", "stage"]
    ),
    op(
      "log_activity",
      "Log a call, meeting, e-mail or note with a customer contact or on a deal, so the team sees the history.",
      {
        type: enumOf(["call", "meeting", "email", "note"], "What happened."),
        summary: str("Short account of it."),
        contact_id: str("Contact involved."),
        deal_id: str("Deal concerned."),
        occurred_at: time("When it happened")
      },
      ["type", "summary"]
    ),
    op("list_activities", "List the activities of a contact, company or deal, newest first.", {
      contact_id: str("Contact id."),
      company_id: str("Company id."),
      deal_id: str("Deal id."),
      limit
    }),
    op(
      "create_task",
      "Create a follow-up task for a sales rep, linked to a contact or deal.",
      {
        title: str("What to do."),
        due: date("Due"),
        owner: str("Sales rep (default: you)."),
        contact_id: str("Related contact."),
        deal_id: str("Related deal.")
      },
      ["title"]
    ),
    op("list_tasks", "List open follow-up tasks, by owner or due date.", {
      owner: str("Sales rep."),
      due_before: date("Due before"),
      limit
    }),
    op("list_pipelines", "List the sales pipelines and their stages.", {}),
    op(
      "get_sales_forecast",
      "Estimate revenue for a period from open deals weighted by stage probability.",
      { period: enumOf(["month", "quarter", "year"], "Forecast period."), owner: str("Only this rep's deals.") },
      ["period"]
    ),
    op(
      "assign_owner",
      "Hand a contact, company or deal over to another sales rep.",
      {
        record_type: enumOf(["contact", "company", "deal"], "Kind of record."),
        record_id: str("Record id."),
        owner: str("New owner.")
      },
      ["record_type", "record_id", "owner"]
    ),
    op(
      "import_contacts",
      "Add many contacts at once; rows whose e-mail already exists update that contact.",
      {
        rows: arr(
          obj(
            { first_name: str("Given name."), last_name: str("Family name."), email: str("E-mail.") },
            "One contact.",
            ["email"]
          ),
          "The contacts."
        )
      },
      ["rows"]
    ),
    op("list_segments", "List saved contact segments (lists) used for campaigns.", {}),
    op("add_to_segment", "Put contacts into a saved segment.", {
      segment_id: str("Segment id."),
      contact_ids: strs("Contact ids.")
    }, ["segment_id", "contact_ids"])
  ]
}

const billing: ServiceSpec = {
  id: "billing",
  title: "Billing",
  description: "Payments and invoicing: customers, charges, refunds, subscriptions and payouts.",
  category: "payments",
  prefix: "billing_",
  item: "payment",
  ops: [
    op(
      "create_customer",
      "Create a billing customer that payments, invoices and subscriptions attach to.",
      {
        email: str("Billing e-mail."),
        name: str("Person or company name."),
        address: obj({
          line1: str("Street."),
          city: str("City."),
          postal_code: str("Postal code."),
          country: str("ISO country code.")
        }, "Billing address."),
        tax_id: str("VAT or tax number.")
      },
      ["email"]
    ),
    op("get_customer", "Show a billing customer with balance, payment methods and subscriptions.", {
      customer_id: str("Customer id.")
    }, ["customer_id"]),
    op("update_customer", "Change a billing customer's e-mail, name or address.", {
      customer_id: str("Customer id."),
      email: str("New e-mail."),
      name: str("New name.")
    }, ["customer_id"]),
    op("list_customers", "List billing customers, newest first.", { email: str("Only this e-mail."), limit, cursor }),
    op("search_customers", "Search billing customers by name, e-mail or metadata.", {
      query: str("Words to find."),
      limit
    }, ["query"]),
    op(
      "create_invoice",
      "Create an invoice for a customer from line items, as a draft. Send it with billing_send_invoice.",
      {
        customer_id: str("Customer id."),
        items: arr(
          obj(
            {
              description: str("What is billed."),
              quantity: int("How many.", 1),
              unit_amount: int("Price per unit in cents.", 0)
            },
            "One line.",
            ["description", "unit_amount"]
          ),
          "Invoice lines."
        ),
        currency: str("ISO 4217 code (default usd)."),
        due_date: date("Payment due"),
        memo: str("Note printed on the invoice.")
      },
      ["customer_id", "items"]
    ),
    op("send_invoice", "E-mail a finalized invoice to the customer with a payment link.", {
      invoice_id: str("Invoice id.")
    }, ["invoice_id"]),
    op(
      "get_invoice",
      "Show an invoice with lines, totals, tax and payment status.",
      { invoice_id: str("Invoice id.") },
      ["invoice_id"]
    ),
    op(
      "list_invoices",
      "List invoices by customer or status.",
      {
        customer_id: str("Customer id."),
        status: enumOf(["draft", "open", "paid", "void", "uncollectible"], "Invoice status."),
        limit,
        cursor
      }
    ),
    op("void_invoice", "Cancel an open invoice so it can no longer be paid.", { invoice_id: str("Invoice id.") }, [
      "invoice_id"
    ]),
    op(
      "charge_customer",
      "Take a one-off payment from a customer's saved card or account.",
      {
        customer_id: str("Customer id."),
        amount: int("Amount in cents.", 1),
        currency: str("ISO 4217 code."),
        description: str("Shown on the statement."),
        payment_method: str("Saved method id (default: the customer's default).")
      },
      ["customer_id", "amount", "currency"]
    ),
    op(
      "refund_payment",
      "Refund a payment in full or in part; the money goes back to the original method.",
      {
        payment_id: str("Payment id."),
        amount: int("Amount to refund in cents (default: all)."),
        reason: enumOf(["duplicate", "fraudulent", "requested_by_customer"], "Why.")
      },
      ["payment_id"]
    ),
    op("get_payment", "Show a payment: amount, method, status, fees and any refunds.", {
      payment_id: str("Payment id.")
    }, ["payment_id"]),
    op(
      "list_payments",
      "List payments, filtered by customer, status or date.",
      {
        customer_id: str("Customer id."),
        status: enumOf(["succeeded", "pending", "failed", "refunded"], "Payment status."),
        created_after: date("On or after"),
        limit,
        cursor
      }
    ),
    op(
      "create_subscription",
      "Subscribe a customer to a recurring plan, optionally with a free trial.",
      {
        customer_id: str("Customer id."),
        price_id: str("Recurring price id."),
        quantity: int("Seats or units.", 1),
        trial_days: int("Free trial length.", 0, 90),
        coupon: str("Coupon code.")
      },
      ["customer_id", "price_id"]
    ),
    op(
      "update_subscription",
      "Change a subscription's plan or quantity; the difference is prorated.",
      { subscription_id: str("Subscription id."), price_id: str("New price id."), quantity: int("New quantity.", 1) },
      ["subscription_id"]
    ),
    op(
      "cancel_subscription",
      "Stop a subscription now or at the end of the paid period.",
      {
        subscription_id: str("Subscription id."),
        at_period_end: bool("Keep it until the period ends (default true).")
      },
      ["subscription_id"]
    ),
    op("list_subscriptions", "List subscriptions by customer or status.", {
      customer_id: str("Customer id."),
      status: enumOf(["active", "trialing", "past_due", "canceled"], "Status."),
      limit
    }),
    op("list_prices", "List the products and prices you sell, one-off and recurring.", {
      active: bool("Only active prices."),
      limit
    }),
    op(
      "create_coupon",
      "Create a discount coupon, as a percentage or a fixed amount, for once, some months or forever.",
      {
        code: str("Code customers type."),
        percent_off: num("Percentage discount."),
        amount_off: int("Fixed discount in cents."),
        duration: enumOf(["once", "repeating", "forever"], "How long it applies."),
        months: int("Months, when repeating.", 1)
      },
      ["code", "duration"]
    ),
    op("get_balance", "Show the account balance: available, pending and reserved funds by currency.", {}),
    op("list_payouts", "List payouts to your bank account with their arrival dates.", {
      status: enumOf(["paid", "pending", "in_transit", "failed"], "Payout status."),
      limit
    }),
    op(
      "create_payment_link",
      "Make a hosted checkout link for a price, shareable by e-mail or chat.",
      {
        price_id: str("Price id."),
        quantity: int("Units.", 1),
        allow_promotion_codes: bool("Let buyers enter coupons.")
      },
      ["price_id"]
    ),
    op(
      "get_revenue_report",
      "Summarize gross revenue, refunds, fees and net revenue for a period.",
      { from: date("First day"), to: date("Last day"), group_by: enumOf(["day", "week", "month"], "Bucket size.") },
      ["from", "to"]
    )
  ]
}

const monitoring: ServiceSpec = {
  id: "monitoring",
  title: "Monitoring",
  description: "Observability: alerts, metrics, logs, traces, incidents and on-call.",
  category: "observability",
  prefix: "monitoring_",
  item: "alert",
  ops: [
    op(
      "list_alerts",
      "List open monitoring alerts, firing ones first, filtered by severity or service.",
      {
        status: enumOf(["firing", "acknowledged", "resolved"], "Alert state (default firing)."),
        severity: enumOf(["critical", "warning", "info"], "Only this severity."),
        service: str("Only this service."),
        limit
      }
    ),
    op("get_alert", "Show an alert: the rule, the value that tripped it, since when and who was paged.", {
      alert_id: str("Alert id.")
    }, ["alert_id"]),
    op("acknowledge_alert", "Acknowledge a firing alert so paging stops while you investigate.", {
      alert_id: str("Alert id."),
      note: str("Note for the team.")
    }, ["alert_id"]),
    op(
      "resolve_alert",
      "Mark an alert resolved by hand.",
      { alert_id: str("Alert id."), note: str("What fixed it.") },
      ["alert_id"]
    ),
    op("snooze_alert", "Silence an alert for some minutes.", {
      alert_id: str("Alert id."),
      minutes: int("How long.", 1, 1440)
    }, ["alert_id", "minutes"]),
    op(
      "create_alert_rule",
      "Define when to alert: a metric query, a threshold, how long it must hold, and who is notified.",
      {
        name: str("Rule name."),
        query: str("Metric query, e.g. avg(http_latency_ms{service=\"api\"})."),
        threshold: obj(
          { operator: enumOf([">", ">=", "<", "<="], "Comparison."), value: num("Threshold value.") },
          "Condition.",
          ["operator", "value"]
        ),
        for_minutes: int("How long the condition must hold.", 0),
        severity: enumOf(["critical", "warning", "info"], "Severity of the alerts."),
        notify: strs("Channels or people to notify.")
      },
      ["name", "query", "threshold"]
    ),
    op("list_alert_rules", "List the alert rules, by service or severity.", {
      service: str("Only this service."),
      limit
    }),
    op("update_alert_rule", "Change an alert rule's threshold, duration or recipients.", {
      rule_id: str("Rule id."),
      for_minutes: int("New duration.", 0),
      notify: strs("New recipients.")
    }, ["rule_id"]),
    op("delete_alert_rule", "Delete an alert rule; its open alerts resolve.", { rule_id: str("Rule id.") }, [
      "rule_id"
    ]),
    op(
      "query_metrics",
      "Read a metric time series over a window, e.g. error rate or CPU usage.",
      { query: str("Metric query."), from: time("Start"), to: time("End"), step_seconds: int("Resolution.", 10) },
      ["query", "from", "to"],
      {
        respond: (p) => ({
          query: text(p, "query"),
          points: [0, 1, 2, 3].map((i) => ({
            t: `2025-06-02T09:${String(i * 5).padStart(2, "0")}:00Z`,
            v: pick(`${text(p, "query")}${i}`, 10, 99)
          }))
        })
      }
    ),
    op(
      "search_logs",
      "Search application logs by text, service, level and time window.",
      {
        query: str("Words or a field filter such as status:500."),
        service: str("Only this service."),
        level: enumOf(["debug", "info", "warn", "error"], "Minimum level."),
        from: time("Start"),
        to: time("End"),
        limit
      },
      ["query"]
    ),
    op("get_trace", "Show a distributed trace: its spans, durations and errors.", { trace_id: str("Trace id.") }, [
      "trace_id"
    ]),
    op("list_monitored_services", "List the services being monitored with their health.", { limit }),
    op(
      "get_service_health",
      "Summarize a service's health now: error rate, latency, throughput and open alerts.",
      { service: str("Service name.") },
      ["service"],
      {
        respond: (p) => ({
          service: text(p, "service"),
          status: "degraded",
          error_rate: 0.021,
          p95_latency_ms: pick(text(p, "service"), 120, 900),
          open_alerts: 2
        })
      }
    ),
    op(
      "create_incident",
      "Declare an incident, page the responders and open a timeline.",
      {
        title: str("What is wrong."),
        severity: enumOf(["sev1", "sev2", "sev3", "sev4"], "Impact level."),
        services: strs("Affected services."),
        commander: str("Incident commander.")
      },
      ["title", "severity"]
    ),
    op(
      "update_incident",
      "Change an incident's status, severity or commander.",
      {
        incident_id: str("Incident id."),
        status: enumOf(["investigating", "identified", "monitoring", "resolved"], "New status."),
        severity: enumOf(["sev1", "sev2", "sev3", "sev4"], "New severity.")
      },
      ["incident_id"]
    ),
    op("list_incidents", "List incidents, open ones first.", {
      status: enumOf(["open", "resolved", "all"], "Which incidents."),
      limit
    }),
    op("add_incident_note", "Add an entry to an incident's timeline.", {
      incident_id: str("Incident id."),
      note: str("What happened or was tried.")
    }, ["incident_id", "note"]),
    op("get_on_call", "Tell who is on call for a schedule now or at a given time.", {
      schedule: str("Schedule name."),
      at: time("When (default now)")
    }, ["schedule"]),
    op(
      "schedule_maintenance",
      "Plan a maintenance window; alerts of the services are muted during it.",
      { services: strs("Services affected."), start: time("Start"), end: time("End"), reason: str("Why.") },
      ["services", "start", "end"]
    ),
    op("list_dashboards", "List the monitoring dashboards.", { query: str("Words in the title."), limit }),
    op("get_dashboard", "Show a dashboard's panels and their queries.", { dashboard_id: str("Dashboard id.") }, [
      "dashboard_id"
    ]),
    op(
      "create_uptime_check",
      "Probe a URL from several regions at a fixed interval and alert when it fails.",
      {
        url: str("URL to probe."),
        interval_seconds: int("Time between probes.", 30, 3600),
        regions: arr(enumOf(["us", "eu", "asia"], "Region."), "Where to probe from."),
        expect_status: int("Expected HTTP status (default 200).")
      },
      ["url"]
    )
  ]
}

const db: ServiceSpec = {
  id: "db",
  title: "Database",
  description: "Database administration: schemas, SQL, indexes, backups, users and sessions.",
  category: "data",
  prefix: "db_",
  item: "table",
  ops: [
    op("list_databases", "List the databases on the server with their size.", {}),
    op("list_tables", "List the tables of a database schema with row estimates.", {
      database: str("Database name."),
      schema: str("Schema name (default public).")
    }, ["database"]),
    op("describe_table", "Show a table's columns, types, keys, indexes and constraints.", {
      database: str("Database name."),
      table: str("Table name.")
    }, ["database", "table"]),
    op(
      "run_query",
      "Run a SQL query and return the result rows. Read-only by default; writes need read_only=false.",
      {
        database: str("Database name."),
        sql: str("The SQL statement."),
        params: arr({}, "Values for $1, $2, ..."),
        max_rows: int("Row cap (default 100).", 1, 10000),
        read_only: bool("Refuse writes (default true).")
      },
      ["database", "sql"],
      {
        respond: (p) => ({
          database: text(p, "database"),
          sql: text(p, "sql"),
          columns: ["id", "name", "created_at"],
          rows: [
            [1, "alpha", "2025-05-01T10:00:00Z"],
            [2, "beta", "2025-05-12T16:20:00Z"]
          ],
          row_count: 2
        })
      }
    ),
    op("explain_query", "Show the plan the database would use for a query, with cost estimates.", {
      database: str("Database name."),
      sql: str("The SQL statement."),
      analyze: bool("Actually run it and report real timings.")
    }, ["database", "sql"]),
    op(
      "create_table",
      "Create a table from a list of column definitions.",
      {
        database: str("Database name."),
        table: str("Table name."),
        columns: arr(
          obj(
            {
              name: str("Column name."),
              type: str("SQL type, e.g. text or bigint."),
              nullable: bool("Allow NULL."),
              primary_key: bool("Part of the primary key.")
            },
            "One column.",
            ["name", "type"]
          ),
          "Columns."
        )
      },
      ["database", "table", "columns"]
    ),
    op("drop_table", "Delete a table and all its rows. Cannot be undone.", {
      database: str("Database name."),
      table: str("Table name."),
      cascade: bool("Also drop dependent views.")
    }, ["database", "table"]),
    op(
      "add_column",
      "Add a column to an existing table.",
      {
        database: str("Database name."),
        table: str("Table name."),
        column: obj(
          { name: str("Column name."), type: str("SQL type."), default: str("Default expression.") },
          "The new column.",
          ["name", "type"]
        )
      },
      ["database", "table", "column"]
    ),
    op(
      "create_index",
      "Create an index on table columns to speed up lookups.",
      {
        database: str("Database name."),
        table: str("Table name."),
        columns: strs("Columns, in order."),
        unique: bool("Enforce uniqueness."),
        concurrently: bool("Build without locking writes.")
      },
      ["database", "table", "columns"]
    ),
    op("list_indexes", "List a table's indexes with their size and how often they are used.", {
      database: str("Database name."),
      table: str("Table name.")
    }, ["database", "table"]),
    op("create_backup", "Take a snapshot backup of a database.", {
      database: str("Database name."),
      label: str("A name for the backup.")
    }, ["database"]),
    op("list_backups", "List the stored backups of a database, newest first.", {
      database: str("Database name."),
      limit
    }, ["database"]),
    op(
      "restore_backup",
      "Restore a backup into a database; the target's current content is replaced.",
      { backup_id: str("Backup id."), target_database: str("Database to restore into.") },
      ["backup_id", "target_database"]
    ),
    op("list_slow_queries", "List the slowest recent statements with their average and total time.", {
      database: str("Database name."),
      min_duration_ms: int("Slower than this.", 1),
      limit
    }, ["database"]),
    op("list_active_sessions", "List open database connections and what each is running.", {
      database: str("Database name.")
    }),
    op("cancel_query", "Stop a running statement by its session id.", { session_id: str("Session (process) id.") }, [
      "session_id"
    ]),
    op("create_user", "Create a database login role.", {
      username: str("Login name."),
      roles: strs("Roles to grant."),
      password_expires: date("Password expiry")
    }, ["username"]),
    op(
      "grant_privileges",
      "Give a role privileges on a table or schema.",
      {
        role: str("Role name."),
        privileges: arr(enumOf(["select", "insert", "update", "delete", "all"], "Privilege."), "What to grant."),
        on: str("Table or schema.")
      },
      ["role", "privileges", "on"]
    ),
    op("revoke_privileges", "Take privileges away from a role.", {
      role: str("Role name."),
      privileges: strs("What to revoke."),
      on: str("Table or schema.")
    }, ["role", "privileges", "on"]),
    op("get_table_stats", "Show a table's size, row count, dead rows and last vacuum.", {
      database: str("Database name."),
      table: str("Table name.")
    }, ["database", "table"]),
    op(
      "export_table",
      "Dump a table, or the rows matching a condition, to a file in the given format.",
      {
        database: str("Database name."),
        table: str("Table name."),
        format: enumOf(["csv", "json", "parquet"], "File format."),
        where: str("Optional SQL condition.")
      },
      ["database", "table", "format"]
    ),
    op("import_data", "Load CSV text into a table.", {
      database: str("Database name."),
      table: str("Table name."),
      csv: str("The CSV text."),
      header: bool("The first line holds column names.")
    }, ["database", "table", "csv"]),
    op("apply_migration", "Apply a named schema migration inside a transaction and record it.", {
      database: str("Database name."),
      name: str("Migration name."),
      sql: str("The DDL to run.")
    }, ["database", "name", "sql"])
  ]
}

const docs: ServiceSpec = {
  id: "docs",
  title: "Docs",
  description: "Team wiki: spaces, pages, comments, templates and attachments.",
  category: "knowledge",
  prefix: "docs_",
  item: "page",
  ops: [
    op("search_pages", "Search wiki pages by words in the title or body.", {
      query: str("Words to find."),
      space: str("Restrict to one space."),
      limit
    }, ["query"]),
    op("get_page", "Read a wiki page's content and metadata.", {
      page_id: str("Page id."),
      format: enumOf(["markdown", "html"], "Content format (default markdown).")
    }, ["page_id"]),
    op(
      "create_page",
      "Write a new wiki page in a space, optionally under a parent page.",
      {
        space: str("Space key."),
        title: str("Page title."),
        content: str("Body in Markdown."),
        parent_id: str("Parent page."),
        labels: strs("Labels.")
      },
      ["space", "title", "content"]
    ),
    op(
      "update_page",
      "Replace a page's content or title, as a new version.",
      {
        page_id: str("Page id."),
        content: str("New body in Markdown."),
        title: str("New title."),
        version_comment: str("What changed.")
      },
      ["page_id"]
    ),
    op("delete_page", "Delete a page; child pages move up a level.", { page_id: str("Page id.") }, ["page_id"]),
    op("move_page", "Move a page under another parent or into another space.", {
      page_id: str("Page id."),
      new_parent_id: str("New parent page."),
      space: str("Target space.")
    }, ["page_id"]),
    op("list_spaces", "List the wiki spaces you can read.", { limit }),
    op("get_space", "Show a space: its home page, owners and permissions.", { space: str("Space key.") }, ["space"]),
    op("create_space", "Create a wiki space for a team or project.", {
      key: str("Short key, e.g. ENG."),
      name: str("Space name."),
      description: str("What it is for.")
    }, ["key", "name"]),
    op("list_child_pages", "List the pages directly under a page.", { page_id: str("Parent page id.") }, ["page_id"]),
    op(
      "add_comment",
      "Comment on a wiki page, at the bottom or on a highlighted passage.",
      {
        page_id: str("Page id."),
        body: str("Comment text."),
        inline: obj(
          { anchor_text: str("The passage commented on."), occurrence: int("Which occurrence of it (default 1).", 1) },
          "Attach the comment to a passage.",
          ["anchor_text"]
        )
      },
      ["page_id", "body"]
    ),
    op("list_comments", "List a page's comments with their replies.", { page_id: str("Page id.") }, ["page_id"]),
    op("add_labels", "Tag a page with labels.", { page_id: str("Page id."), labels: strs("Labels.") }, [
      "page_id",
      "labels"
    ]),
    op("list_page_versions", "List a page's versions with author, date and comment.", {
      page_id: str("Page id."),
      limit
    }, ["page_id"]),
    op("restore_page_version", "Make an old version of a page current again.", {
      page_id: str("Page id."),
      version: int("Version number.", 1)
    }, ["page_id", "version"]),
    op("export_page", "Export a page as a PDF, Word or Markdown file.", {
      page_id: str("Page id."),
      format: enumOf(["pdf", "docx", "markdown"], "File format.")
    }, ["page_id", "format"]),
    op("upload_attachment", "Attach a file to a wiki page.", {
      page_id: str("Page id."),
      filename: str("File name."),
      content: str("File content, text or base64.")
    }, ["page_id", "filename", "content"]),
    op("list_templates", "List the page templates of a space.", { space: str("Space key.") }),
    op(
      "create_page_from_template",
      "Create a page from a template, filling its placeholders.",
      {
        template_id: str("Template id."),
        space: str("Space key."),
        title: str("Page title."),
        variables: obj({}, "Placeholder values by name.")
      },
      ["template_id", "space", "title"]
    ),
    op("watch_page", "Get notified when a page or its children change.", {
      page_id: str("Page id."),
      include_children: bool("Also watch child pages.")
    }, ["page_id"]),
    op("list_recent_pages", "List recently updated pages, across spaces or in one.", {
      space: str("Space key."),
      limit
    })
  ]
}

const hr: ServiceSpec = {
  id: "hr",
  title: "HR",
  description: "People operations: employees, time off, hiring, onboarding, benefits and pay.",
  category: "people",
  prefix: "hr_",
  item: "employee",
  ops: [
    op(
      "list_employees",
      "List employees by department, location or status.",
      {
        department: str("Department name."),
        location: str("Office or country."),
        status: enumOf(["active", "on_leave", "terminated"], "Employment status (default active)."),
        limit,
        cursor
      }
    ),
    op("get_employee", "Look up one employee's profile: role, team, manager, start date and contact details.", {
      employee_id: str("Employee id.")
    }, ["employee_id"]),
    op("search_directory", "Find colleagues in the company directory by name, role or skill.", {
      query: str("Words to find."),
      limit
    }, ["query"]),
    op(
      "add_employee",
      "Create the record of a new hire.",
      {
        first_name: str("Given name."),
        last_name: str("Family name."),
        email: str("Work e-mail."),
        job_title: str("Role."),
        department: str("Department."),
        manager_id: str("Manager's employee id."),
        start_date: date("First day"),
        employment_type: enumOf(["full_time", "part_time", "contractor", "intern"], "Contract type.")
      },
      ["first_name", "last_name", "email", "start_date"]
    ),
    op("update_employee", "Change an employee's role, department, manager or location.", {
      employee_id: str("Employee id."),
      job_title: str("New role."),
      department: str("New department."),
      manager_id: str("New manager."),
      location: str("New location.")
    }, ["employee_id"]),
    op("get_org_chart", "Show the reporting tree under a person, to a given depth.", {
      employee_id: str("Root of the tree (default: the CEO)."),
      depth: int("Levels to include.", 1, 6)
    }),
    op(
      "request_time_off",
      "Request time off for vacation, sick leave or another absence; the manager is asked to approve it.",
      {
        employee_id: str("Who is away."),
        type: enumOf(["vacation", "sick", "parental", "unpaid"], "Kind of absence."),
        start_date: date("First day"),
        end_date: date("Last day"),
        note: str("Note for the approver.")
      },
      ["employee_id", "type", "start_date", "end_date"]
    ),
    op("list_time_off_requests", "List absence requests, pending ones first.", {
      employee_id: str("Only this person."),
      status: enumOf(["pending", "approved", "rejected"], "Request status."),
      limit
    }),
    op("approve_time_off", "Approve a pending absence request.", {
      request_id: str("Request id."),
      note: str("Message to the requester.")
    }, ["request_id"]),
    op("reject_time_off", "Turn down a pending absence request, with a reason.", {
      request_id: str("Request id."),
      reason: str("Why.")
    }, ["request_id", "reason"]),
    op("get_time_off_balance", "Show how many vacation and leave days a person has left this year.", {
      employee_id: str("Employee id.")
    }, ["employee_id"]),
    op("list_holidays", "List the public holidays of a country for a year.", {
      country: str("ISO country code."),
      year: int("Year.", 2000, 2100)
    }, ["country"]),
    op("list_open_positions", "List open job positions by department or location.", {
      department: str("Department."),
      location: str("Location."),
      limit
    }),
    op(
      "create_job_posting",
      "Open a position and publish the job ad.",
      {
        title: str("Job title."),
        department: str("Department."),
        location: str("Location or 'remote'."),
        description: str("The ad text."),
        salary_range: obj(
          { min: int("Lower bound.", 0), max: int("Upper bound.", 0), currency: str("ISO 4217 code.") },
          "Published pay range.",
          ["min", "max", "currency"]
        )
      },
      ["title", "department", "location"]
    ),
    op(
      "list_candidates",
      "List applicants to a position by hiring stage.",
      {
        position_id: str("Position id."),
        stage: enumOf(["applied", "screen", "interview", "offer", "hired", "rejected"], "Hiring stage."),
        limit
      },
      ["position_id"]
    ),
    op(
      "schedule_interview",
      "Set up an interview between a candidate and interviewers; invitations go out by e-mail.",
      {
        candidate_id: str("Candidate id."),
        interviewers: strs("Employee ids."),
        start: time("Start"),
        duration_minutes: int("Length.", 15, 240),
        format: enumOf(["onsite", "video", "phone"], "Format.")
      },
      ["candidate_id", "interviewers", "start"]
    ),
    op(
      "submit_interview_feedback",
      "Record an interviewer's rating and recommendation for a candidate.",
      {
        interview_id: str("Interview id."),
        rating: int("1 (poor) to 4 (excellent).", 1, 4),
        recommendation: enumOf(["strong_no", "no", "yes", "strong_yes"], "Hire or not."),
        notes: str("Evidence for the rating.")
      },
      ["interview_id", "rating", "recommendation"]
    ),
    op("start_onboarding", "Start a new hire's onboarding checklist: accounts, equipment, first-week meetings.", {
      employee_id: str("Employee id."),
      template: str("Checklist template (default: standard).")
    }, ["employee_id"]),
    op("list_benefits", "List the benefit plans an employee can join.", { employee_id: str("Employee id.") }),
    op("enroll_in_benefit", "Enroll an employee, and optionally dependants, in a benefit plan.", {
      employee_id: str("Employee id."),
      plan_id: str("Plan id."),
      dependants: int("Dependants covered.", 0)
    }, ["employee_id", "plan_id"]),
    op("get_payslip", "Show an employee's payslip for a month: gross, deductions, net.", {
      employee_id: str("Employee id."),
      month: str("Month as YYYY-MM.")
    }, ["employee_id", "month"]),
    op("offboard_employee", "Record a departure and schedule account removal and equipment return.", {
      employee_id: str("Employee id."),
      last_day: date("Last working day"),
      reason: enumOf(["resignation", "termination", "end_of_contract", "retirement"], "Why.")
    }, ["employee_id", "last_day"])
  ]
}

const maps: ServiceSpec = {
  id: "maps",
  title: "Maps",
  description: "Geography: geocoding, routes, places, distances and geofences.",
  category: "geo",
  prefix: "maps_",
  item: "place",
  ops: [
    op(
      "geocode_address",
      "Turn a street address or place name into latitude and longitude.",
      { address: str("Address or place name."), country: str("ISO country code to bias results.") },
      ["address"],
      { respond: (p) => ({ address: text(p, "address"), ...coordinates(text(p, "address")), precision: "street" }) }
    ),
    op(
      "reverse_geocode",
      "Find the address at a latitude and longitude.",
      { lat: num("Latitude."), lng: num("Longitude.") },
      ["lat", "lng"],
      {
        respond: (p) => ({
          lat: count(p, "lat", 0),
          lng: count(p, "lng", 0),
          address: `${pick(`${count(p, "lat", 0)}${count(p, "lng", 0)}`, 1, 250)} Harbour Road, Port Demo`
        })
      }
    ),
    op(
      "get_directions",
      "Plan a route between two places by car, on foot, by bike or by public transport, with turn-by-turn steps.",
      {
        origin: str("Start address or lat,lng."),
        destination: str("End address or lat,lng."),
        mode: enumOf(["driving", "walking", "cycling", "transit"], "How to travel (default driving)."),
        avoid: arr(enumOf(["tolls", "highways", "ferries"], "Feature."), "What to avoid."),
        depart_at: time("Departure time")
      },
      ["origin", "destination"],
      {
        respond: (p) => {
          const km = pick(`${text(p, "origin")}>${text(p, "destination")}`, 3, 480)
          const mode = text(p, "mode", "driving")
          const speed = mode === "walking" ? 5 : mode === "cycling" ? 16 : mode === "transit" ? 35 : 60
          return {
            origin: text(p, "origin"),
            destination: text(p, "destination"),
            mode,
            distance_km: km,
            duration_minutes: Math.round((km / speed) * 60),
            steps: [`Leave ${text(p, "origin")}`, "Follow the main road", `Arrive at ${text(p, "destination")}`]
          }
        }
      }
    ),
    op(
      "search_places",
      "Search points of interest such as restaurants, shops or stations near a location.",
      {
        query: str("What to look for, e.g. coffee."),
        near: str("Address or lat,lng to search around."),
        radius_m: int("Search radius in meters.", 50, 50000),
        open_now: bool("Only places open now.")
      },
      ["query"]
    ),
    op("get_place_details", "Show a place's address, opening hours, phone, rating and website.", {
      place_id: str("Place id.")
    }, ["place_id"]),
    op(
      "get_distance_matrix",
      "Compute travel distance and time between every origin and every destination.",
      {
        origins: strs("Start addresses."),
        destinations: strs("End addresses."),
        mode: enumOf(["driving", "walking", "cycling", "transit"], "How to travel.")
      },
      ["origins", "destinations"]
    ),
    op("get_elevation", "Give the ground elevation at one or more points.", {
      points: arr(obj({ lat: num("Latitude."), lng: num("Longitude.") }, "A point.", ["lat", "lng"]), "Points.")
    }, ["points"]),
    op("get_timezone", "Tell the time zone and UTC offset at a latitude and longitude.", {
      lat: num("Latitude."),
      lng: num("Longitude.")
    }, ["lat", "lng"]),
    op("autocomplete_address", "Suggest complete addresses for a partly typed one.", {
      input: str("What has been typed so far."),
      country: str("ISO country code.")
    }, ["input"]),
    op("snap_to_roads", "Align a list of GPS points to the most likely roads travelled.", {
      path: arr(obj({ lat: num("Latitude."), lng: num("Longitude.") }, "A point.", ["lat", "lng"]), "The GPS trace.")
    }, ["path"]),
    op(
      "get_static_map",
      "Render a map image for a center and zoom, with markers; returns its URL.",
      {
        center: str("Address or lat,lng."),
        zoom: int("Zoom level.", 1, 20),
        markers: strs("Addresses to mark."),
        size: str("Width x height in pixels, e.g. 600x400.")
      },
      ["center"]
    ),
    op("list_saved_places", "List the places saved to your account.", { limit }),
    op("save_place", "Save a place to your account under a label.", {
      place_id: str("Place id."),
      label: str("Your name for it.")
    }, ["place_id"]),
    op(
      "create_geofence",
      "Define a circular zone that triggers events when tracked devices enter or leave it.",
      {
        name: str("Zone name."),
        center: obj({ lat: num("Latitude."), lng: num("Longitude.") }, "Center.", ["lat", "lng"]),
        radius_m: int("Radius in meters.", 10)
      },
      ["name", "center", "radius_m"]
    ),
    op("list_geofences", "List your geofences.", {}),
    op("delete_geofence", "Delete a geofence.", { geofence_id: str("Geofence id.") }, ["geofence_id"]),
    op(
      "optimize_route",
      "Order a set of stops into the shortest round, e.g. for deliveries.",
      {
        start: str("Start address."),
        stops: strs("Addresses to visit."),
        end: str("End address (default: back to start)."),
        mode: enumOf(["driving", "cycling", "walking"], "How to travel.")
      },
      ["start", "stops"]
    ),
    op("get_traffic", "Report current traffic on a road or around a place: delays and incidents.", {
      area: str("Road name or address.")
    }, ["area"])
  ]
}

const weather: ServiceSpec = {
  id: "weather",
  title: "Weather",
  description: "Weather data: current conditions, forecasts, alerts, air quality and history.",
  category: "weather",
  prefix: "weather_",
  item: "report",
  ops: [
    op(
      "get_current_conditions",
      "Tell what the weather is like right now at a place: current temperature, wind, humidity and sky.",
      { location: str("City name or lat,lng."), units: enumOf(["metric", "imperial"], "Units (default metric).") },
      ["location"],
      {
        respond: (p) => ({
          location: text(p, "location"),
          temperature: pick(`t${text(p, "location")}`, -5, 32),
          units: text(p, "units", "metric"),
          condition: CONDITIONS[pick(`c${text(p, "location")}`, 0, CONDITIONS.length - 1)],
          humidity_percent: pick(`h${text(p, "location")}`, 30, 95),
          wind_kmh: pick(`w${text(p, "location")}`, 0, 45),
          observed_at: DEMO_NOW
        })
      }
    ),
    op(
      "get_forecast",
      "Get the daily weather forecast for a city or place, up to 14 days ahead: highs, lows, rain chance.",
      {
        location: str("City name or lat,lng."),
        days: int("How many days (default 5).", 1, 14),
        units: enumOf(["metric", "imperial"], "Units (default metric).")
      },
      ["location"],
      {
        respond: (p) => {
          const location = text(p, "location")
          return {
            location,
            units: text(p, "units", "metric"),
            days: Array.from({ length: count(p, "days", 5) }, (_, i) => {
              const low = pick(`lo${location}${i}`, -3, 18)
              return {
                date: `2025-06-${String(2 + i).padStart(2, "0")}`,
                low,
                high: low + pick(`hi${location}${i}`, 3, 12),
                condition: CONDITIONS[pick(`c${location}${i}`, 0, CONDITIONS.length - 1)],
                rain_chance_percent: pick(`r${location}${i}`, 0, 90)
              }
            })
          }
        }
      }
    ),
    op("get_hourly_forecast", "Get an hour-by-hour forecast for the next hours at a place.", {
      location: str("City name or lat,lng."),
      hours: int("How many hours (default 24).", 1, 48)
    }, ["location"]),
    op(
      "list_alerts",
      "List active severe weather warnings for a region, such as storms, floods or heat.",
      {
        location: str("City, region or lat,lng."),
        severity: enumOf(["minor", "moderate", "severe", "extreme"], "Minimum severity.")
      },
      ["location"]
    ),
    op("get_air_quality", "Report the air quality index and pollutant levels at a place.", {
      location: str("City name or lat,lng.")
    }, ["location"]),
    op("get_uv_index", "Give the UV index forecast for today at a place.", { location: str("City name or lat,lng.") }, [
      "location"
    ]),
    op("get_historical_weather", "Look up the observed weather at a place on a past date.", {
      location: str("City name or lat,lng."),
      date: date("The day")
    }, ["location", "date"]),
    op("get_sunrise_sunset", "Give sunrise, sunset and daylight length at a place on a date.", {
      location: str("City name or lat,lng."),
      date: date("The day (default today)")
    }, ["location"]),
    op("get_marine_forecast", "Forecast waves, swell, sea temperature and wind for a coastal spot.", {
      location: str("Coastal place or lat,lng."),
      days: int("Days ahead.", 1, 7)
    }, ["location"]),
    op("get_pollen_forecast", "Forecast pollen levels by plant type for the coming days.", {
      location: str("City name or lat,lng."),
      days: int("Days ahead.", 1, 5)
    }, ["location"]),
    op("get_radar_image", "Get the URL of the latest precipitation radar image around a place.", {
      location: str("City name or lat,lng."),
      zoom: int("Zoom level.", 3, 12)
    }, ["location"]),
    op("compare_locations", "Compare today's weather across several places side by side.", {
      locations: strs("City names.")
    }, ["locations"]),
    op(
      "subscribe_to_alerts",
      "Get an e-mail whenever a weather warning is issued for a place.",
      {
        location: str("City name or lat,lng."),
        email: str("Where to send warnings."),
        min_severity: enumOf(["minor", "moderate", "severe", "extreme"], "Lowest severity to send.")
      },
      ["location", "email"]
    )
  ]
}

const LANGUAGES: Readonly<Record<string, string>> = {
  en: "English",
  es: "Spanish",
  fr: "French",
  de: "German",
  it: "Italian",
  pt: "Portuguese",
  ja: "Japanese",
  ko: "Korean",
  zh: "Chinese"
}
const languageCode = (u: string): string => {
  const lower = u.toLowerCase()
  return Object.entries(LANGUAGES).find(([code, name]) => code === lower || name.toLowerCase() === lower)?.[0] ?? lower
}

const translate: ServiceSpec = {
  id: "translate",
  title: "Translation",
  description: "Machine translation: text, documents, glossaries and language detection.",
  category: "language",
  prefix: "translate_",
  item: "translation",
  ops: [
    op(
      "text",
      "Translate text into another language; the source language is detected when not given.",
      {
        text: str("The text to translate."),
        target_language: str("Language code or name, e.g. es or Spanish."),
        source_language: str("Language of the text (default: detect)."),
        formality: enumOf(["default", "formal", "informal"], "Tone, where the language distinguishes it."),
        glossary_id: str("Glossary to apply.")
      },
      ["text", "target_language"],
      {
        respond: (p) => {
          const target = languageCode(text(p, "target_language"))
          return {
            translation: `[${target}] ${text(p, "text")}`,
            source_language: languageCode(text(p, "source_language", "en")),
            target_language: target
          }
        }
      }
    ),
    op(
      "detect_language",
      "Detect the language a text is written in, with a confidence score.",
      { text: str("The text.") },
      ["text"],
      {
        respond: (p) => {
          const t = text(p, "text")
          const code = /[\uac00-\ud7a3]/.test(t)
            ? "ko"
            : /[\u3040-\u30ff]/.test(t)
            ? "ja"
            : /[\u4e00-\u9fff]/.test(t)
            ? "zh"
            : /[ñ¿¡]/.test(t)
            ? "es"
            : "en"
          return { language: code, name: LANGUAGES[code], confidence: 0.93 }
        }
      }
    ),
    op(
      "batch",
      "Translate many short texts into one language in a single call, keeping their order.",
      { texts: strs("The texts."), target_language: str("Language code or name.") },
      ["texts", "target_language"],
      {
        respond: (p) => {
          const target = languageCode(text(p, "target_language"))
          const texts = Array.isArray(p["texts"]) ? p["texts"] : []
          return { target_language: target, translations: texts.map((t) => `[${target}] ${String(t)}`) }
        }
      }
    ),
    op(
      "document",
      "Translate a whole document (docx, pdf, html) and keep its layout; runs as a job.",
      {
        file_id: str("Storage file id of the document."),
        target_language: str("Language code or name."),
        output_format: enumOf(["same", "pdf", "docx"], "Format of the result.")
      },
      ["file_id", "target_language"],
      {
        respond: (p) => ({
          job_id: `job_${tag("translate_document", p)}`,
          status: "queued",
          file_id: text(p, "file_id")
        })
      }
    ),
    op("get_job_status", "Check a document translation job and get the result file when done.", {
      job_id: str("Job id.")
    }, ["job_id"]),
    op("list_languages", "List the languages that can be translated from and to.", {
      target: bool("Only languages usable as target.")
    }),
    op(
      "create_glossary",
      "Create a glossary of fixed term translations, e.g. product names, for one language pair.",
      {
        name: str("Glossary name."),
        source_language: str("Language of the terms."),
        target_language: str("Language of the translations."),
        entries: arr(
          obj({ source: str("Term."), target: str("Its translation.") }, "One entry.", ["source", "target"]),
          "Terms."
        )
      },
      ["name", "source_language", "target_language", "entries"]
    ),
    op("list_glossaries", "List your glossaries with their language pairs and sizes.", {}),
    op("get_glossary", "Show a glossary's entries.", { glossary_id: str("Glossary id.") }, ["glossary_id"]),
    op("delete_glossary", "Delete a glossary.", { glossary_id: str("Glossary id.") }, ["glossary_id"]),
    op("transliterate", "Write a text in another script without translating it, e.g. Cyrillic to Latin letters.", {
      text: str("The text."),
      to_script: enumOf(["latin", "cyrillic", "hangul", "kana"], "Target script.")
    }, ["text", "to_script"]),
    op("proofread", "Check a text for spelling and grammar mistakes and suggest corrections.", {
      text: str("The text."),
      language: str("Language code (default: detect).")
    }, ["text"])
  ]
}

const SPECS: ReadonlyArray<ServiceSpec> = [
  workspace,
  chat,
  code,
  tickets,
  calendar,
  email,
  storage,
  crm,
  billing,
  monitoring,
  db,
  docs,
  hr,
  maps,
  weather,
  translate
]

// -----------------------------------------------------------------------------
// The catalog
// -----------------------------------------------------------------------------

/** The services of the demo catalog, in declaration order; each is the `source` of its tools. */
export const services: ReadonlyArray<Service> = SPECS.map(({ description, id, title }) => ({ id, title, description }))

/** Every tool of the demo catalog, handlers attached: a few eager workspace tools, the rest deferred. */
export const tools: ReadonlyArray<CatalogTool.CatalogTool> = SPECS.flatMap(build)

const byName = new Map(tools.map((t) => [t.name, t]))

/** The demo tool with this name, if any. */
export const toolByName = (name: string): CatalogTool.CatalogTool | undefined => byName.get(name)
