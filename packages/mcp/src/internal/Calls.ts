/**
 * What the gateway answers to one `tools/call`: a result, or a JSON-RPC error sent as is; and the
 * check of the call's params, bounds first, before anything else happens.
 *
 * @internal
 */
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js"
import { Predicate } from "effect"
import type { Limits } from "../Gateway.js"
import type * as McpTool from "../McpTool.js"
import * as JsonBounds from "./JsonBounds.js"

/** What a call handler answers: a result, or a JSON-RPC error to send as is. */
export type Answer =
  | { readonly _tag: "Result"; readonly result: McpTool.CallToolResult }
  | { readonly _tag: "Error"; readonly code: number; readonly message: string; readonly data?: unknown }

/** A JSON-RPC error with an exact message: the SDK sends `code`, `message` and `data` as they are. */
export class JsonRpcError extends Error {
  constructor(readonly code: number, message: string, readonly data: unknown) {
    super(message)
  }
}

export const text = (value: string) => ({ type: "text", text: value })

export const textResult = (value: string, isError: boolean): McpTool.CallToolResult => ({
  content: [text(value)],
  ...(isError ? { isError: true } : {})
})

export const result = (value: McpTool.CallToolResult): Answer => ({ _tag: "Result", result: value })

export const invalidParams = (message: string): Answer => ({ _tag: "Error", code: ErrorCode.InvalidParams, message })

/** Checks `tools/call` params, bounds first: the reason is one line naming what and which limit. */
export const checkParams = (
  params: unknown,
  limits: Limits
): { readonly name: string; readonly args: Record<string, unknown> } | string => {
  if (!Predicate.isObject(params)) return "tools/call needs params {\"name\": \"<tool>\", \"arguments\": {...}}"
  const name = params["name"]
  if (typeof name !== "string" || name === "") return "tools/call: \"name\" must be a non-empty string"
  const args = params["arguments"] ?? {}
  if (!Predicate.isObject(args)) {
    return `tools/call: "arguments" must be a JSON object, not ${Array.isArray(args) ? "an array" : typeof args}`
  }
  const exceeded = JsonBounds.exceeds(args, { maxBytes: limits.maxArgumentBytes, maxDepth: limits.maxArgumentDepth })
  if (exceeded?._tag === "Depth") {
    return `tools/call: "arguments" nest deeper than ${exceeded.maxDepth} levels (maxArgumentDepth)`
  }
  if (exceeded?._tag === "Bytes") {
    return `tools/call: "arguments" are larger than ${exceeded.maxBytes} bytes (maxArgumentBytes)`
  }
  return { name, args }
}
