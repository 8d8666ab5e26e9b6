import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type OtlpReceiver, startOtlpReceiver } from '../__fixtures__/otlp-receiver'
import { freePort, type ServerProcess, startServerProcess } from '../__fixtures__/server-process'
import { waitFor } from '../__fixtures__/wait-for'

const analyst = '0x1111111111111111111111111111111111111111'

describe('a server started with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  let receiver: OtlpReceiver
  let server: ServerProcess
  let dataDir: string
  beforeAll(async () => {
    receiver = await startOtlpReceiver()
    dataDir = await mkdtemp(path.join(tmpdir(), 'baton-otlp-'))
    server = await startServerProcess({
      BATON_DATA_DIR: dataDir,
      PORT: String(await freePort()),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'baton-under-test',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_METRIC_EXPORT_INTERVAL: '500',
      BATON_TRACE_URL_TEMPLATE: 'http://jaeger.test:16686/trace/{traceId}',
    })
  })
  afterAll(async () => {
    server?.child.kill('SIGTERM')
    await server?.exited
    await receiver?.close()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('exports one trace per run: request, queue, workflow, agent and model call spans, and metrics', async () => {
    const started = await fetch(`${server.url}/api/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        plan: {
          name: 'exported',
          steps: [{ op: 'delegate', saveAs: 'a', agentWallet: analyst, prompt: 'Check it' }],
        },
      }),
    })
    expect(started.status).toBe(202)
    const { id } = (await started.json()) as { id: string }
    const run = await waitFor(
      async () => {
        const body = (await (await fetch(`${server.url}/api/v1/runs/${id}`)).json()) as {
          status: string
          traceId: string | null
          traceUrl: string | null
        }
        return body.status === 'done' ? body : undefined
      },
      { what: 'the run to finish', timeoutMs: 60_000 },
    )
    expect(run.traceId).toMatch(/^[0-9a-f]{32}$/)
    expect(run.traceUrl).toBe(`http://jaeger.test:16686/trace/${run.traceId}`)

    const names = ['invoke_workflow exported', 'invoke_agent Incident Analyst', 'chat default']
    const spans = await waitFor(
      () => {
        const ours = receiver.spans.filter((span) => span.traceId === run.traceId)
        return names.every((name) => ours.some((span) => span.name === name)) ? ours : undefined
      },
      { what: 'the run spans at the receiver', timeoutMs: 30_000 },
    )
    const byName = (name: string) => spans.find((span) => span.name === name)
    // The HTTP request (fastify's own instrumentation) starts the trace; the queued job continues it.
    const request = spans.find((span) => span.attributes['http.route'] === '/api/v1/runs')
    expect(request).toBeDefined()
    const job = byName('process baton-runs')
    expect(job?.attributes['baton.run.id']).toBe(id)
    expect(byName('invoke_workflow exported')?.parentSpanId).toBe(job?.spanId)
    expect(byName('invoke_agent Incident Analyst')?.parentSpanId).toBe(
      byName('invoke_workflow exported')?.spanId,
    )
    expect(byName('chat default')?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'baton.offline',
    })
    expect(spans[0]?.resource['service.name']).toBe('baton-under-test')
    await waitFor(
      () => (receiver.metricNames.has('gen_ai.client.token.usage') ? true : undefined),
      { what: 'the token usage metric at the receiver', timeoutMs: 30_000 },
    )
    expect(receiver.metricNames).toContain('baton.runs.finished')
  })
})
