// Resources for the resource tests: a small policy handbook, a wiki, a template and a prompt.
import { Effect, Layer } from "effect"
import { Bm25f, Resource, ResourceCatalog } from "../../src/index.js"

export const handbookText = [
  "# Customer handbook",
  "",
  "This handbook describes how orders, returns and warranty claims are handled.",
  "",
  "## Returns",
  "",
  "Most items can be returned within 30 days of delivery, in their original packaging.",
  "",
  "### Laptops",
  "",
  "Opened laptops can be returned within 14 days. A 15% restocking fee applies to opened laptops.",
  "",
  "## Shipping",
  "",
  "Orders ship within two business days. Express shipping costs 12 euros.",
  "",
  "## Warranty",
  "",
  "Every device carries a two-year warranty against manufacturing defects."
].join("\n")

export const handbook = Resource.text({
  uri: "policy://acme/handbook",
  name: "Customer handbook",
  kind: "policy",
  source: "handbook",
  description: "Returns, refunds, shipping and warranty rules.",
  mimeType: "text/markdown",
  text: handbookText
})

export const wikiPage = (i: number) =>
  Resource.text({
    uri: `wiki://acme/page-${i}`,
    name: `Wiki page ${i}`,
    source: "wiki",
    description: `Internal notes number ${i}.`,
    text: `# Page ${i}\n\nMeeting notes about project ${i}, budgets and planning.`
  })

export const summaryPrompt = Resource.prompt({
  name: "summarize",
  source: "prompts",
  description: "Summarize a topic in three bullet points.",
  arguments: [
    { name: "topic", description: "What to summarize", required: true },
    { name: "tone", required: false }
  ],
  render: (args) =>
    Effect.succeed({
      messages: [{
        role: "user",
        text: `Summarize ${args["topic"]} in three bullet points${args["tone"] ? `, ${args["tone"]}` : ""}.`
      }]
    })
})

export const logTemplate = Resource.template({
  uri: "logs://acme/{day}",
  name: "Daily logs",
  kind: "collection",
  source: "logs",
  description: "The log of one day, by date.",
  read: (request) => Effect.succeed(Resource.sliceText(`log of ${request.uri}`, request.offset, request.length))
})

/** A catalog (BM25F) holding `resources`. */
export const resourceCatalogOf = (
  resources: ReadonlyArray<Resource.Resource>,
  options: Partial<ResourceCatalog.Options> = {}
) => ResourceCatalog.layerWithResources(resources, options).pipe(Layer.provide(Bm25f.layer), Layer.orDie)

/** An empty catalog (BM25F). */
export const EmptyResources = ResourceCatalog.layer.pipe(Layer.provide(Bm25f.layer))
