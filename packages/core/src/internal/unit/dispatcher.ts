/**
 * `call_tool {name, arguments}`: the fixed dispatcher of `result` delivery, through which the
 * model calls a tool it found without that tool ever joining the tool list. A call to it is
 * unwrapped into the call of the named tool before anything else happens, so that call runs
 * exactly as a direct one would: resolved by name (a tool that is not loaded gets the corrective
 * message), permission- and approval-checked, its arguments checked against that tool's own schema.
 */
import { Effect, type JsonSchema, Option, Predicate, Schema } from "effect"
import * as Disclosure from "../../Disclosure.js"
import type * as ToolArguments from "../../ToolArguments.js"
import type * as Unit from "./model.js"

/** A call as the model made it. */
type Call = Unit.Call

/** The dispatcher's name. */
export const CALL_TOOL = Disclosure.toolNames.callTool

const PARAMETERS: JsonSchema.JsonSchema = {
  type: "object",
  properties: {
    name: { type: "string", description: `The name of a tool ${Disclosure.toolNames.toolSearch} returned` },
    arguments: {
      type: "object",
      description:
        `The tool's arguments: an object matching the parameters ${Disclosure.toolNames.toolSearch} returned for it`
    }
  },
  required: ["name", "arguments"],
  additionalProperties: false
}

/** The dispatcher as the model sees it. It never runs itself: `unwrap` replaces every call to it. */
export const tool: Unit.ModelTool = {
  name: CALL_TOOL,
  description: `Call a tool that ${Disclosure.toolNames.toolSearch} loaded: pass its name and its arguments. ` +
    `Tools in your tool list are called directly; tools found by ${Disclosure.toolNames.toolSearch} are called through ` +
    `${CALL_TOOL}.`,
  parameters: PARAMETERS,
  kind: "meta",
  run: () => Effect.succeed({ isFailure: true, result: `${CALL_TOOL} is dispatched before it runs` })
}

/** The longest tool name `call_tool` accepts (MCP and providers allow 64-128 characters). */
const MAX_NAME = 256

const Input = Schema.Struct({ name: Schema.String, arguments: Schema.optionalKey(Schema.Unknown) })

/** What a call to the dispatcher asks for: the call of the named tool, or why it cannot be made. */
export type Unwrapped =
  | { readonly _tag: "Call"; readonly call: Call }
  | { readonly _tag: "Refused"; readonly message: string }

/**
 * The call `call` stands for: the named tool with `arguments` (marked `via: call_tool`), or a
 * refusal the model can act on. Calls to anything else, and calls already unwrapped, pass unchanged.
 */
export const unwrap = (call: Call, limits: ToolArguments.Limits): Unwrapped => {
  if (call.name !== CALL_TOOL || call.via !== undefined) return { _tag: "Call", call }
  if (typeof call.params === "string" && call.params.length > limits.maxSize) {
    return {
      _tag: "Refused",
      message: `Arguments larger than ${limits.maxSize.toLocaleString("en-US")} characters are refused`
    }
  }
  // the named tool's arguments are bounded and checked against its schema when it runs
  const params = typeof call.params === "string" ? parseObject(call.params) : call.params
  const input = Schema.decodeUnknownOption(Input)(params)
  if (Option.isNone(input) || input.value.name.trim() === "" || input.value.name.length > MAX_NAME) {
    return {
      _tag: "Refused",
      message:
        `${CALL_TOOL} needs {"name": "<a tool ${Disclosure.toolNames.toolSearch} returned>", "arguments": {...}}. ` +
        "Fix the call and try again."
    }
  }
  const { name } = input.value
  if (name === CALL_TOOL) return { _tag: "Refused", message: `${CALL_TOOL} cannot call itself: name the tool to run.` }
  return {
    _tag: "Call",
    // missing arguments are the empty object: the tool's schema says whether that is enough
    call: { id: call.id, name, params: input.value.arguments ?? {}, via: CALL_TOOL }
  }
}

/** A string holding a JSON object (some models encode the arguments twice), else the string. */
const parseObject = (text: string): unknown => {
  try {
    const value: unknown = JSON.parse(text)
    return Predicate.isObject(value) ? value : text
  } catch {
    return text
  }
}
