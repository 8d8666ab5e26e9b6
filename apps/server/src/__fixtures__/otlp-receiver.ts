import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

type AnyValue = {
  stringValue?: string
  intValue?: string | number
  doubleValue?: number
  boolValue?: boolean
}
type KeyValue = { key: string; value: AnyValue }

/** One span as an OTLP/HTTP JSON export carries it, with its resource's attributes. */
export type ReceivedSpan = {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  attributes: Record<string, unknown>
  resource: Record<string, unknown>
  links: { traceId: string; spanId: string }[]
}

export type OtlpReceiver = {
  /** The base URL to give as `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string
  spans: ReceivedSpan[]
  /** Names of the metrics received so far. */
  metricNames: Set<string>
  close(): Promise<void>
}

const flatten = (attributes: KeyValue[] | undefined): Record<string, unknown> =>
  Object.fromEntries(
    (attributes ?? []).map(({ key, value }) => [
      key,
      value.stringValue ?? value.intValue ?? value.doubleValue ?? value.boolValue,
    ]),
  )

/**
 * A tiny OTLP/HTTP receiver on 127.0.0.1 that decodes the JSON encoding
 * (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`): spans from `/v1/traces`, metric names from
 * `/v1/metrics`. Anything else is answered 404.
 *
 * @example
 * const receiver = await startOtlpReceiver()
 * await startServerProcess({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = []
  const metricNames = new Set<string>()
  const server: Server = createServer(async (request, response) => {
    let text = ''
    for await (const chunk of request) text += chunk
    if (request.url === '/v1/traces') {
      const body = JSON.parse(text) as {
        resourceSpans?: {
          resource?: { attributes?: KeyValue[] }
          scopeSpans?: {
            spans?: (Omit<ReceivedSpan, 'attributes' | 'resource' | 'links'> & {
              attributes?: KeyValue[]
              links?: { traceId: string; spanId: string }[]
            })[]
          }[]
        }[]
      }
      for (const resourceSpans of body.resourceSpans ?? []) {
        const resource = flatten(resourceSpans.resource?.attributes)
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              ...span,
              attributes: flatten(span.attributes),
              resource,
              links: span.links ?? [],
            })
          }
        }
      }
    } else if (request.url === '/v1/metrics') {
      const body = JSON.parse(text) as {
        resourceMetrics?: { scopeMetrics?: { metrics?: { name: string }[] }[] }[]
      }
      for (const resource of body.resourceMetrics ?? []) {
        for (const scope of resource.scopeMetrics ?? []) {
          for (const metric of scope.metrics ?? []) metricNames.add(metric.name)
        }
      }
    } else {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    metricNames,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
