/**
 * What the gateway measures, and where it goes. Every search and call is a span
 * (`tool-search.gateway.search`, `tool-search.gateway.call`) and one structured log line; the
 * counters below count searches, misses, activations, calls by outcome and upstream restarts.
 *
 * Nothing leaves the process unless an OTLP endpoint is configured: `layerOtlp` then exports
 * traces and metrics over OTLP/HTTP (JSON) with Effect's own OTLP exporters
 * (`effect/observability`), which need no OpenTelemetry SDK — the spans and metrics are Effect's.
 *
 * @since 0.2.0
 */
import { type Duration, Layer, Metric } from "effect"
import { FetchHttpClient } from "effect/http"
import { OtlpMetrics, OtlpSerialization, OtlpTracer } from "effect/observability"
import * as PackageVersion from "./PackageVersion.js"

// -----------------------------------------------------------------------------
// Metrics
// -----------------------------------------------------------------------------

/** An incremental counter of the gateway, named `tool_search_gateway_<name>`. */
const counter = (name: string, description: string) =>
  Metric.counter(`tool_search_gateway_${name}`, { description, incremental: true })

/**
 * Searches run (`ToolSearch` calls).
 *
 * @since 0.2.0
 * @category metrics
 */
export const searches = counter("searches", "ToolSearch calls answered by the gateway")

/**
 * Searches that loaded nothing.
 *
 * @since 0.2.0
 * @category metrics
 */
export const misses = counter("search_misses", "ToolSearch calls that found nothing to load")

/**
 * Tools loaded into a session by a search.
 *
 * @since 0.2.0
 * @category metrics
 */
export const activations = counter("activations", "tools loaded into a session")

/**
 * Tool calls, with their outcome (`ok`, `tool_error`, `error`).
 *
 * @since 0.2.0
 * @category metrics
 */
export const calls = counter("calls", "tool calls through the gateway, by outcome")

/**
 * Upstream servers restarted after a lost connection.
 *
 * @since 0.2.0
 * @category metrics
 */
export const upstreamRestarts = counter("upstream_restarts", "upstream MCP servers reconnected after a lost connection")

// -----------------------------------------------------------------------------
// Export
// -----------------------------------------------------------------------------

/**
 * Exports spans and metrics to an OTLP/HTTP collector at `endpoint` (`http://localhost:4318`:
 * traces to `/v1/traces`, metrics to `/v1/metrics`), as service `tool-search`.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerOtlp = (
  endpoint: string,
  options: { readonly exportInterval?: Duration.Input } = {}
): Layer.Layer<never> => {
  const base = endpoint.replace(/\/+$/, "")
  const resource = { serviceName: "tool-search", serviceVersion: PackageVersion.mcp }
  const interval = options.exportInterval ?? "5 seconds"
  return Layer.mergeAll(
    OtlpTracer.layer({ url: `${base}/v1/traces`, resource, exportInterval: interval }),
    OtlpMetrics.layer({ url: `${base}/v1/metrics`, resource, exportInterval: interval })
  ).pipe(Layer.provide([OtlpSerialization.layerJson, FetchHttpClient.layer]))
}
