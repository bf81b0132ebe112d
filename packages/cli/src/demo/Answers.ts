/**
 * The hand-written answers of the demo tools the conversation shows (the workspace built-ins,
 * the calendar, weather, maps, monitoring, database and translation tools it calls) and of the
 * invoice listing the multi-step benchmark task pages through (`openInvoices`), by tool name. Every other tool answers through the generic engine (`Engine`). Each answer is a pure
 * function of the call's parameters.
 *
 * @since 0.2.0
 */
import { count, DEMO_NOW, type Params, pick, tag, text } from "./Stable.js"

const coordinates = (place: string) => ({
  lat: pick(`lat${place}`, -6000, 6000) / 100,
  lng: pick(`lng${place}`, -18000, 18000) / 100
})

const CONDITIONS = ["clear", "partly cloudy", "overcast", "light rain", "showers", "thunderstorms", "fog"]

const LANGUAGES: Readonly<Record<string, string>> = {
  en: "English",
  es: "Spanish",
  fr: "French",
  de: "German",
  it: "Italian",
  pt: "Portuguese",
  ja: "Japanese",
  ko: "Korean",
  zh: "Chinese"
}

const languageCode = (u: string): string => {
  const lower = u.toLowerCase()
  return Object.entries(LANGUAGES).find(([code, name]) => code === lower || name.toLowerCase() === lower)?.[0] ?? lower
}

/**
 * An open invoice of the demo's billing service.
 *
 * @since 0.3.0
 * @category models
 */
export interface Invoice {
  readonly id: string
  readonly number: string
  readonly customer_id: string
  readonly customer_email: string
  readonly status: "open"
  readonly currency: string
  readonly amount_due: number
  readonly due_date: string
  readonly overdue: boolean
  readonly lines: number
  readonly hosted_invoice_url: string
  readonly memo: string
}

/**
 * The 200 open invoices `billing_list_invoices` pages through: large intermediate data for a
 * multi-step task (list them all, keep the overdue ones, act on the largest).
 *
 * @since 0.3.0
 * @category data
 */
export const openInvoices: ReadonlyArray<Invoice> = Array.from({ length: 200 }, (_, i) => {
  const id = `in_${String(i + 1).padStart(4, "0")}`
  const customer = `cus_${tag("customer", i % 60)}`
  const overdue = pick(`overdue${id}`, 0, 3) === 0
  return {
    id,
    number: `DEMO-${String(1000 + i)}`,
    customer_id: customer,
    customer_email: `billing+${customer.slice(4, 10)}@example.com`,
    status: "open",
    currency: "usd",
    // cents, distinct: the index breaks ties
    amount_due: pick(`amount${id}`, 10, 4999) * 1000 + i,
    due_date: `2025-${overdue ? "05" : "06"}-${String(pick(`day${id}`, 1, 28)).padStart(2, "0")}`,
    overdue,
    lines: pick(`lines${id}`, 1, 6),
    hosted_invoice_url: `https://pay.example.com/i/${tag("invoice", id)}`,
    memo: "Thank you for your business. Payment is due within 30 days of the invoice date."
  }
})

/** A page of `openInvoices`: `limit` (at most 100, 20 by default) from the `cursor` on. */
const invoicePage = (p: Params) => {
  const status = text(p, "status", "open")
  const all = status === "open" ? openInvoices : []
  const start = /^page_(\d+)$/.exec(text(p, "cursor"))?.[1]
  const from = start === undefined ? 0 : Number(start)
  const limit = Math.min(100, Math.max(1, count(p, "limit", 20)))
  const data = all.slice(from, from + limit)
  const next = from + limit < all.length ? `page_${from + limit}` : null
  return { object: "list", status, data, has_more: next !== null, next_cursor: next }
}

/**
 * The hand-written answer of a tool, by its full name.
 *
 * @since 0.2.0
 * @category data
 */
export const answers: Readonly<Record<string, (p: Params) => unknown>> = {
  billing_list_invoices: invoicePage,
  read_file: (p) => ({
    path: text(p, "path"),
    content: `# ${text(p, "path")}\n\nDemo content of this file.\n`,
    lines: 3
  }),
  write_file: (p) => ({ ok: true, path: text(p, "path"), bytes: text(p, "content").length }),
  edit_file: (p) => ({ ok: true, path: text(p, "path"), replacements: 1 }),
  list_files: (p) => {
    const dir = text(p, "path", ".")
    return {
      path: dir,
      entries: ["README.md", "notes.md", "data/"].map((e) => (dir === "." ? e : `${dir}/${e}`))
    }
  },
  get_current_time: (p) => ({ now: DEMO_NOW, timezone: text(p, "timezone", "UTC"), weekday: "Monday" }),
  calendar_find_free_slots: (p) => ({
    duration_minutes: count(p, "duration_minutes", 30),
    slots: [
      { start: "2025-06-03T10:00:00Z", end: "2025-06-03T10:30:00Z" },
      { start: "2025-06-03T14:00:00Z", end: "2025-06-03T14:30:00Z" },
      { start: "2025-06-04T09:00:00Z", end: "2025-06-04T09:30:00Z" }
    ]
  }),
  monitoring_query_metrics: (p) => ({
    query: text(p, "query"),
    points: [0, 1, 2, 3].map((i) => ({
      t: `2025-06-02T09:${String(i * 5).padStart(2, "0")}:00Z`,
      v: pick(`${text(p, "query")}${i}`, 10, 99)
    }))
  }),
  monitoring_get_service_health: (p) => ({
    service: text(p, "service"),
    status: "degraded",
    error_rate: 0.021,
    p95_latency_ms: pick(text(p, "service"), 120, 900),
    open_alerts: 2
  }),
  db_run_query: (p) => ({
    database: text(p, "database"),
    sql: text(p, "sql"),
    columns: ["id", "name", "created_at"],
    rows: [
      [1, "alpha", "2025-05-01T10:00:00Z"],
      [2, "beta", "2025-05-12T16:20:00Z"]
    ],
    row_count: 2
  }),
  maps_geocode_address: (p) => ({
    address: text(p, "address"),
    ...coordinates(text(p, "address")),
    precision: "street"
  }),
  maps_reverse_geocode: (p) => ({
    lat: count(p, "lat", 0),
    lng: count(p, "lng", 0),
    address: `${pick(`${count(p, "lat", 0)}${count(p, "lng", 0)}`, 1, 250)} Harbour Road, Port Demo`
  }),
  maps_get_directions: (p) => {
    const km = pick(`${text(p, "origin")}>${text(p, "destination")}`, 3, 480)
    const mode = text(p, "mode", "driving")
    const speed = mode === "walking" ? 5 : mode === "cycling" ? 16 : mode === "transit" ? 35 : 60
    return {
      origin: text(p, "origin"),
      destination: text(p, "destination"),
      mode,
      distance_km: km,
      duration_minutes: Math.round((km / speed) * 60),
      steps: [`Leave ${text(p, "origin")}`, "Follow the main road", `Arrive at ${text(p, "destination")}`]
    }
  },
  weather_get_current_conditions: (p) => ({
    location: text(p, "location"),
    temperature: pick(`t${text(p, "location")}`, -5, 32),
    units: text(p, "units", "metric"),
    condition: CONDITIONS[pick(`c${text(p, "location")}`, 0, CONDITIONS.length - 1)],
    humidity_percent: pick(`h${text(p, "location")}`, 30, 95),
    wind_kmh: pick(`w${text(p, "location")}`, 0, 45),
    observed_at: DEMO_NOW
  }),
  weather_get_forecast: (p) => {
    const location = text(p, "location")
    return {
      location,
      units: text(p, "units", "metric"),
      days: Array.from({ length: count(p, "days", 5) }, (_, i) => {
        const low = pick(`lo${location}${i}`, -3, 18)
        return {
          date: `2025-06-${String(2 + i).padStart(2, "0")}`,
          low,
          high: low + pick(`hi${location}${i}`, 3, 12),
          condition: CONDITIONS[pick(`c${location}${i}`, 0, CONDITIONS.length - 1)],
          rain_chance_percent: pick(`r${location}${i}`, 0, 90)
        }
      })
    }
  },
  translate_text: (p) => {
    const target = languageCode(text(p, "target_language"))
    return {
      translation: `[${target}] ${text(p, "text")}`,
      source_language: languageCode(text(p, "source_language", "en")),
      target_language: target
    }
  },
  translate_detect_language: (p) => {
    const t = text(p, "text")
    const code = /[\uac00-\ud7a3]/.test(t)
      ? "ko"
      : /[\u3040-\u30ff]/.test(t)
      ? "ja"
      : /[\u4e00-\u9fff]/.test(t)
      ? "zh"
      : /[ñ¿¡]/.test(t)
      ? "es"
      : "en"
    return { language: code, name: LANGUAGES[code], confidence: 0.93 }
  },
  translate_batch: (p) => {
    const target = languageCode(text(p, "target_language"))
    const texts = Array.isArray(p["texts"]) ? p["texts"] : []
    return { target_language: target, translations: texts.map((t) => `[${target}] ${String(t)}`) }
  },
  translate_document: (p) => ({
    job_id: `job_${tag("translate_document", p)}`,
    status: "queued",
    file_id: text(p, "file_id")
  })
}
