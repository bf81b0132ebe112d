/**
 * The multi-step tasks of `tool-search bench-disclosure`: work over large intermediate data that a
 * model carries out call by call (every page of a listing read into its context) or, in code mode,
 * as one program that keeps the data out of its context. Each task says what the scripted model
 * sets out to do (a `pipeline` plan) and what a correct run did, checked from the turn's events.
 *
 * @since 0.3.0
 */
import type { ScriptedModel, TurnEvent } from "@tool-search/agent"
import { Predicate } from "effect"
import { openInvoices } from "./Answers.js"

/**
 * A multi-step task: the user's message, the scripted model's plan, and the calls a correct run
 * makes (the tool, and the arguments each of its successful calls had).
 *
 * @since 0.3.0
 * @category models
 */
export interface Task {
  readonly user: string
  readonly plan: ScriptedModel.Plan
  readonly expects: { readonly tool: string; readonly calls: ReadonlyArray<Readonly<Record<string, unknown>>> }
}

/** The three largest overdue invoices, by amount due: what the reminder task acts on. */
const largestOverdue = [...openInvoices]
  .filter((invoice) => invoice.overdue)
  .sort((a, b) => b.amount_due - a.amount_due)
  .slice(0, 3)

/**
 * The tasks, in order.
 *
 * @since 0.3.0
 * @category data
 */
export const tasks: ReadonlyArray<Task> = [
  {
    user: "Send a payment reminder for the three largest overdue invoices.",
    plan: {
      search: "list invoices",
      pipeline: {
        list: {
          tool: "billing_list_invoices",
          search: "list invoices by status",
          params: { status: "open", limit: 50 },
          items: "data",
          cursor: { param: "cursor", next: "next_cursor" }
        },
        where: { overdue: true },
        largest: "amount_due",
        take: 3,
        act: { tool: "billing_send_invoice", search: "send an invoice to the customer", from: { invoice_id: "id" } }
      }
    },
    expects: { tool: "billing_send_invoice", calls: largestOverdue.map((invoice) => ({ invoice_id: invoice.id })) }
  }
]

/**
 * How many records the tasks list.
 *
 * @since 0.3.0
 * @category data
 */
export const records: number = openInvoices.length

/**
 * The scripted model's plans of the tasks, by user message.
 *
 * @since 0.3.0
 * @category data
 */
export const plans: Readonly<Record<string, ScriptedModel.Plan>> = Object.fromEntries(
  tasks.map((t) => [t.user, t.plan])
)

/**
 * Whether one task's events show it done: the turn answered, and the expected tool called with
 * exactly the expected arguments, each call successful — however the delivery made the calls
 * (by name, through `call_tool`, or from a program).
 *
 * @since 0.3.0
 * @category checks
 */
export const succeeded = (task: Task, events: ReadonlyArray<TurnEvent.TurnEvent>): boolean => {
  const answered = events.some((e) => e._tag === "TurnFinished" && e.path.length === 0 && e.stopReason === "answered")
  const ok = new Set(events.flatMap((e) => e._tag === "ToolResult" && !e.isFailure ? [e.id] : []))
  const made = events.flatMap((e) =>
    e._tag === "ToolCall" && e.name === task.expects.tool && ok.has(e.id) && Predicate.isObject(e.params)
      ? [JSON.stringify(e.params)]
      : []
  ).sort()
  const expected = task.expects.calls.map((c) => JSON.stringify(c)).sort()
  return answered && made.length === expected.length && made.every((m, i) => m === expected[i])
}
