/**
 * The demo conversation: what the user says in each turn, and what the scripted model sets out to
 * do about it. The plans name the tool the "model" means to use, but it still has to find it: the
 * executor only sends what the view shows.
 *
 * @since 0.1.0
 */
import type { ScriptedModel } from "@tool-search/agent"
import * as Policies from "./Policies.js"

/**
 * One turn of the conversation.
 *
 * @since 0.1.0
 * @category models
 */
export interface Turn {
  readonly user: string
  /** What the turn shows, printed above it. */
  readonly shows: string
}

/**
 * The turns, in order.
 *
 * @since 0.1.0
 * @category data
 */
export const turns: ReadonlyArray<Turn> = [
  {
    user: "Tell #releases on chat that v2.3 is live.",
    shows: "a capable model searches, the hits are activated, the next request carries them"
  },
  {
    user: "Open a bug ticket in WEB: the login page returns 500.",
    shows: "a model that guesses a tool name gets a corrective message and fixes itself"
  },
  {
    user: "Schedule a design review with dana@example.com tomorrow at 10:00.",
    shows: "a new turn starts with nothing activated: the previous turn's tools are gone"
  },
  {
    user: "Prepare the on-call handover: the open alerts, and the forecast for Paris.",
    shows: "two sub-agents run concurrently, each with its own activation"
  },
  {
    user: Policies.laptopReturn.text,
    shows:
      "resources in levels: a policy found through the table of contents, a sample and a search; only the passage that answers is read"
  }
]

/**
 * The plans of the scripted model, by user message (sub-agent tasks included).
 *
 * @since 0.1.0
 * @category data
 */
export const plans: Readonly<Record<string, ScriptedModel.Plan>> = {
  "Tell #releases on chat that v2.3 is live.": {
    search: "send a chat message",
    tool: "chat_send_message",
    params: { channel: "#releases", text: "v2.3 is live :rocket:" },
    answer: "Posted in #releases: v2.3 is live."
  },
  "Open a bug ticket in WEB: the login page returns 500.": {
    policy: "guesser",
    search: "open a ticket for a bug",
    tool: "tickets_create_issue",
    params: { project: "WEB", summary: "Login page returns 500", type: "bug", priority: "high" },
    answer: "Opened a high-priority bug in WEB for the login page."
  },
  "Schedule a design review with dana@example.com tomorrow at 10:00.": {
    search: "schedule a meeting",
    tool: "calendar_create_event",
    params: {
      title: "Design review",
      start: "2025-06-03T10:00:00Z",
      end: "2025-06-03T11:00:00Z",
      attendees: ["dana@example.com"]
    },
    answer: "Scheduled the design review with Dana for tomorrow 10:00-11:00."
  },
  "Prepare the on-call handover: the open alerts, and the forecast for Paris.": {
    search: "on-call handover",
    delegate: ["List the open monitoring alerts.", "Get the weather forecast for Paris."],
    answer: "Handover ready: open alerts listed, Paris forecast attached."
  },
  "List the open monitoring alerts.": {
    search: "list open alerts",
    tool: "monitoring_list_alerts",
    params: { status: "firing" }
  },
  "Get the weather forecast for Paris.": {
    search: "weather forecast for Paris",
    tool: "weather_get_forecast",
    params: { location: "Paris", days: 3 }
  },
  [Policies.laptopReturn.text]: {
    search: Policies.laptopReturn.topic,
    read: {
      topic: Policies.laptopReturn.topic,
      kind: "policy",
      keywords: Policies.laptopReturn.keywords,
      answerWords: Policies.laptopReturn.answerWords
    }
  }
}
