/**
 * Type tests, checked by `tsc -b` (never run): a `ToolView` has no write operations in its type,
 * and the named `Service` interface is the service's shape.
 */
import type { ToolView } from "../../src/index.js"

export const readOnly = (view: ToolView.Service) => {
  // @ts-expect-error a ToolView cannot register tools
  void view.register
  // @ts-expect-error a ToolView cannot unregister tools
  void view.unregister
  return view.visible
}

/** `ToolView.ToolView["Service"]`, the older spelling, is the same type. */
export const sameShape = (view: ToolView.ToolView["Service"]): ToolView.Service => view
export const sameShapeBack = (view: ToolView.Service): ToolView.ToolView["Service"] => view
