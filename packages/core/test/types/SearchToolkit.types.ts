/**
 * Type tests, checked by `tsc -b` (never run): a toolkit whose handlers need request-level
 * services cannot become a catalog shared by every turn.
 */
import { Context, Schema } from "effect"
import { Tool, Toolkit } from "effect/ai"
import { SearchToolkit } from "../../src/index.js"

class CurrentUser extends Context.Service<CurrentUser, { readonly id: string }>()("test/CurrentUser") {}

const NeedsUser = Tool.make("whoami", { success: Schema.String }).addDependency(CurrentUser)
const SelfContained = Tool.make("now", { success: Schema.Number })

export const accepted = SearchToolkit.layerFromToolkit(Toolkit.make(SelfContained))
// @ts-expect-error a handler that needs the caller's context cannot join a shared catalog
export const rejected = SearchToolkit.layerFromToolkit(Toolkit.make(NeedsUser))
