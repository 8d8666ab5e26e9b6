import { SendMessageRequest, type Task, TaskState } from '@a2a-js/sdk'
import { ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client'
import { waitFor } from '@baton/testing/processes'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { serverOnOwnPostgres } from '../__fixtures__/server-on-own-postgres'

// A cluster of its own: the test stops, starts and freezes it.
const own = serverOnOwnPostgres('postgres faults', {
  // The demo agents, for the A2A endpoint.
  BATON_SEED: 'true',
  BATON_RATE_LIMIT: '1000000',
  BATON_DATABASE_TIMEOUT_MS: '3000',
})

/**
 * A request that needs the database (the runs list: the agent list is served from the
 * registry's cache), bounded so a hang fails the test instead of stalling it.
 */
async function listRuns(): Promise<{ status: number; body: { error?: { code: string } } }> {
  const response = await fetch(`${own.server.url}/api/v1/runs`, {
    signal: AbortSignal.timeout(20_000),
  })
  return { status: response.status, body: (await response.json()) as { error?: { code: string } } }
}

async function ready(): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${own.server.url}/ready`, { signal: AbortSignal.timeout(20_000) })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

async function runToTheEnd(): Promise<string> {
  const started = await fetch(`${own.server.url}/api/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ plan: { steps: [{ op: 'stop', output: 'fine' }] } }),
    signal: AbortSignal.timeout(20_000),
  })
  expect(started.status).toBe(202)
  const { id } = (await started.json()) as { id: string }
  return waitFor(
    async () => {
      const run = (await (await fetch(`${own.server.url}/api/v1/runs/${id}`)).json()) as {
        status: string
      }
      return ['done', 'failed'].includes(run.status) ? run.status : undefined
    },
    { timeoutMs: 60_000, what: 'the run to finish' },
  )
}

describe.skipIf(!own.available)('a server on PostgreSQL when the database fails', () => {
  it('survives the termination of its connections and serves on new ones', async () => {
    // Several requests at once, so the pool holds more than one connection.
    await Promise.all(Array.from({ length: 5 }, () => listRuns()))
    const admin = new pg.Client({ connectionString: own.cluster.url })
    await admin.connect()
    try {
      const { rows } = await admin.query(
        'select pg_terminate_backend(pid) as terminated from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [own.databaseName],
      )
      expect(rows.length).toBeGreaterThan(0)
    } finally {
      await admin.end()
    }
    // The dropped connections' errors arrive a moment later; the process must outlive them.
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(own.server.child.exitCode, own.server.output()).toBeNull()
    const answer = await waitFor(
      async () => {
        const { status } = await listRuns()
        return status === 200 ? status : undefined
      },
      { timeoutMs: 30_000, what: 'the runs list to be served again' },
    )
    expect(answer).toBe(200)
    expect(await runToTheEnd()).toBe('done')
  }, 120_000)

  it('answers 503 DATABASE_UNAVAILABLE while PostgreSQL is stopped, /ready 503, and recovers by itself', async () => {
    await own.cluster.halt()
    try {
      const during = await listRuns()
      expect(during.status).toBe(503)
      expect(during.body.error?.code).toBe('DATABASE_UNAVAILABLE')
      const started = await fetch(`${own.server.url}/api/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ plan: { steps: [{ op: 'stop', output: 'x' }] } }),
        signal: AbortSignal.timeout(20_000),
      })
      expect(started.status).toBe(503)
      expect(started.headers.get('retry-after')).toBe('5')
      const refused = (await started.json()) as {
        error: { code: string; message: string; details: Record<string, unknown> }
      }
      expect(refused.error).toMatchObject({
        code: 'DATABASE_UNAVAILABLE',
        message: 'The database is unavailable: the connection was refused.',
        details: { reason: 'the connection was refused' },
      })
      // Where the database is, is the operator's: in the log, not in any answer.
      const { port } = new URL(own.cluster.url)
      for (const answer of [refused, during.body]) {
        expect(JSON.stringify(answer)).not.toContain(own.databaseName)
        expect(JSON.stringify(answer)).not.toContain(port)
      }
      const logged = own.server
        .output()
        .split('\n')
        .find((line) => line.includes('DatabaseUnavailableError'))
      expect(logged).toContain(`"location":"postgres://127.0.0.1:${port}/${own.databaseName}"`)
      const notReady = await ready()
      expect(notReady.status).toBe(503)
      expect(notReady.body).toMatchObject({
        error: { code: 'NOT_READY', details: { checks: { database: expect.any(String) } } },
      })
      expect(own.server.child.exitCode, own.server.output()).toBeNull()
    } finally {
      await own.cluster.resume()
    }
    await waitFor(async () => ((await listRuns()).status === 200 ? true : undefined), {
      timeoutMs: 30_000,
      what: 'the runs list to be served again',
    })
    expect((await ready()).status).toBe(200)
    expect(await runToTheEnd()).toBe('done')
  }, 120_000)

  it('answers an A2A client typed while PostgreSQL is stopped: the fault, its retry delay, nothing of where; then serves it again', async () => {
    const card = `${own.server.url}/a2a/analyst/.well-known/agent-card.json`
    const client = await new ClientFactory({
      transports: [new JsonRpcTransportFactory()],
    }).createFromUrl(card, '')
    const message = () =>
      SendMessageRequest.fromJSON({
        message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] },
      })
    /** A v0.3 JSON-RPC call, as an older client sends it. */
    const legacyCall = async (method: string, params: unknown) => {
      const response = await fetch(`${own.server.url}/a2a/analyst`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
        signal: AbortSignal.timeout(20_000),
      })
      return (await response.json()) as { error?: { code: number; data?: unknown } }
    }
    const fault = {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'DATABASE_UNAVAILABLE',
      domain: 'baton',
      metadata: { status: '503', retryAfterSeconds: '5', reason: 'the connection was refused' },
    }
    const before = (await client.sendMessage(message())) as Task
    expect(before.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)

    await own.cluster.halt()
    try {
      const refusals: unknown[] = []
      refusals.push(await client.sendMessage(message()).catch((error: unknown) => error))
      refusals.push(await client.getTask({ id: before.id, tenant: '' }).catch((e: unknown) => e))
      const stream = (async () => {
        for await (const _event of client.sendMessageStream(message())) {
          // Nothing is streamed: the task cannot be stored.
        }
      })()
      refusals.push(await stream.catch((error: unknown) => error))
      for (const refusal of refusals) {
        // What the SDK's client gives its caller: the code, the message, and the ErrorInfo.
        expect(refusal).toMatchObject({
          envelopeCode: -32603,
          message: 'The database is unavailable: the connection was refused.',
          data: [fault],
        })
      }
      const legacy = await legacyCall('message/send', {
        message: {
          kind: 'message',
          messageId: crypto.randomUUID(),
          role: 'user',
          parts: [{ kind: 'text', text: 'hi' }],
        },
      })
      expect(legacy.error).toMatchObject({ code: -32603, data: [fault] })
      const { port } = new URL(own.cluster.url)
      for (const answer of [...refusals.map((each) => (each as { data: unknown }).data), legacy]) {
        expect(JSON.stringify(answer)).not.toContain(own.databaseName)
        expect(JSON.stringify(answer)).not.toContain(port)
      }
      // The operator's log has it, with where.
      const logged = own.server
        .output()
        .split('\n')
        .find((line) => line.includes('"msg":"A2A request failed"'))
      expect(logged).toContain(`"location":"postgres://127.0.0.1:${port}/${own.databaseName}"`)
    } finally {
      await own.cluster.resume()
    }
    const after = await waitFor(
      async () => {
        const sent = await client.sendMessage(message()).catch(() => undefined)
        return sent ? (sent as Task) : undefined
      },
      { timeoutMs: 30_000, what: 'the A2A endpoint to serve again' },
    )
    expect(after.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
  }, 120_000)

  it('answers /ready 503 naming the database while PostgreSQL is frozen, and 200 once it thaws', async () => {
    expect((await ready()).status).toBe(200)
    await own.cluster.freeze()
    try {
      const frozen = await ready()
      expect(frozen.status).toBe(503)
      expect(frozen.body).toMatchObject({
        error: {
          code: 'NOT_READY',
          details: { checks: { database: expect.stringMatching(/no answer within/) } },
        },
      })
    } finally {
      await own.cluster.thaw()
    }
    await waitFor(async () => ((await ready()).status === 200 ? true : undefined), {
      timeoutMs: 30_000,
      what: '/ready to answer 200 again',
    })
    expect(await runToTheEnd()).toBe('done')
  }, 120_000)
})
