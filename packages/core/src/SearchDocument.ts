/**
 * The searchable text of a tool, split into the fields strategies weigh differently: name,
 * description, parameter names, parameter descriptions, category and aliases, plus the past
 * queries that found the tool and led to a successful call (`SearchFeedback`).
 *
 * Parameters are read defensively: a schema whose `properties` is missing or not an object yields
 * no parameter fields, never an error, so one malformed tool cannot break a search.
 *
 * @since 0.1.0
 */
import { Predicate } from "effect"
import type { CatalogTool } from "./CatalogTool.js"

/**
 * The fields of one tool, as strategies index them.
 *
 * @since 0.1.0
 * @category models
 */
export interface SearchDocument {
  readonly id: string
  readonly name: string
  readonly description: string
  readonly parameterNames: ReadonlyArray<string>
  readonly parameterDescriptions: ReadonlyArray<string>
  readonly category: string
  readonly aliases: ReadonlyArray<string>
  /** Past queries that found this tool and led to a successful call (`SearchFeedback`); none when absent. */
  readonly queries?: ReadonlyArray<string>
}

/**
 * Extracts the searchable fields of a tool (no past queries).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromTool = (tool: CatalogTool): SearchDocument => {
  const parameterNames: Array<string> = []
  const parameterDescriptions: Array<string> = []
  collect(tool.parameters, parameterNames, parameterDescriptions, 0)
  return {
    id: tool.id,
    name: tool.name,
    description: tool.description,
    // copies of their exact length: a list grown by `push` keeps room for 17 items, and a batch's
    // documents all live until it is indexed (100,000 tools: 22 MB less for the collector to move)
    parameterNames: parameterNames.slice(),
    parameterDescriptions: parameterDescriptions.slice(),
    category: tool.category ?? "",
    aliases: tool.aliases
  }
}

// Nested objects contribute their property names too (one level is where real schemas put them:
// `options.timeout`), but not deeper, so a huge schema cannot dominate the index.
const collect = (schema: unknown, names: Array<string>, descriptions: Array<string>, depth: number): void => {
  if (!Predicate.isObject(schema)) return
  const properties = schema["properties"]
  if (!Predicate.isObject(properties)) return
  for (const [name, property] of Object.entries(properties)) {
    names.push(name)
    if (!Predicate.isObject(property)) continue
    const description = property["description"]
    if (typeof description === "string" && description.length > 0) descriptions.push(description)
    if (depth === 0) collect(property, names, descriptions, depth + 1)
  }
}
