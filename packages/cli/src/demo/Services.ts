/**
 * The demo catalog: a few hundred invented tools from fifteen made-up services (chat, code hosting,
 * tickets, calendar, email, storage, CRM, billing, monitoring, databases, docs, HR, maps, weather,
 * translation) plus the agent's own workspace tools, so `npm start` can show progressive disclosure
 * on a catalog as large as a real agent's.
 *
 * Every text here was written for this project. The services and their tools are data
 * (`data/<service>.json`, shipped with the package and decoded here); each tool gets a fake handler
 * from `Engine`, a pure function of its parameters (no randomness, no I/O, no clock), so the demo
 * and its tests are reproducible. Handlers check their parameters against the tool's schema and
 * answer a bad call with an error naming the problem.
 *
 * @since 0.1.0
 */
import { CatalogTool } from "@tool-search/core"
import { Schema } from "effect"
import { answers } from "./Answers.js"
import billing from "./data/billing.json" with { type: "json" }
import calendar from "./data/calendar.json" with { type: "json" }
import chat from "./data/chat.json" with { type: "json" }
import code from "./data/code.json" with { type: "json" }
import crm from "./data/crm.json" with { type: "json" }
import db from "./data/db.json" with { type: "json" }
import docs from "./data/docs.json" with { type: "json" }
import email from "./data/email.json" with { type: "json" }
import hr from "./data/hr.json" with { type: "json" }
import maps from "./data/maps.json" with { type: "json" }
import monitoring from "./data/monitoring.json" with { type: "json" }
import storage from "./data/storage.json" with { type: "json" }
import tickets from "./data/tickets.json" with { type: "json" }
import translate from "./data/translate.json" with { type: "json" }
import weather from "./data/weather.json" with { type: "json" }
import workspace from "./data/workspace.json" with { type: "json" }
import * as Engine from "./Engine.js"

export { DEMO_NOW } from "./Stable.js"

/**
 * A service of the demo catalog: the `source` of its tools.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly id: string
  readonly title: string
  readonly description: string
}

const ToolData = Schema.Struct({
  /** The tool name without the service prefix; its first word is the verb. */
  name: Schema.String,
  description: Schema.String,
  loading: Schema.optionalKey(Schema.Literals(["eager", "deferred"])),
  parameters: Schema.Struct({
    type: Schema.Literal("object"),
    properties: Schema.Record(Schema.String, Schema.Record(Schema.String, Schema.Json)),
    required: Schema.optionalKey(Schema.Array(Schema.String))
  })
})

/** One data file: a service and its tools. */
const ServiceData = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  description: Schema.String,
  /** The category word of every tool of the service. */
  category: Schema.String,
  /** Prepended to tool names; the workspace tools have none, like an agent's built-ins. */
  prefix: Schema.String,
  /** What the service's records are called, when a tool name has no noun. */
  item: Schema.String,
  tools: Schema.Array(ToolData)
})

// Static data, checked by the tests: a decoding failure here is a bug of the package.
const data = Schema.decodeUnknownSync(Schema.Array(ServiceData))([
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
])

const build = (spec: typeof ServiceData.Type): ReadonlyArray<CatalogTool.CatalogTool> =>
  spec.tools.map((tool) => {
    const name = `${spec.prefix}${tool.name}`
    return CatalogTool.make({
      name,
      description: tool.description,
      parameters: tool.parameters,
      loading: tool.loading ?? "deferred",
      category: spec.category,
      source: spec.id,
      annotations: Engine.annotations(tool.name),
      handler: Engine.handler(name, tool.name, spec.item, tool.parameters, answers[name])
    })
  })

/**
 * The services of the demo catalog, in declaration order; each is the `source` of its tools.
 *
 * @since 0.1.0
 * @category data
 */
export const services: ReadonlyArray<Service> = data.map(({ description, id, title }) => ({ id, title, description }))

/**
 * Every tool of the demo catalog, handlers attached: a few eager workspace tools, the rest deferred.
 *
 * @since 0.1.0
 * @category data
 */
export const tools: ReadonlyArray<CatalogTool.CatalogTool> = data.flatMap(build)

const byName = new Map(tools.map((t) => [t.name, t]))

/**
 * The demo tool with this name, if any.
 *
 * @since 0.1.0
 * @category data
 */
export const toolByName = (name: string): CatalogTool.CatalogTool | undefined => byName.get(name)
