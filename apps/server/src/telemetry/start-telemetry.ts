/** What `startTelemetry` started: flushes and stops the SDK on shutdown. */
export type Telemetry = { shutdown(): Promise<void> }

type Environment = Record<string, string | undefined>

/**
 * Whether the environment asks for OpenTelemetry export: an OTLP endpoint is set (for all
 * signals or for traces) and the SDK is not disabled.
 *
 * @example
 * wantsTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318' }) // true
 */
export function wantsTelemetry(env: Environment): boolean {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === 'true') return false
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
}

/**
 * Registers the OpenTelemetry Node SDK (traces and metrics over OTLP/HTTP, fastify's own
 * instrumentation for request spans) when `OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set, honouring the standard `OTEL_*` variables.
 * Otherwise nothing is loaded (the SDK is a dynamic import) and the packages' spans stay
 * no-ops. Call it before the fastify app is built.
 *
 * @example
 * const telemetry = await startTelemetry(process.env)
 * // ... at shutdown
 * await telemetry?.shutdown()
 */
export async function startTelemetry(env: Environment): Promise<Telemetry | undefined> {
  if (!wantsTelemetry(env)) return undefined
  const { startNodeSdk } = await import('./node-sdk')
  return startNodeSdk(env)
}
