import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import {
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  SendMessageRequest,
  type Task,
  TaskState,
} from '@a2a-js/sdk'
import { type Client, ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client'
import { signAgentRegistration } from '@baton/core'
import { type EchoAgent, startEchoAgent } from '@baton/testing/a2a'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type ServerProcess, startServerProcess } from '../__fixtures__/server-process'
import { newAgentAccounts } from '../__fixtures__/signed-agents'

let dataDir: string
let server: ServerProcess
let echo: EchoAgent
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'baton-a2a-process-'))
  echo = await startEchoAgent({ mount: 'express', slowWord: 'slow' })
  // The echo agent listens on 127.0.0.1, a private endpoint: allowed for this test.
  server = await startServerProcess({
    PORT: '0',
    BATON_DATA_DIR: dataDir,
    BATON_ALLOW_PRIVATE_ENDPOINTS: 'true',
  })
}, 120_000)
afterAll(async () => {
  await server?.stop()
  await echo?.close()
  await rm(dataDir, { recursive: true, force: true })
})

const sdkClient = (cardUrl: string): Promise<Client> =>
  new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(cardUrl, '')

const message = (text: string) =>
  SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
  })

const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as Record<string, unknown>,
  )

const api = async (method: string, url: string, body?: unknown) => {
  const response = await fetch(`${server.url}${url}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

let rememberedTaskId = ''

describe('a hosted agent over A2A, on the real server process', () => {
  it('serves the official SDK client: card, send, stream, get, list, refusals', async () => {
    const client = await sdkClient(`${server.url}/a2a/analyst/.well-known/agent-card.json`)
    const card = await client.getAgentCard()
    expect(card.name).toBe('Incident Analyst')

    const task = (await client.sendMessage(message('Review the checkout incident'))) as Task
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
    const answer = task.artifacts[0]?.parts[0]?.content
    expect(answer?.$case).toBe('text')
    expect(String(answer?.value).length).toBeGreaterThan(0)
    rememberedTaskId = task.id

    let last: TaskState | undefined
    let streamedId = ''
    for await (const event of client.sendMessageStream(message('And the refunds?'))) {
      if (event.payload?.$case === 'task') streamedId = event.payload.value.id
      if (event.payload?.$case === 'statusUpdate') last = event.payload.value.status?.state
    }
    expect(last).toBe(TaskState.TASK_STATE_COMPLETED)

    const got = await client.getTask(GetTaskRequest.fromJSON({ id: streamedId }))
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
    const listed = await client.listTasks(ListTasksRequest.fromJSON({}))
    expect(listed.tasks.map((each) => each.id)).toEqual(
      expect.arrayContaining([task.id, streamedId]),
    )
    expect(
      await caught(client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id }))),
    ).toMatchObject({ envelopeCode: -32002 })
    expect(
      await caught(client.getTask(GetTaskRequest.fromJSON({ id: 'no-such-task' }))),
    ).toMatchObject({ envelopeCode: -32001 })
  })
})

describe('Baton calling an A2A agent that is not Baton', () => {
  let wallet = ''
  beforeAll(async () => {
    const accounts = newAgentAccounts('echo')
    // Signed for this server's registry, as any client gets it.
    const { registry } = (await api('GET', '/api/v1/runtime')).body as { registry: `0x${string}` }
    const body = await signAgentRegistration(
      { ...accounts.agent, endpoint: echo.cardUrl },
      { ...accounts, registry },
    )
    const registered = await api('POST', '/api/v1/agents', body)
    expect(registered.status).toBe(201)
    wallet = accounts.agentAccount.address
  })

  const startRun = async (prompt: string) => {
    const started = await api('POST', '/api/v1/runs', {
      plan: {
        steps: [
          { op: 'delegate', saveAs: 'answer', agentWallet: wallet, prompt },
          { op: 'stop', output: '{{answer}}' },
        ],
      },
    })
    expect(started.status).toBe(202)
    return started.body.id as string
  }

  it('runs a MAL plan whose delegate reaches it over A2A and gets its answer', async () => {
    const id = await startRun('hello from a plan')
    const run = await vi.waitFor(
      async () => {
        const { body } = await api('GET', `/api/v1/runs/${id}`)
        expect(body.status).toBe('done')
        return body
      },
      { timeout: 30_000, interval: 100 },
    )
    expect(run.output).toBe('echo: hello from a plan')
    expect(echo.received).toContain('hello from a plan')
  })

  it('cancels the remote task when the run is cancelled', async () => {
    const id = await startRun('slow work')
    await vi.waitFor(() => expect(echo.received).toContain('slow work'), { timeout: 30_000 })
    await api('POST', `/api/v1/runs/${id}/cancel`, {})
    await vi.waitFor(() => expect(echo.cancelled).toHaveLength(1), { timeout: 30_000 })
  })
})

describe('A2A tasks across a restart', () => {
  it('finds with GetTask a task created before the server restarted', async () => {
    expect(rememberedTaskId).not.toBe('')
    await server.stop()
    // The echo agent listens on 127.0.0.1, a private endpoint: allowed for this test.
    server = await startServerProcess({
      PORT: '0',
      BATON_DATA_DIR: dataDir,
      BATON_ALLOW_PRIVATE_ENDPOINTS: 'true',
    })
    const client = await sdkClient(`${server.url}/a2a/analyst/.well-known/agent-card.json`)
    const found = await client.getTask(GetTaskRequest.fromJSON({ id: rememberedTaskId }))
    expect(found.id).toBe(rememberedTaskId)
    expect(found.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
  }, 120_000)
})
