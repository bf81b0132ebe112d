/**
 * What the gateway sessions opened in context serve besides the tool catalog: the upstream servers
 * they report and forward to (none unless `Gateway.withSources` put them in, which puts
 * `McpSources` in the requirements of what it wraps), and the resource catalog (none unless
 * `Gateway.withResources` put one in, which puts `ResourceCatalog` in the requirements), and the
 * sandbox of code mode (none unless `Gateway.withCode` put one in, which puts `Sandbox` in the
 * requirements).
 *
 * @internal
 */
import type { Sandbox } from "@tool-search/code"
import type { ResourceCatalog } from "@tool-search/core"
import { Context, Option } from "effect"
import type * as McpSources from "../McpSources.js"

/** The sources of the gateway sessions opened in context. */
export const Sources: Context.Reference<Option.Option<McpSources.Service>> = Context.Reference<
  Option.Option<McpSources.Service>
>("@tool-search/mcp/Gateway/Sources", { defaultValue: () => Option.none() })

/** The resource catalog of the gateway sessions opened in context. */
export const Resources: Context.Reference<Option.Option<ResourceCatalog.Service>> = Context.Reference<
  Option.Option<ResourceCatalog.Service>
>("@tool-search/mcp/Gateway/Resources", { defaultValue: () => Option.none() })

/** The sandbox that runs the programs of the gateway sessions opened in context: code mode. */
export const Programs: Context.Reference<Option.Option<Sandbox.Service>> = Context.Reference<
  Option.Option<Sandbox.Service>
>("@tool-search/mcp/Gateway/Programs", { defaultValue: () => Option.none() })
