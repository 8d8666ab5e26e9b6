import {
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  type Task,
  TaskState,
} from '@a2a-js/sdk'
import { type Client, ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { createEndpointFetch } from '../endpoints/create-endpoint-fetch'
import {
  createTestServices,
  hostedAgent,
  type TestServices,
} from './__fixtures__/a2a-test-services'
import { createA2APlugin } from './a2a-plugin'
import type { A2AServices } from './a2a-services'
import { askRemoteAgent } from './ask-remote-agent'
import { HOSTED_AGENT_MODES } from './message-parts'

// One database for the file: PGlite takes seconds to start on a busy machine.
let shared: TestServices
const apps: FastifyInstance[] = []
beforeAll(async () => {
  shared = await createTestServices()
})
afterAll(async () => {
  await shared.close()
})
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()))
  shared.calls.length = 0
})

async function serve(overrides: Partial<A2AServices> = {}, services: TestServices = shared) {
  const app = Fastify()
  apps.push(app)
  await app.register(createA2APlugin({ ...services, ...overrides }))
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  return { base, services }
}

const sdkClient = (cardUrl: string, fetchImpl?: typeof fetch): Promise<Client> =>
  new ClientFactory({
    transports: [new JsonRpcTransportFactory(fetchImpl ? { fetchImpl } : {})],
  }).createFromUrl(cardUrl, '')

const message = (text: string, extra: Record<string, unknown> = {}) =>
  SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra },
  })

const rpc = async (url: string, body: string, headers: Record<string, string> = {}) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

/** A JSON-RPC call (the v1.0 binding) to the analyst's endpoint. */
const callAnalyst = (base: string, method: string, params: unknown) =>
  rpc(`${base}/a2a/analyst`, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), {
    'a2a-version': '1.0',
  })

/** A user's message in the v0.3 binding (`message/send`, no A2A-Version) to the analyst. */
const sendLegacy = (base: string, messageId: string, parts: unknown[], configuration?: object) =>
  rpc(
    `${base}/a2a/analyst`,
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: {
        message: { kind: 'message', role: 'user', messageId, parts },
        ...(configuration ? { configuration } : {}),
      },
    }),
  )

/** A task the stand-in agent keeps running until it is cancelled, answered at once. */
const startWaiting = (client: Client, messageId: string) =>
  client.sendMessage(
    SendMessageRequest.fromJSON({
      message: { messageId, role: 'ROLE_USER', parts: [{ text: 'wait for me' }] },
      configuration: { returnImmediately: true },
    }),
  ) as Promise<Task>

const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as Record<string, unknown>,
  )

describe('the A2A agent cards', () => {
  it('serves a hosted agent card built from its Baton card', async () => {
    const { base } = await serve()
    const response = await fetch(`${base}/a2a/analyst/.well-known/agent-card.json`)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({
      name: 'Incident Analyst',
      description: 'Reviews incidents.',
      version: '1.0.0',
      supportedInterfaces: [
        { url: `${base}/a2a/analyst`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: `${base}/a2a/analyst`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      ],
      capabilities: { streaming: true },
      // What the server reads and answers in (message-parts.ts) is what the card says.
      defaultInputModes: [...HOSTED_AGENT_MODES],
      defaultOutputModes: [...HOSTED_AGENT_MODES],
      skills: [{ id: 'incident-review', examples: ['Review yesterday’s incidents'] }],
    })
  })

  it('describes the orchestrator at the server-wide well-known path', async () => {
    const { base } = await serve()
    const card = await (await fetch(`${base}/.well-known/agent-card.json`)).json()
    expect(card).toMatchObject({ name: 'Lead' })
    expect(card.supportedInterfaces[0]).toMatchObject({
      url: `${base}/a2a/lead`,
      protocolVersion: '1.0',
    })
  })

  it('answers 404 for the card of an agent it does not host', async () => {
    const { base } = await serve()
    const response = await fetch(`${base}/a2a/nobody/.well-known/agent-card.json`)
    expect(response.status).toBe(404)
  })
})

describe('the A2A JSON-RPC endpoint', () => {
  it('answers an SDK client: send, stream, get, list, and refuses what it must', async () => {
    const { base } = await serve()
    const client = await sdkClient(`${base}/a2a/analyst/.well-known/agent-card.json`)

    const sent = await client.sendMessage(message('hello'))
    expect('status' in sent).toBe(true)
    const task = sent as Task
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
    expect(task.artifacts[0]?.parts[0]?.content).toEqual({
      $case: 'text',
      value: 'Incident Analyst says: hello',
    })

    const states: TaskState[] = []
    let streamedId = ''
    for await (const event of client.sendMessageStream(message('stream me'))) {
      if (event.payload?.$case === 'task') streamedId = event.payload.value.id
      if (event.payload?.$case === 'statusUpdate' && event.payload.value.status) {
        states.push(event.payload.value.status.state)
      }
    }
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED)

    const got = await client.getTask(GetTaskRequest.fromJSON({ id: streamedId }))
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
    const listed = await client.listTasks(ListTasksRequest.fromJSON({}))
    expect(listed.tasks.map((each) => each.id)).toEqual(
      expect.arrayContaining([task.id, streamedId]),
    )

    expect(
      await caught(client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id }))),
    ).toMatchObject({
      envelopeCode: -32002,
    })
    expect(
      await caught(client.getTask(GetTaskRequest.fromJSON({ id: 'no-such-task' }))),
    ).toMatchObject({
      envelopeCode: -32001,
    })
  })

  it('keeps each agent’s tasks to itself', async () => {
    const { base } = await serve()
    const analyst = await sdkClient(`${base}/a2a/analyst/.well-known/agent-card.json`)
    const lead = await sdkClient(`${base}/a2a/lead/.well-known/agent-card.json`)
    const task = (await analyst.sendMessage(message('mine'))) as Task
    expect(await caught(lead.getTask(GetTaskRequest.fromJSON({ id: task.id })))).toMatchObject({
      envelopeCode: -32001,
    })
  })

  it('answers malformed JSON-RPC with the spec’s errors and id null, never a 5xx', async () => {
    const { base } = await serve()
    const url = `${base}/a2a/analyst`
    expect(await rpc(url, '{"jsonrpc": "2.0", "method": ')).toEqual({
      status: 200,
      body: { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.any(String) } },
    })
    expect(await rpc(url, '[1, 2]')).toMatchObject({
      status: 200,
      body: { id: null, error: { code: -32600 } },
    })
    expect(
      await rpc(url, '{"jsonrpc":"1.0","method":"SendMessage"}', { 'a2a-version': '1.0' }),
    ).toMatchObject({
      status: 200,
      body: { id: null, error: { code: -32600 } },
    })
    const wrongType = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hi',
    })
    expect(wrongType.status).toBe(415)
    expect(await wrongType.json()).toMatchObject({ id: null, error: { code: -32005 } })
  })

  it('answers a JSON-RPC error for an agent it does not host', async () => {
    const { base } = await serve()
    const answer = await rpc(
      `${base}/a2a/nobody`,
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: 'x' } }),
      { 'a2a-version': '1.0' },
    )
    expect(answer).toMatchObject({ status: 200, body: { jsonrpc: '2.0', error: { code: -32600 } } })
  })

  it('accepts the v0.3 method names from clients that send no A2A-Version', async () => {
    const { base } = await serve()
    const answer = await sendLegacy(base, 'm1', [{ kind: 'text', text: 'old' }])
    expect(answer.status).toBe(200)
    expect(answer.body.result).toMatchObject({
      kind: 'task',
      status: { state: 'completed' },
      artifacts: [{ parts: [{ kind: 'text', text: 'Incident Analyst says: old' }] }],
    })
  })

  it('starts each of a client’s turns in one contextId at hop 0, a chain of its own', async () => {
    const { base, services } = await serve()
    const client = await sdkClient(`${base}/a2a/analyst/.well-known/agent-card.json`)
    const first = (await client.sendMessage(message('one'))) as Task
    const second = (await client.sendMessage(
      message('two', { contextId: first.contextId }),
    )) as Task
    const third = (await client.sendMessage(
      message('three', { contextId: first.contextId }),
    )) as Task
    expect(services.calls.map(({ correlationId, hop }) => ({ correlationId, hop }))).toEqual([
      { correlationId: first.contextId, hop: 0 },
      { correlationId: `${first.contextId}/${second.id}`, hop: 0 },
      { correlationId: `${first.contextId}/${third.id}`, hop: 0 },
    ])
  })

  it('cancels a running task: the agent host’s signal aborts, and a subscriber sees it end canceled', async () => {
    const { base, services } = await serve()
    const client = await sdkClient(`${base}/a2a/analyst/.well-known/agent-card.json`)
    const started = await startWaiting(client, 'w')
    await vi.waitFor(() => expect(services.calls).toHaveLength(1))
    // A second client follows the running task (SubscribeToTask) and sees it end.
    const follower = await sdkClient(`${base}/a2a/analyst/.well-known/agent-card.json`)
    const seen: TaskState[] = []
    const following = (async () => {
      for await (const event of follower.resubscribeTask(
        SubscribeToTaskRequest.fromJSON({ id: started.id }),
      )) {
        const state =
          event.payload?.$case === 'statusUpdate'
            ? event.payload.value.status?.state
            : event.payload?.$case === 'task'
              ? event.payload.value.status?.state
              : undefined
        if (state !== undefined) seen.push(state)
      }
    })()
    await vi.waitFor(() => expect(seen.length).toBeGreaterThan(0))
    const cancelled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: started.id }))
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED)
    expect(services.calls[0]?.signal?.aborted).toBe(true)
    await following
    expect(seen.at(-1)).toBe(TaskState.TASK_STATE_CANCELED)
  })

  it('refuses a message to a task still running (-32004 naming params.message.taskId): the agent runs once, and a cancel still stops it', async () => {
    const { base, services } = await serve()
    const client = await sdkClient(`${base}/a2a/analyst/.well-known/agent-card.json`)
    const started = await startWaiting(client, 'first')
    await vi.waitFor(() => expect(services.calls).toHaveLength(1))
    const followUp = (method: string) =>
      callAnalyst(base, method, {
        message: {
          messageId: `follow-up ${method}`,
          taskId: started.id,
          contextId: started.contextId,
          role: 'ROLE_USER',
          parts: [{ text: 'and then?' }],
        },
      })
    const refused = {
      status: 200,
      body: {
        error: {
          code: -32004,
          message: expect.stringContaining(`params.message.taskId: task ${started.id} is working`),
        },
      },
    }
    expect(await followUp('SendMessage')).toMatchObject(refused)
    // A stream is refused the same way, before it starts.
    const streamed = await fetch(`${base}/a2a/analyst`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'SendStreamingMessage',
        params: {
          message: {
            messageId: 'follow-up stream',
            taskId: started.id,
            role: 'ROLE_USER',
            parts: [{ text: 'and then?' }],
          },
        },
      }),
    })
    expect(await streamed.text()).toContain('"code":-32004')
    // The agent ran once; the task keeps the one message it took.
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(services.calls.map((call) => call.input)).toEqual(['wait for me'])
    const running = await client.getTask(GetTaskRequest.fromJSON({ id: started.id }))
    expect(running.status?.state).toBe(TaskState.TASK_STATE_WORKING)
    expect(running.history.map((each) => each.messageId)).toEqual(['first'])
    // The cancel reaches the run that holds the task.
    const cancelled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: started.id }))
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED)
    expect(services.calls[0]?.signal?.aborted).toBe(true)
    // Ended, it is refused by the SDK's own rule; an unknown task is not found.
    expect(await followUp('SendMessage')).toMatchObject({
      body: { error: { code: -32004, message: expect.stringContaining('terminal state') } },
    })
    expect(
      await caught(client.sendMessage(message('to nothing', { taskId: 'no-such-task' }))),
    ).toMatchObject({ envelopeCode: -32001 })
    expect(services.calls).toHaveLength(1)
  })

  it('refuses a part its agent would not read (-32005 naming it) before anything runs, and reads a text file given inline', async () => {
    const { base, services } = await serve()
    const send = (messageId: string, parts: unknown[]) =>
      callAnalyst(base, 'SendMessage', { message: { messageId, role: 'ROLE_USER', parts } })
    const question = { text: 'what does this say?' }
    const byUrl = await send('by-url', [
      question,
      { url: 'https://files.example/report.pdf', mediaType: 'application/pdf' },
    ])
    expect(byUrl.body).toMatchObject({
      error: {
        code: -32005,
        message: expect.stringContaining(
          'params.message.parts[1] is a file by URL (application/pdf)',
        ),
      },
    })
    const image = await send('image', [
      { raw: Buffer.from('not really a png').toString('base64'), mediaType: 'image/png' },
      question,
    ])
    expect(image.body).toMatchObject({
      error: {
        code: -32005,
        message: expect.stringContaining('params.message.parts[0] is a file of image/png'),
      },
    })
    // The v0.3 shape of a file is held to the same rule.
    const legacy = await sendLegacy(base, 'legacy-file', [
      { kind: 'file', file: { uri: 'https://files.example/a.pdf', mimeType: 'application/pdf' } },
    ])
    expect(legacy.body).toMatchObject({ error: { code: -32005 } })
    expect(services.calls).toHaveLength(0)
    // Nothing was stored of them: the same ids with readable parts start tasks.
    const readable = await send('by-url', [
      question,
      {
        raw: Buffer.from('refunds: 12, all approved').toString('base64'),
        mediaType: 'text/plain; charset=utf-8',
        filename: 'refunds.txt',
      },
    ])
    const task = (readable.body.result as { task: Task }).task
    expect(task.status?.state).toBe('TASK_STATE_COMPLETED')
    expect(services.calls.map((call) => call.input)).toEqual([
      'what does this say?\nrefunds: 12, all approved',
    ])
  })

  it('refuses a message whose acceptedOutputModes take no answer the agent gives (-32005), before it runs', async () => {
    const { base, services } = await serve()
    const send = (messageId: string, acceptedOutputModes: string[]) =>
      callAnalyst(base, 'SendMessage', {
        message: { messageId, role: 'ROLE_USER', parts: [{ text: 'draw the refunds' }] },
        configuration: { acceptedOutputModes },
      })
    expect((await send('images-only', ['image/png', 'audio/*'])).body).toMatchObject({
      error: {
        code: -32005,
        message: expect.stringContaining(
          'params.configuration.acceptedOutputModes (image/png, audio/*) takes none',
        ),
      },
    })
    expect(services.calls).toHaveLength(0)
    for (const modes of [['text/*'], ['*/*'], ['image/png', 'application/json']]) {
      const answered = await send(`accepts ${modes.join()}`, modes)
      expect(answered.body).toMatchObject({
        result: { task: { status: { state: 'TASK_STATE_COMPLETED' } } },
      })
    }
    expect(services.calls).toHaveLength(3)
  })

  it('refuses a message that asks for push notifications (-32003), before it runs, in both bindings and streamed', async () => {
    const { base, services } = await serve()
    const push = { url: 'https://client.example/a2a-callback', token: 'secret' }
    // A client told nothing would wait for a callback that never comes.
    const v1 = await callAnalyst(base, 'SendMessage', {
      message: { messageId: 'push-v1', role: 'ROLE_USER', parts: [{ text: 'tell me later' }] },
      configuration: { taskPushNotificationConfig: push, returnImmediately: true },
    })
    expect(v1.body).toMatchObject({
      error: {
        code: -32003,
        message: expect.stringContaining('params.configuration.taskPushNotificationConfig'),
      },
    })
    const legacy = await sendLegacy(base, 'push-v03', [{ kind: 'text', text: 'later' }], {
      pushNotificationConfig: push,
      blocking: false,
    })
    expect(legacy.body).toMatchObject({ error: { code: -32003 } })
    const streamed = await fetch(`${base}/a2a/analyst`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendStreamingMessage',
        params: {
          message: { messageId: 'push-stream', role: 'ROLE_USER', parts: [{ text: 'later' }] },
          configuration: { taskPushNotificationConfig: push },
        },
      }),
    })
    expect(await streamed.text()).toContain('-32003')
    expect(services.calls).toHaveLength(0)
    // Without it, the same message runs.
    const plain = await callAnalyst(base, 'SendMessage', {
      message: { messageId: 'push-none', role: 'ROLE_USER', parts: [{ text: 'now' }] },
    })
    expect(plain.body).toMatchObject({
      result: { task: { status: { state: 'TASK_STATE_COMPLETED' } } },
    })
    expect(services.calls).toHaveLength(1)
  })

  it('requires the bearer token its card declares when the server has an API token', async () => {
    const apiToken = 'a-very-secret-token-1234'
    const { base } = await serve({ apiToken })
    const cardUrl = `${base}/a2a/analyst/.well-known/agent-card.json`
    const card = await (await fetch(cardUrl)).json()
    expect(card.securitySchemes).toEqual({
      bearer: { httpAuthSecurityScheme: expect.objectContaining({ scheme: 'Bearer' }) },
    })
    const refused = await fetch(`${base}/a2a/analyst`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
    })
    expect(refused.status).toBe(401)
    const withToken: typeof fetch = (input, init) =>
      fetch(input, {
        ...init,
        headers: { ...(init?.headers as object), authorization: `Bearer ${apiToken}` },
      })
    const client = await sdkClient(cardUrl, withToken)
    const task = (await client.sendMessage(message('authorised'))) as Task
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
  })
})

describe('askRemoteAgent', () => {
  it('carries the conversation and its next hop to a Baton server on the other side', async () => {
    const { base, services } = await serve()
    const peer = hostedAgent({ endpoint: `${base}/a2a/analyst/.well-known/agent-card.json` })
    const reply = await askRemoteAgent({
      agent: peer,
      content: 'Check the refunds',
      correlationId: 'corr-from-elsewhere',
      hop: 2,
      from: 'orchestrator',
      // The peer listens on 127.0.0.1, which the default fetch refuses.
      fetch: createEndpointFetch({ allowPrivate: true }),
    })
    expect(reply.text).toBe('Incident Analyst says: Check the refunds')
    expect(services.calls.at(-1)).toMatchObject({
      correlationId: 'corr-from-elsewhere',
      hop: 3,
      from: 'orchestrator',
    })
  })

  it('refuses an agent without an endpoint with a ValidationError naming it', async () => {
    await expect(
      askRemoteAgent({ agent: hostedAgent(), content: 'x', correlationId: 'c', hop: 0, from: 'a' }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/endpoint/),
    })
  })
})
