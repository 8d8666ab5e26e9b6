import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { signAgentRegistration } from '@baton/core'
import { createDatabase } from '@baton/testing/postgres'
import { waitFor } from '@baton/testing/processes'
import { hasRedis, installRedis, type RedisServer, startRedisServer } from '@baton/testing/redis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { type OtlpReceiver, startOtlpReceiver } from '../__fixtures__/otlp-receiver'
import { newAgentAccounts } from '../__fixtures__/signed-agents'
import { type ClusterProcess, startCluster, stopCluster } from '../scale/__fixtures__/cluster'

const postgresUrl = inject('postgresUrl')
const canRun = (hasRedis && postgresUrl !== '') || process.env.CI === 'true'
if (!canRun) {
  console.warn(
    `[scale-out trace test] redis-server or PostgreSQL not found: skipping it (${installRedis}).`,
  )
}

const SERVER = 2
const CLIENT = 3

describe.runIf(canRun)('one trace across two server processes on one Redis', () => {
  let receiver: OtlpReceiver
  let redis: RedisServer | undefined
  let dataDir: string | undefined
  const started: ClusterProcess[] = []
  let api: ClusterProcess

  beforeAll(async () => {
    if (!hasRedis) throw new Error(`redis-server is required under CI=true: ${installRedis}`)
    if (!postgresUrl) throw new Error('PostgreSQL is required under CI=true')
    receiver = await startOtlpReceiver()
    redis = await startRedisServer()
    dataDir = await mkdtemp(path.join(tmpdir(), 'baton-trace-scale-'))
    // `api` takes requests and never a run; `worker` runs what the queue (BullMQ) hands it.
    ;[api] = (await startCluster({
      names: ['api', 'worker'],
      databaseUrl: await createDatabase(postgresUrl),
      redisUrl: redis.url,
      dataDir,
      environment: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_METRICS_EXPORTER: 'none',
        // The agent's A2A endpoint is the api process on 127.0.0.1: allowed for this test.
        BATON_ALLOW_PRIVATE_ENDPOINTS: 'true',
      },
      environmentOf: {
        api: { BATON_ROLE: 'api', OTEL_SERVICE_NAME: 'baton-api' },
        worker: { BATON_ROLE: 'all', OTEL_SERVICE_NAME: 'baton-worker' },
      },
      started,
    })) as [ClusterProcess]
  }, 180_000)

  afterAll(async () => {
    await stopCluster(started)
    await redis?.stop()
    await receiver?.close()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  }, 60_000)

  it('follows a run from the api process through the queue to the worker, and its A2A call back to the api process', async () => {
    // An agent registered with an A2A endpoint on the api process: the worker calls it there.
    const accounts = newAgentAccounts('api-analyst')
    const runtime = (await (await fetch(`${api.url}/api/v1/runtime`)).json()) as {
      registry: `0x${string}`
    }
    const registration = await signAgentRegistration(
      { ...accounts.agent, endpoint: `${api.url}/a2a/analyst/.well-known/agent-card.json` },
      { ...accounts, registry: runtime.registry },
    )
    const registered = await fetch(`${api.url}/api/v1/agents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(registration),
    })
    expect(registered.status).toBe(201)

    const posted = await fetch(`${api.url}/api/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        plan: {
          name: 'two-processes',
          steps: [
            {
              op: 'delegate',
              saveAs: 'a',
              agentWallet: accounts.agentAccount.address,
              prompt: 'Hi',
            },
          ],
        },
      }),
    })
    expect(posted.status).toBe(202)
    const { id } = (await posted.json()) as { id: string }
    const run = await waitFor(
      async () => {
        const body = (await (await fetch(`${api.url}/api/v1/runs/${id}`)).json()) as {
          status: string
          traceId: string | null
        }
        return body.status === 'queued' || body.status === 'running' ? undefined : body
      },
      { what: 'the run to finish', timeoutMs: 60_000 },
    )
    expect(run.status).toBe('done')
    expect(run.traceId).toMatch(/^[0-9a-f]{32}$/)

    const service = (span: { resource: Record<string, unknown> }) => span.resource['service.name']
    const spans = await waitFor(
      () => {
        const ours = receiver.spans.filter((span) => span.traceId === run.traceId)
        // Each process exports its own batches: wait for the last span of each side.
        const hosted = ours.some(
          (span) => service(span) === 'baton-api' && span.name === 'invoke_agent Incident Analyst',
        )
        const workflow = ours.some(
          (span) => service(span) === 'baton-worker' && span.name.startsWith('invoke_workflow'),
        )
        // The job's span ends last (after the run's end is stored): it may come in a later batch.
        const job = ours.some(
          (span) => service(span) === 'baton-worker' && span.name === 'process baton-runs',
        )
        return hosted && workflow && job ? ours : undefined
      },
      { what: "both processes' spans in the run's trace", timeoutMs: 30_000 },
    )
    // Nothing of this run went to another trace: every span of its id is in this one.
    const elsewhere = receiver.spans.filter(
      (span) => span.attributes['baton.run.id'] === id && span.traceId !== run.traceId,
    )
    expect(elsewhere).toEqual([])

    // api: the request that started the run; worker: the job BullMQ handed it, continued.
    const request = spans.find((span) => span.attributes['http.route'] === '/api/v1/runs')
    expect(request && service(request)).toBe('baton-api')
    expect(request?.kind).toBe(SERVER)
    const job = spans.find((span) => span.name === 'process baton-runs')
    expect(job && service(job)).toBe('baton-worker')
    expect(job?.attributes).toMatchObject({ 'messaging.system': 'bullmq', 'baton.run.id': id })
    const workflow = spans.find((span) => span.name === 'invoke_workflow two-processes')
    expect(workflow?.parentSpanId).toBe(job?.spanId)
    expect(workflow && service(workflow)).toBe('baton-worker')

    // worker → api over A2A: the api's request span is a child of the worker's CLIENT span.
    const client = spans.find((span) => span.name === 'invoke_agent Agent api-analyst')
    expect(client && service(client)).toBe('baton-worker')
    expect(client?.kind).toBe(CLIENT)
    expect(client?.parentSpanId).toBe(workflow?.spanId)
    const answered = spans.filter(
      (span) => service(span) === 'baton-api' && span.parentSpanId === client?.spanId,
    )
    expect(answered.length).toBeGreaterThan(0)
    const hosted = spans.find(
      (span) => service(span) === 'baton-api' && span.name === 'invoke_agent Incident Analyst',
    )
    expect(hosted).toBeDefined()
    expect(
      spans.some((span) => span.name === 'chat default' && service(span) === 'baton-api'),
    ).toBe(true)
  }, 120_000)
})
