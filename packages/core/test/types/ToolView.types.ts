/**
 * Type tests, checked by `tsc -b` (never run): a `ToolView` has no write operations in its type.
 */
import type { ToolView } from "../../src/index.js"

export const readOnly = (view: ToolView.ToolView["Service"]) => {
  // @ts-expect-error a ToolView cannot register tools
  void view.register
  // @ts-expect-error a ToolView cannot unregister tools
  void view.unregister
  return view.visible
}
