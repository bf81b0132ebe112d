/**
 * Synthetic catalogs for the scale run: tools that look like real ones (`service_verb_object`
 * names, descriptions of 10–30 words, 1–5 described parameters) drawn from a Zipf-like vocabulary
 * of English words plus generated words, so the vocabulary grows with the catalog as it does in
 * real data. Seeded: the same size always gives the same catalog.
 */
import { CatalogTool } from "@tool-search/core"

const WORDS = (
  "account address agent alert analytics api app archive asset attachment audit backup balance batch bill blob " +
  "board booking branch browser bucket budget build cache calendar campaign card cart case certificate channel " +
  "chart chat check cluster code comment commit company config connection contact container content contract " +
  "cost country coupon course credential customer dashboard data database dataset deal deployment device " +
  "directory discount document domain draft email employee endpoint entry event expense experiment feed field " +
  "file filter flight folder form function gateway group guest health host hotel identity image incident index " +
  "instance inventory invoice issue item job key label lead ledger license link list location log mail map " +
  "market meeting member message metric model monitor network note notification order organization package " +
  "page partner password payment permission phone photo pipeline plan policy pool post price product profile " +
  "project queue quota rate recipe record region registry release report repository request reservation resource " +
  "role route rule schedule schema secret segment sensor server service session setting share shipment site " +
  "snapshot song space sprint stock storage stream subscription survey table tag task team template tenant " +
  "test thread ticket timer token topic track transaction translation trip user vault version video volume " +
  "wallet weather webhook widget workflow workspace zone"
).split(" ")
const VERBS = (
  "get list create update delete search send fetch add remove find check start stop run schedule cancel " +
  "upload download export import sync analyze calculate convert generate validate approve assign archive restore"
).split(" ")
const FILLER = (
  "the a of for to in with by from and or on this that each all new given specified current latest optional " +
  "returns retrieves details information status name id type value number date time details summary"
).split(" ")
const SERVICES = (
  "azure aws gcp github gitlab slack jira notion stripe shopify salesforce zendesk hubspot twilio spotify " +
  "google microsoft dropbox box asana trello linear datadog sentry okta"
).split(" ")

/** A small seeded PRNG (mulberry32). */
export const random = (seed: number) => {
  let a = seed >>> 0
  return (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const SYLLABLES = "ka lo mi ne ru sa ti vo xe zu bra cle dri fro gla plu tri spo".split(" ")

/** A catalog of `size` tools. */
export const catalog = (size: number, seed = 42): ReadonlyArray<CatalogTool.CatalogTool> => {
  const next = random(seed)
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(next() * xs.length)] as A
  // Zipf-like: low ranks are much more frequent
  const zipf = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(xs.length * next() ** 2.5)] as A
  const invented = Array.from(
    { length: Math.max(100, Math.floor(size / 4)) },
    () => Array.from({ length: 2 + Math.floor(next() * 2) }, () => pick(SYLLABLES)).join("")
  )
  const word = (): string => (next() < 0.15 ? zipf(invented) : next() < 0.35 ? pick(FILLER) : zipf(WORDS))
  const sentence = (n: number) => Array.from({ length: n }, word).join(" ")
  const tools: Array<CatalogTool.CatalogTool> = []
  for (let i = 0; i < size; i++) {
    const name = `${pick(SERVICES)}_${pick(VERBS)}_${zipf(WORDS)}${next() < 0.3 ? `_${zipf(invented)}` : ""}_${
      i.toString(36)
    }`
    const properties: Record<string, unknown> = {}
    const count = 1 + Math.floor(next() * 5)
    for (let p = 0; p < count; p++) {
      properties[`${zipf(WORDS)}_${pick(["id", "name", "type", "limit", "filter", "value"])}`] = {
        type: "string",
        description: sentence(5 + Math.floor(next() * 8))
      }
    }
    tools.push(CatalogTool.make({
      id: `gen_${i}`,
      name: name.slice(0, 64),
      description: `${pick(VERBS)} ${sentence(10 + Math.floor(next() * 20))}.`,
      parameters: { type: "object", properties }
    }))
  }
  return tools
}

/** Queries made of a few words of random tools of the catalog. */
export const queries = (tools: ReadonlyArray<CatalogTool.CatalogTool>, count: number, seed = 7) => {
  const next = random(seed)
  return Array.from({ length: count }, (_, i) => {
    const tool = tools[Math.floor(next() * tools.length)] as CatalogTool.CatalogTool
    const words = `${tool.name.replace(/_/g, " ")} ${tool.description}`.split(/\s+/)
    const n = 3 + Math.floor(next() * 4)
    const picked = Array.from({ length: n }, () => words[Math.floor(next() * words.length)])
    return { id: `q${i}`, query: picked.join(" "), relevant: [tool.id] }
  })
}
