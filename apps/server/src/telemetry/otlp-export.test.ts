import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { signAgentRegistration } from '@baton/core'
import { waitFor } from '@baton/testing/processes'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type OtlpReceiver, startOtlpReceiver } from '../__fixtures__/otlp-receiver'
import { type ServerProcess, startServerProcess } from '../__fixtures__/server-process'
import { newAgentAccounts } from '../__fixtures__/signed-agents'

const analyst = '0x1111111111111111111111111111111111111111'

type RunAnswer = { status: string; traceId: string | null; traceUrl: string | null }

async function runToTheEnd(
  server: ServerProcess,
  plan: object,
): Promise<RunAnswer & { id: string }> {
  const started = await fetch(`${server.url}/api/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ plan }),
  })
  expect(started.status).toBe(202)
  const { id } = (await started.json()) as { id: string }
  const run = await waitFor(
    async () => {
      const body = (await (await fetch(`${server.url}/api/v1/runs/${id}`)).json()) as RunAnswer
      return body.status === 'queued' || body.status === 'running' ? undefined : body
    },
    { what: 'the run to finish', timeoutMs: 60_000 },
  )
  expect(run.status).toBe('done')
  return { ...run, id }
}

describe('a server started with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  let receiver: OtlpReceiver
  let server: ServerProcess
  /** A second server the first one's agent is asked over A2A: one trace spans both. */
  let peer: ServerProcess
  const dataDirs: string[] = []
  beforeAll(async () => {
    receiver = await startOtlpReceiver()
    const telemetry = {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_METRIC_EXPORT_INTERVAL: '500',
    }
    const start = async (environment: Record<string, string>) => {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'baton-otlp-'))
      dataDirs.push(dataDir)
      return startServerProcess({
        BATON_DATA_DIR: dataDir,
        ...telemetry,
        ...environment,
      })
    }
    ;[server, peer] = await Promise.all([
      start({
        OTEL_SERVICE_NAME: 'baton-under-test',
        // The peer listens on 127.0.0.1, a private endpoint: allowed for this test.
        BATON_ALLOW_PRIVATE_ENDPOINTS: 'true',
        BATON_TRACE_URL_TEMPLATE: 'http://jaeger.test:16686/trace/{traceId}',
      }),
      start({ OTEL_SERVICE_NAME: 'baton-peer' }),
    ])
  })
  afterAll(async () => {
    await Promise.all([server?.stop(), peer?.stop()])
    await receiver?.close()
    for (const dataDir of dataDirs) await rm(dataDir, { recursive: true, force: true })
  })

  it('continues one trace into another server process over A2A', async () => {
    const accounts = newAgentAccounts('peer-analyst')
    const runtime = (await (await fetch(`${server.url}/api/v1/runtime`)).json()) as {
      registry: `0x${string}`
    }
    const registration = await signAgentRegistration(
      { ...accounts.agent, endpoint: `${peer.url}/a2a/analyst/.well-known/agent-card.json` },
      { ...accounts, registry: runtime.registry },
    )
    const registered = await fetch(`${server.url}/api/v1/agents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(registration),
    })
    expect(registered.status).toBe(201)
    const run = await runToTheEnd(server, {
      name: 'across',
      steps: [
        { op: 'delegate', saveAs: 'a', agentWallet: accounts.agentAccount.address, prompt: 'Hi' },
      ],
    })
    const spans = await waitFor(
      () => {
        const ours = receiver.spans.filter((span) => span.traceId === run.traceId)
        const there = ours.filter((span) => span.resource['service.name'] === 'baton-peer')
        // Each process exports its own batches, a span when it ends (a child before its
        // parent, maybe in another batch): wait for every span the test reads.
        const calling = ours.find((span) => span.name === 'invoke_agent Agent peer-analyst')
        const answered = there.some((span) => span.name === 'invoke_agent Incident Analyst')
        const served = there.some((span) => calling && span.parentSpanId === calling.spanId)
        return answered && served && there.some((span) => span.name === 'chat default')
          ? ours
          : undefined
      },
      { what: "the peer's spans in the run's trace", timeoutMs: 30_000 },
    )
    const client = spans.find((span) => span.name === 'invoke_agent Agent peer-analyst')
    expect(client?.resource['service.name']).toBe('baton-under-test')
    const remote = spans.find(
      (span) =>
        span.name === 'invoke_agent Incident Analyst' &&
        span.resource['service.name'] === 'baton-peer',
    )
    expect(remote).toBeDefined()
    // The peer's request span is a child of the caller's CLIENT span (its traceparent).
    expect(
      spans.some(
        (span) =>
          span.resource['service.name'] === 'baton-peer' && span.parentSpanId === client?.spanId,
      ),
    ).toBe(true)
  })

  it('exports one trace per run: request, queue, workflow, agent and model call spans, and metrics', async () => {
    const run = await runToTheEnd(server, {
      name: 'exported',
      steps: [{ op: 'delegate', saveAs: 'a', agentWallet: analyst, prompt: 'Check it' }],
    })
    const { id } = run
    expect(run.traceId).toMatch(/^[0-9a-f]{32}$/)
    expect(run.traceUrl).toBe(`http://jaeger.test:16686/trace/${run.traceId}`)

    // The job's span ends last (after the run's end is stored), so it may come in a later batch.
    const names = [
      'process baton-runs',
      'invoke_workflow exported',
      'invoke_agent Incident Analyst',
      'chat default',
    ]
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
      // Counters recorded at different moments may arrive in different periodic exports.
      () =>
        receiver.metricNames.has('gen_ai.client.token.usage') &&
        receiver.metricNames.has('baton.runs.finished')
          ? true
          : undefined,
      { what: 'the token usage metric at the receiver', timeoutMs: 30_000 },
    )
    expect(receiver.metricNames).toContain('baton.runs.finished')
  })
})
