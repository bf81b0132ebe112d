/**
 * The upstream servers a gateway reports and forwards to: none unless `Gateway.withSources` put
 * them in, which puts `McpSources` in the requirements of what it wraps.
 */
import { Context, Option } from "effect"
import type * as McpSources from "../McpSources.js"

/** The sources of the gateway sessions opened in context. */
export const Sources: Context.Reference<Option.Option<McpSources.Service>> = Context.Reference<
  Option.Option<McpSources.Service>
>("@tool-search/mcp/Gateway/Sources", { defaultValue: () => Option.none() })
