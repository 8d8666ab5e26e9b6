import { FastifyOtelInstrumentation } from '@fastify/otel'
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http'
import { OTLPMetricExporter as ProtobufMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto'
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics'
import { NodeSDK } from '@opentelemetry/sdk-node'
import type { Telemetry } from './start-telemetry'
import { TelemetrySettingError } from './telemetry-errors'

type Environment = Record<string, string | undefined>

const PROTOCOLS = ['http/protobuf', 'http/json'] as const
type Protocol = (typeof PROTOCOLS)[number]

/**
 * Starts the Node SDK: OTLP/HTTP trace and metric exporters (`http/protobuf` by default,
 * `http/json` on request; the exporters read their endpoints and headers from the
 * environment), a batch span processor, the sampler, service name and resource from the
 * standard variables, and `@fastify/otel`'s request spans on every fastify app built after.
 *
 * @example
 * const telemetry = startNodeSdk(process.env)
 */
export function startNodeSdk(env: Environment): Telemetry {
  const traces = protocolOf(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL')
  const metrics = protocolOf(env, 'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL')
  const metricsOn = env.OTEL_METRICS_EXPORTER?.toLowerCase() !== 'none'
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL ?? 60_000)
  const named =
    Boolean(env.OTEL_SERVICE_NAME) ||
    /(^|,)\s*service\.name=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '')
  const sdk = new NodeSDK({
    ...(named ? {} : { serviceName: 'baton-server' }),
    traceExporter: traces === 'http/json' ? new JsonTraceExporter() : new ProtobufTraceExporter(),
    ...(metricsOn
      ? {
          metricReaders: [
            new PeriodicExportingMetricReader({
              exporter:
                metrics === 'http/json' ? new JsonMetricExporter() : new ProtobufMetricExporter(),
              exportIntervalMillis: Number.isFinite(interval) && interval > 0 ? interval : 60_000,
            }),
          ],
        }
      : {}),
    instrumentations: [
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        // Probes and scrapes would drown the traces that matter.
        ignorePaths: ({ url }) => url === '/health' || url === '/ready' || url === '/metrics',
      }),
    ],
  })
  sdk.start()
  return { shutdown: () => sdk.shutdown() }
}

function protocolOf(env: Environment, specific: string): Protocol {
  const value = (env[specific] ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf').trim()
  if ((PROTOCOLS as readonly string[]).includes(value)) return value as Protocol
  throw new TelemetrySettingError({
    name: env[specific] ? specific : 'OTEL_EXPORTER_OTLP_PROTOCOL',
    value,
    expected: PROTOCOLS.join(' or '),
  })
}
