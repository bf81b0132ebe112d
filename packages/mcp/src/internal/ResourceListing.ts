/**
 * What the gateway lists to its clients from the resource catalog — `resources/list`,
 * `resources/templates/list` and `prompts/list` — through the visibility policy: a resource the
 * policy hides is in no listing. Prompts are listed by their own name while it is unique among the
 * listed prompts, else by `<server>__<name>`, else by their catalog URI, so every listed name finds
 * one prompt. A listing is computed once per catalog version and policy, shared by every session,
 * and served in pages of `PAGE_SIZE` behind an opaque cursor.
 *
 * @internal
 */
import type { ResourceCatalog, Visibility } from "@tool-search/core"
import { Effect, Schema } from "effect"

/** Entries per page of a listing. */
export const PAGE_SIZE = 500

type Entry = ResourceCatalog.Entry

/** One catalog version's listings. */
export interface Listing {
  readonly version: number
  readonly resources: ReadonlyArray<Record<string, unknown>>
  readonly templates: ReadonlyArray<Record<string, unknown>>
  readonly prompts: ReadonlyArray<Record<string, unknown>>
  /** The prompt each listed name (and catalog URI) stands for. */
  readonly promptByName: ReadonlyMap<string, Entry>
  /** What a client that listed resources and templates was told, to compare with the next version. */
  readonly resourcesSignature: string
  readonly promptsSignature: string
}

/** Listings by the resources they list: the catalog gives the same array while its version and the policy hold. */
const memo = new WeakMap<ReadonlyArray<Entry>, Listing>()

/** The listing of the catalog's current version under `policy`, built at most once per version. */
export const of = (
  catalog: ResourceCatalog.Service,
  policy: Visibility.Visibility
): Effect.Effect<Listing> =>
  Effect.map(catalog.visibleTo(policy), (visible) => {
    let listing = memo.get(visible)
    if (listing === undefined) memo.set(visible, listing = build(catalog.versionUnsafe(), visible))
    return listing
  })

const build = (version: number, visible: ReadonlyArray<Entry>): Listing => {
  const resources = visible.filter((e) => e.prompt === undefined && !e.template).map((e) => ({
    uri: e.uri,
    name: e.name,
    ...common(e),
    ...(e.size === undefined ? {} : { size: e.size })
  }))
  const templates = visible.filter((e) => e.prompt === undefined && e.template).map((e) => ({
    uriTemplate: e.uri,
    name: e.name,
    ...common(e)
  }))
  const promptEntries = visible.filter((e) => e.prompt !== undefined)
  const names = promptNames(promptEntries)
  const promptByName = new Map<string, Entry>()
  for (const entry of promptEntries) promptByName.set(entry.uri, entry)
  const prompts = promptEntries.map((e) => {
    const name = names.get(e) as string // every prompt entry has a name
    promptByName.set(name, e)
    return {
      name,
      ...(e.title === undefined ? {} : { title: e.title }),
      ...(e.description === "" ? {} : { description: e.description }),
      arguments: (e.prompt?.arguments ?? []).map((a) => ({
        name: a.name,
        ...(a.description === undefined ? {} : { description: a.description }),
        required: a.required
      }))
    }
  })
  return {
    version,
    resources,
    templates,
    prompts,
    promptByName,
    resourcesSignature: JSON.stringify([resources, templates]),
    promptsSignature: JSON.stringify(prompts)
  }
}

const common = (e: Entry) => ({
  ...(e.title === undefined ? {} : { title: e.title }),
  ...(e.description === "" ? {} : { description: e.description }),
  ...(e.mimeType === undefined ? {} : { mimeType: e.mimeType })
})

/** A name for each prompt, unique among them: its own, else `<source>__<name>`, else its URI. */
const promptNames = (prompts: ReadonlyArray<Entry>): ReadonlyMap<Entry, string> => {
  const count = (names: ReadonlyArray<string>) => {
    const counts = new Map<string, number>()
    for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1)
    return counts
  }
  const own = count(prompts.map((p) => p.name))
  const first = prompts.map((p) => own.get(p.name) === 1 ? p.name : `${p.source ?? "local"}__${p.name}`)
  const second = count(first)
  return new Map(prompts.map((p, i) => [p, second.get(first[i] as string) === 1 ? first[i] as string : p.uri]))
}

// -----------------------------------------------------------------------------
// Pages
// -----------------------------------------------------------------------------

const ListParams = Schema.Struct({
  cursor: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/** One page of `items` after the request's cursor, or why the params are not a listing request. */
export const page = (
  params: unknown,
  items: ReadonlyArray<Record<string, unknown>>,
  field: string
): Record<string, unknown> | string => {
  const decoded = Schema.decodeUnknownOption(ListParams)(params ?? {})
  if (decoded._tag === "None") return "the cursor must be a string"
  const cursor = decoded.value.cursor
  const start = cursor === undefined || cursor === null ? 0 : /^\d{1,9}$/.test(cursor) ? Number(cursor) : -1
  if (start < 0 || start > items.length) return `invalid cursor ${JSON.stringify(String(cursor).slice(0, 40))}`
  const end = start + PAGE_SIZE
  return end < items.length
    ? { [field]: items.slice(start, end), nextCursor: String(end) }
    : { [field]: items.slice(start) }
}
