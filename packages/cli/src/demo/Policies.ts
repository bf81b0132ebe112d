/**
 * The demo's attached policies: a long customer policy handbook, a wiki of internal pages and a
 * reply prompt — the resources of the demo's resource turn and of docs/examples/resources.ts. The
 * handbook is built from a table of product rules, so each fact sits in exactly one section and
 * answers can be checked.
 *
 * @since 0.2.0
 */
import { Resource } from "@tool-search/core"
import { Effect } from "effect"

interface Product {
  readonly name: string
  /** Days an opened item can be returned; 0: not returnable once opened. */
  readonly openedDays: number
  /** Restocking fee on opened items, in percent. */
  readonly fee: number
  readonly warrantyYears: number
  readonly repairDays: number
  readonly shipping: string
  readonly tradeIn: string
  readonly note: string
}

const products: ReadonlyArray<Product> = [
  {
    name: "Laptops",
    openedDays: 14,
    fee: 15,
    warrantyYears: 2,
    repairDays: 10,
    shipping: "insured courier",
    tradeIn: "up to 40% of the original price for models under four years old",
    note: "Batteries are covered for one year or 500 charge cycles, whichever comes first."
  },
  {
    name: "Tablets",
    openedDays: 14,
    fee: 10,
    warrantyYears: 2,
    repairDays: 7,
    shipping: "insured courier",
    tradeIn: "up to 35% of the original price",
    note: "Screen protectors applied in store are not refundable."
  },
  {
    name: "Phones",
    openedDays: 14,
    fee: 10,
    warrantyYears: 2,
    repairDays: 5,
    shipping: "insured courier",
    tradeIn: "up to 50% of the original price for unlocked models",
    note: "A phone must be removed from every account before it is returned."
  },
  {
    name: "Monitors",
    openedDays: 30,
    fee: 0,
    warrantyYears: 3,
    repairDays: 14,
    shipping: "freight for screens over 32 inches",
    tradeIn: "not offered",
    note: "Up to three dead pixels are within the manufacturer's tolerance."
  },
  {
    name: "Printers",
    openedDays: 30,
    fee: 5,
    warrantyYears: 1,
    repairDays: 10,
    shipping: "standard parcel",
    tradeIn: "not offered",
    note: "Ink and toner cartridges are consumables and are not returnable once opened."
  },
  {
    name: "Cameras",
    openedDays: 14,
    fee: 12,
    warrantyYears: 2,
    repairDays: 21,
    shipping: "insured courier",
    tradeIn: "up to 30% for bodies with fewer than 20,000 shutter actuations",
    note: "Lenses are handled as separate products with their own serial numbers."
  },
  {
    name: "Headphones",
    openedDays: 0,
    fee: 0,
    warrantyYears: 1,
    repairDays: 7,
    shipping: "standard parcel",
    tradeIn: "not offered",
    note: "For hygiene reasons opened in-ear headphones cannot be returned; over-ear models follow the accessory rules."
  },
  {
    name: "Smart home devices",
    openedDays: 30,
    fee: 0,
    warrantyYears: 2,
    repairDays: 10,
    shipping: "standard parcel",
    tradeIn: "not offered",
    note: "Devices must be reset to factory settings and removed from the home app."
  },
  {
    name: "Gaming consoles",
    openedDays: 14,
    fee: 15,
    warrantyYears: 1,
    repairDays: 14,
    shipping: "insured courier",
    tradeIn: "up to 45% of the original price with all controllers",
    note: "Digital games bought with the console are not refundable once downloaded."
  },
  {
    name: "Kitchen appliances",
    openedDays: 30,
    fee: 0,
    warrantyYears: 2,
    repairDays: 14,
    shipping: "two-person delivery for items over 25 kg",
    tradeIn: "not offered",
    note: "Appliances that were used with food cannot be returned for change of mind."
  },
  {
    name: "Furniture",
    openedDays: 30,
    fee: 20,
    warrantyYears: 5,
    repairDays: 30,
    shipping: "two-person delivery with assembly on request",
    tradeIn: "not offered",
    note: "The fee covers collection from the customer's address."
  },
  {
    name: "Software licences",
    openedDays: 0,
    fee: 0,
    warrantyYears: 0,
    repairDays: 0,
    shipping: "electronic delivery by e-mail",
    tradeIn: "not offered",
    note: "A licence key that was revealed or activated cannot be refunded."
  },
  {
    name: "Wearables",
    openedDays: 14,
    fee: 10,
    warrantyYears: 2,
    repairDays: 7,
    shipping: "standard parcel",
    tradeIn: "up to 25% of the original price",
    note: "Straps that were worn are replaced at the customer's cost."
  },
  {
    name: "Networking equipment",
    openedDays: 30,
    fee: 5,
    warrantyYears: 3,
    repairDays: 10,
    shipping: "standard parcel",
    tradeIn: "not offered",
    note: "Routers must be returned with their original power supply."
  },
  {
    name: "E-readers",
    openedDays: 14,
    fee: 10,
    warrantyYears: 2,
    repairDays: 7,
    shipping: "standard parcel",
    tradeIn: "up to 30% of the original price",
    note: "E-books bought on the device are governed by the store they were bought in."
  },
  {
    name: "Drones",
    openedDays: 14,
    fee: 15,
    warrantyYears: 1,
    repairDays: 21,
    shipping: "insured courier",
    tradeIn: "not offered",
    note: "A drone that was flown must come with its flight log for a warranty claim."
  }
]

const lower = (name: string) => name.toLowerCase()

const section = (p: Product): string => {
  const item = lower(p.name)
  const returns = p.openedDays === 0
    ? `Opened ${item} cannot be returned. Unopened ${item} can be returned within 30 days of delivery for a full refund.`
    : `Opened ${item} can be returned within ${p.openedDays} days of delivery. ${
      p.fee === 0 ? `No restocking fee applies to ${item}` : `A ${p.fee}% restocking fee applies to opened ${item}`
    }; unopened ${item} are refunded in full within 30 days.`
  const late = p.openedDays === 0 ? 5 : p.openedDays + 6
  return [
    `### ${p.name}`,
    "",
    "#### Returns",
    "",
    `${returns} The refund goes back to the original payment method within five business days of the return being received at the warehouse.`,
    "",
    "To process a return, the agent opens the order, checks the delivery date in the carrier's tracking, creates a return authorisation and sends the customer the label. The customer has ten days to hand the parcel to the carrier once the label is issued; after that the authorisation lapses and a new request is needed. Returns handed in at a store are checked by the store staff, who stamp the receipt with the date of the return.",
    "",
    "#### Condition on return",
    "",
    `Returned ${item} must include every accessory, cable and manual that came in the box. Items with missing parts are refunded minus the catalogue price of the missing parts. ${p.note}`,
    "",
    "The warehouse inspects every returned item within three business days. Cosmetic damage beyond normal handling, such as scratches, dents or stickers, is deducted from the refund at the rates of the damage table, and the customer is told the amount before the refund is issued. A customer who disagrees with the inspection can ask for the item back at no cost within 14 days of the notice.",
    "",
    "#### Warranty",
    "",
    p.warrantyYears === 0
      ? `${p.name} carry no hardware warranty; defects in the delivered product are handled as a faulty delivery within 14 days.`
      : `${p.name} carry a ${p.warrantyYears}-year warranty against manufacturing defects from the date of delivery. Accidental damage, liquid damage and wear are not covered unless the customer bought the extended protection plan.`,
    "",
    "A warranty claim needs the order number or the receipt, and a short description of the fault. The agent runs the remote diagnosis where one exists before booking a collection. Claims for a product bought from another retailer are redirected to that retailer, or to the manufacturer when the retailer no longer exists. The extended protection plan adds accidental damage cover for its duration, with an excess of 49 euros per claim.",
    "",
    "#### Repairs",
    "",
    p.repairDays === 0
      ? `There is no repair service for ${item}.`
      : `Repairs of ${item} take ${p.repairDays} business days on average. A replacement is offered when a repair takes longer than twice that time.`,
    "",
    "Repairs outside the warranty start with a quote, which the customer accepts in their account. A quote that is declined costs a diagnosis fee of 29 euros, waived when the customer buys a replacement product within 30 days. Customers with the extended protection plan get a loan device while the repair lasts, where one is in stock.",
    "",
    "#### Shipping and trade-in",
    "",
    `${p.name} ship by ${p.shipping}. Trade-in: ${p.tradeIn}. Trade-in values are confirmed only after the traded item was inspected; the customer chooses between a store credit and a bank transfer, the credit being worth 10% more.`,
    "",
    "#### Worked examples",
    "",
    `A customer returns ${item} ${late} days after delivery, in perfect condition. ${
      p.openedDays === 0
        ? "The return is refused because the product was opened;"
        : "The return is outside the period for opened items and is refused;"
    } the agent explains the rule and offers the warranty service if a fault is described. A customer reports that a product of this family arrived damaged: it is a faulty delivery, and the customer chooses between a replacement and a full refund, with no fee of any kind.`,
    ""
  ].join("\n")
}

const general = [
  "# Customer policy handbook",
  "",
  "This handbook is the reference for customer service agents. It states what customers may expect when they buy, return, repair or trade in a product, and what agents may promise. When a rule here and a promotion disagree, the promotion's own terms apply for its duration.",
  "",
  "## Orders and payment",
  "",
  "Orders are confirmed by e-mail within one hour. Payment is taken when the order ships, except for made-to-order furniture, which is paid in full at the time of order. Customers can cancel an order free of charge until it ships.",
  "",
  "Instalment plans are available for orders above 300 euros, over 3, 6 or 12 months, without interest for plans of up to 6 months.",
  "",
  "## Delivery",
  "",
  "Standard delivery takes two to four business days and is free above 50 euros. Express delivery, the next business day for orders placed before 14:00, costs 12 euros. Deliveries to islands take two extra days.",
  "",
  "## Returns in general",
  "",
  "Unless a product section below says otherwise, unopened products can be returned within 30 days of delivery for a full refund. Customers start a return in their account or by phone; the return label is free for faulty or wrong items and costs 6 euros otherwise.",
  "",
  "Refunds are issued to the original payment method. Gift card payments are refunded to a new gift card. Customers who paid in instalments have the remaining instalments cancelled and the instalments already paid refunded.",
  "",
  "## Promotions and price matching",
  "",
  "When the price of a product drops within 14 days of purchase, the customer can ask for the difference as a store credit, once per order. Price matching applies to the same model sold new by a retailer in the national market, on the day of the request; marketplace sellers, auctions and bundles are excluded.",
  "",
  "Promotional gifts must be returned with the product they came with, or their catalogue price is deducted from the refund. Vouchers used on a returned order are reissued with their original expiry date.",
  "",
  "## Loyalty programme",
  "",
  "Members earn one point per euro spent and can redeem 100 points for a five euro voucher. Points of a returned order are taken back. Members of the premium tier get free express delivery and an extra 14 days to return unopened products.",
  "",
  "## Business customers",
  "",
  "Business accounts are invoiced with 30-day payment terms after a credit check. Returns of business orders follow the product rules, except that change-of-mind returns of more than five units of one product need the approval of the account manager. Business customers can ask for an on-site repair for an annual fee.",
  "",
  "## Product rules",
  "",
  "The sections below give the rules of each product family. They override the general rules above."
].join("\n")

const closing = [
  "## Escalations",
  "",
  "Agents may grant a goodwill credit of up to 25 euros without approval. Larger credits, refunds outside these rules and complaints about staff go to the team lead on duty, who answers the customer within two business days.",
  "",
  "## Privacy",
  "",
  "Agents never ask for a full card number or a password. Devices returned for repair are wiped only when the customer asks for it in writing; data recovery is not offered.",
  "",
  "## Glossary",
  "",
  "Opened: the factory seal or packaging was broken. Restocking fee: the part of the price kept when an opened product is returned, to cover inspection and repackaging. Business day: Monday to Friday, public holidays excluded."
].join("\n")

/**
 * The handbook: general rules, then the rules of every product family.
 *
 * @since 0.2.0
 * @category data
 */
export const handbookText: string = [general, "", ...products.map(section), closing].join("\n")

/**
 * The handbook as a resource of the agent's attached policies.
 *
 * @since 0.2.0
 * @category data
 */
export const handbook: Resource.Resource = Resource.text({
  uri: "policy://acme/customer-handbook",
  name: "Customer policy handbook",
  kind: "policy",
  source: "policies",
  description: "What customers may expect when they buy, return, repair or trade in a product.",
  mimeType: "text/markdown",
  text: handbookText
})

/**
 * Internal wiki pages: the platform's wider catalog, folded into a count.
 *
 * @since 0.2.0
 * @category data
 */
export const wiki: ReadonlyArray<Resource.Resource> = Array.from({ length: 40 }, (_, i) =>
  Resource.text({
    uri: `wiki://acme/page-${i}`,
    name: `Team notes ${i}`,
    source: "wiki",
    description: `Meeting notes of team ${i % 8}.`,
    text: `# Team notes ${i}\n\nDecisions of the weekly meeting: budgets, hiring and the roadmap of quarter ${
      (i % 4) + 1
    }.`
  }))

/**
 * A reply prompt of the support team.
 *
 * @since 0.2.0
 * @category data
 */
export const replyPrompt: Resource.Resource = Resource.prompt({
  name: "customer_reply",
  source: "policies",
  description: "Draft a polite reply to a customer from the facts found.",
  arguments: [{ name: "facts", description: "The facts to state", required: true }],
  render: (args) =>
    Effect.succeed({
      messages: [{ role: "user", text: `Write a short, polite reply to the customer stating: ${args["facts"]}` }]
    })
})

/**
 * Every resource: the handbook and the prompt (source `policies`, attached to the agent), the wiki.
 *
 * @since 0.2.0
 * @category data
 */
export const resources: ReadonlyArray<Resource.Resource> = [handbook, replyPrompt, ...wiki]

/**
 * What the model is asked, and the words it would use at each level.
 *
 * @since 0.2.0
 * @category models
 */
export interface Question {
  readonly text: string
  /** What to sample for (L2). */
  readonly topic: string
  /** What to search inside the policy (L3). */
  readonly keywords: string
  /** Words of the sentences that answer (the model's reading of the slice). */
  readonly answerWords: ReadonlyArray<string>
}

/**
 * The question of the resource turn: answered by one passage of the handbook.
 *
 * @since 0.2.0
 * @category data
 */
export const laptopReturn: Question = {
  text: "A customer opened a laptop 10 days ago and wants to return it. Can they, and what does it cost?",
  topic: "return policy",
  keywords: "return opened laptop restocking fee",
  answerWords: ["opened laptops"]
}
