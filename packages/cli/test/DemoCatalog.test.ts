import { assert, describe, it, layer } from "@effect/vitest"
import { CatalogTool, Keyword, Query, ToolCatalog } from "@tool-search/core"
import { Effect, Layer, Predicate } from "effect"
import * as fc from "fast-check"
import * as Demo from "../src/demo/Services.js"

const isRecord = Predicate.isObject

const propertiesOf = (schema: unknown): Record<string, unknown> =>
  isRecord(schema) && isRecord(schema["properties"]) ? schema["properties"] : {}

const requiredOf = (schema: unknown): ReadonlyArray<string> =>
  isRecord(schema) && Array.isArray(schema["required"]) ? schema["required"].map(String) : []

/** The smallest value a schema accepts: the first enum value, the minimum, one item, required keys only. */
const example = (schema: unknown): unknown => {
  if (!isRecord(schema)) return null
  const values = schema["enum"]
  if (Array.isArray(values)) return values[0]
  const minimum = typeof schema["minimum"] === "number" ? schema["minimum"] : 1
  switch (schema["type"]) {
    case "string":
      return "x"
    case "integer":
      return Math.max(minimum, 1)
    case "number":
      return 1.5
    case "boolean":
      return true
    case "array":
      return isRecord(schema["items"]) && schema["items"]["type"] !== undefined ? [example(schema["items"])] : []
    case "object":
      return minimalParams(schema)
    default:
      return "x"
  }
}

/** Parameters with every required property set to its smallest valid value. */
const minimalParams = (schema: unknown): Record<string, unknown> => {
  const properties = propertiesOf(schema)
  return Object.fromEntries(requiredOf(schema).map((key) => [key, example(properties[key])]))
}

const call = (tool: CatalogTool.CatalogTool, params: unknown) => {
  const handler = tool.handler
  if (handler === undefined) return Effect.die(new Error(`${tool.name} has no handler`))
  return handler(params, { toolCallId: "test" })
}

const named = (name: string): CatalogTool.CatalogTool => {
  const tool = Demo.toolByName(name)
  if (tool === undefined) throw new Error(`no demo tool named ${name}`)
  return tool
}

describe("the demo catalog", () => {
  it("has at least 300 tools across at least 12 services, each tool from a declared service", () => {
    assert.isAtLeast(Demo.tools.length, 300)
    assert.isAtLeast(Demo.services.length, 12)
    const ids = new Set(Demo.services.map((s) => s.id))
    assert.strictEqual(ids.size, Demo.services.length, "service ids are unique")
    for (const tool of Demo.tools) assert.isTrue(tool.source !== undefined && ids.has(tool.source), tool.name)
    for (const service of Demo.services) {
      assert.isAbove(Demo.tools.filter((t) => t.source === service.id).length, 0, service.id)
    }
  })

  it("names are unique, provider-valid, and carry their service's prefix (the workspace's built-ins excepted)", () => {
    const names = Demo.tools.map((t) => t.name)
    assert.strictEqual(new Set(names).size, names.length)
    for (const tool of Demo.tools) {
      assert.isTrue(CatalogTool.isValidName(tool.name), tool.name)
      if (tool.source !== "workspace") assert.isTrue(tool.name.startsWith(`${tool.source}_`), tool.name)
    }
  })

  it("between 4 and 6 tools are eager; every deferred tool has a category and a source", () => {
    const eager = Demo.tools.filter((t) => t.loading === "eager")
    assert.isAtLeast(eager.length, 4)
    assert.isAtMost(eager.length, 6)
    for (const tool of Demo.tools.filter((t) => t.loading === "deferred")) {
      assert.isTrue((tool.category ?? "").length > 0, `${tool.name} has a category`)
      assert.isTrue((tool.source ?? "").length > 0, `${tool.name} has a source`)
    }
  })

  it("some names recur across services, as in real catalogs", () => {
    const suffixes = new Map<string, number>()
    for (const tool of Demo.tools) {
      const suffix = tool.name.slice(tool.name.indexOf("_") + 1)
      suffixes.set(suffix, (suffixes.get(suffix) ?? 0) + 1)
    }
    for (
      const shared of [
        "send_message",
        "search_messages",
        "add_comment",
        "create_issue",
        "upload_file",
        "list_alerts",
        "schedule_message"
      ]
    ) {
      assert.isAtLeast(suffixes.get(shared) ?? 0, 2, shared)
    }
  })

  it("descriptions have one to three sentences; schemas are objects whose properties are typed and described", () => {
    for (const tool of Demo.tools) {
      const sentences = tool.description.split(/(?<=[.!?])\s+/).filter((s) => s.length > 0)
      assert.isAtLeast(sentences.length, 1, tool.name)
      assert.isAtMost(sentences.length, 3, tool.name)
      assert.strictEqual(tool.parameters["type"], "object", tool.name)
      const properties = propertiesOf(tool.parameters)
      for (const key of requiredOf(tool.parameters)) assert.property(properties, key, `${tool.name}: required ${key}`)
      for (const [key, property] of Object.entries(properties)) {
        assert.isTrue(isRecord(property) && typeof property["type"] === "string", `${tool.name}.${key} has a type`)
        assert.isTrue(
          isRecord(property) && typeof property["description"] === "string",
          `${tool.name}.${key} is described`
        )
      }
    }
  })

  it.effect("every tool validates and has a handler", () =>
    Effect.gen(function*() {
      for (const tool of Demo.tools) {
        const valid = yield* CatalogTool.validate(tool)
        assert.strictEqual(valid.name, tool.name)
        assert.isDefined(tool.handler, tool.name)
      }
    }))

  it.effect("every handler answers minimal valid parameters with a JSON result, the same every time", () =>
    Effect.gen(function*() {
      for (const tool of Demo.tools) {
        const params = minimalParams(tool.parameters)
        const first = yield* call(tool, params)
        const second = yield* call(tool, structuredClone(params))
        assert.isFalse(first.isFailure, tool.name)
        assert.isDefined(first.result, tool.name)
        assert.deepStrictEqual(JSON.parse(JSON.stringify(first.result)), first.result, `${tool.name} is JSON`)
        assert.deepStrictEqual(second, first, `${tool.name} is deterministic`)
      }
    }))

  it.effect("answers are derived from the parameters", () =>
    Effect.gen(function*() {
      const send = named("chat_send_message")
      const a = yield* call(send, { channel: "#ops", text: "deploy done" })
      const b = yield* call(send, { text: "deploy done", channel: "#ops" })
      const c = yield* call(send, { channel: "#ops", text: "rollback" })
      assert.deepStrictEqual(b, a, "key order does not matter")
      assert.isTrue(isRecord(a.result) && isRecord(c.result))
      if (!isRecord(a.result) || !isRecord(c.result)) return
      assert.strictEqual(a.result["channel"], "#ops")
      assert.strictEqual(a.result["text"], "deploy done")
      assert.match(String(a.result["id"]), /^message_[0-9a-f]{8}$/)
      assert.notStrictEqual(a.result["id"], c.result["id"])

      const refund = yield* call(named("billing_refund_payment"), { payment_id: "pay_1" })
      assert.isTrue(
        isRecord(refund.result) && /^refund_[0-9a-f]{8}$/.test(String(refund.result["id"])),
        "a refund is made"
      )
      const sent = yield* call(named("billing_send_invoice"), { invoice_id: "inv_7" })
      assert.deepInclude(sent.result, { id: "inv_7", action: "send" }, "sending acts on the existing invoice")

      const list = yield* call(named("code_list_pull_requests"), { repo: "acme/web", limit: 1 })
      assert.isTrue(isRecord(list.result) && Array.isArray(list.result["items"]) && list.result["items"].length === 1)

      const forecast = yield* call(named("weather_get_forecast"), { location: "Paris", days: 3 })
      assert.isTrue(isRecord(forecast.result) && Array.isArray(forecast.result["days"]))
      if (isRecord(forecast.result) && Array.isArray(forecast.result["days"])) {
        assert.lengthOf(forecast.result["days"], 3)
      }

      const translated = yield* call(named("translate_text"), { text: "hello", target_language: "Spanish" })
      assert.deepInclude(translated.result, { target_language: "es" })

      const time = yield* call(named("get_current_time"), {})
      assert.deepInclude(time.result, { now: Demo.DEMO_NOW })
    }))

  it.effect("a bad call fails with a message naming the parameter", () =>
    Effect.gen(function*() {
      const send = named("chat_send_message")
      const missing = yield* Effect.flip(call(send, { channel: "#ops" }))
      assert.strictEqual(missing._tag, "ToolExecutionError")
      assert.include(missing.message, "missing required parameter 'text'")
      const unknown = yield* Effect.flip(call(send, { channel: "#ops", text: "hi", colour: "red" }))
      assert.include(unknown.message, "unknown parameter 'colour'")
      const wrongType = yield* Effect.flip(call(send, { channel: 42, text: "hi" }))
      assert.include(wrongType.message, "'channel' must be of type string")
      const badEnum = yield* Effect.flip(
        call(named("code_merge_pull_request"), { repo: "a/b", number: 1, method: "octopus" })
      )
      assert.include(badEnum.message, "'method' must be one of: merge, squash, rebase")
      const outOfRange = yield* Effect.flip(call(named("weather_get_forecast"), { location: "Oslo", days: 40 }))
      assert.include(outOfRange.message, "'days' must be at most 14")
      const notObject = yield* Effect.flip(call(send, "hello"))
      assert.include(notObject.message, "parameters must be a JSON object")
      const nested = yield* Effect.flip(call(named("calendar_create_event"), {
        title: "Review",
        start: "2025-06-03T10:00:00Z",
        end: "2025-06-03T11:00:00Z",
        attendees: ["dana@example.com", 42]
      }))
      assert.include(nested.message, "parameter 'attendees[1]' is invalid: Expected string")
      const none = yield* Effect.flip(call(named("email_list_folders"), { all: true }))
      assert.include(none.message, "unknown parameter 'all': this tool takes no parameters")
    }))

  it("handlers are pure: any string arguments give the same answer twice", () => {
    const send = named("email_send_message")
    fc.assert(
      fc.property(
        fc.array(fc.string(), { minLength: 1, maxLength: 3 }),
        fc.string(),
        fc.string(),
        (to, subject, body) => {
          const params = { to, subject, body }
          const first = Effect.runSync(call(send, params))
          const second = Effect.runSync(call(send, { ...params }))
          assert.deepStrictEqual(second, first)
          assert.deepInclude(first.result, { subject, body })
        }
      )
    )
  })
})

/** The demo's catalog, ranked by the keyword strategy. */
const DemoCatalog = ToolCatalog.layerWithTools(Demo.tools).pipe(Layer.provide(Keyword.layer))

/** Requests the demo conversation uses, with the tool each must surface. */
const requests: ReadonlyArray<readonly [string, string]> = [
  ["send a chat message", "chat_send_message"],
  ["create a pull request", "code_create_pull_request"],
  ["merge the pull request", "code_merge_pull_request"],
  ["open a ticket for a bug", "tickets_create_issue"],
  ["weather forecast for Paris", "weather_get_forecast"],
  ["current weather in Paris", "weather_get_current_conditions"],
  ["schedule a meeting", "calendar_create_event"],
  ["find free time for a meeting", "calendar_find_free_slots"],
  ["send an email", "email_send_message"],
  ["translate text to Spanish", "translate_text"],
  ["refund a payment", "billing_refund_payment"],
  ["create an invoice", "billing_create_invoice"],
  ["list open alerts", "monitoring_list_alerts"],
  ["who is on call", "monitoring_get_on_call"],
  ["declare an incident", "monitoring_create_incident"],
  ["upload a file to cloud storage", "storage_upload_file"],
  ["find a customer contact", "crm_search_contacts"],
  ["run a sql query", "db_run_query"],
  ["request time off", "hr_request_time_off"],
  ["directions between two addresses", "maps_get_directions"],
  ["search chat messages", "chat_search_messages"]
]

describe("the demo catalog in a tool catalog", () => {
  layer(DemoCatalog)((it) => {
    it.effect("registers whole, eager and deferred, every tool under its own name", () =>
      Effect.gen(function*() {
        const catalog = yield* ToolCatalog.ToolCatalog
        const all = yield* catalog.all
        assert.strictEqual(all.length, Demo.tools.length)
        assert.deepStrictEqual(all.map((t) => t.modelName), Demo.tools.map((t) => t.name))
        assert.deepStrictEqual(
          (yield* catalog.eager).map((t) => t.name),
          Demo.tools.filter((t) => t.loading === "eager").map((t) => t.name)
        )
      }))

    for (const [request, expected] of requests) {
      it.effect(`"${request}" finds ${expected} in the top 3`, () =>
        Effect.gen(function*() {
          const catalog = yield* ToolCatalog.ToolCatalog
          const matches = yield* catalog.search(Query.keywords(request), { limit: 3 })
          assert.include(matches.map((m) => m.tool.name), expected)
        }))
    }
  })
})
