import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { BatonError } from '@baton/core'
import { type EchoAgent, startEchoAgent } from '@baton/testing/a2a'
import { freePort } from '@baton/testing/ports'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { type A2AAnswer, type A2AServer, startA2AServer } from '../__fixtures__/a2a-server'
import { sendA2AMessage } from './send-a2a-message'

let server: A2AServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function serve(answer: Parameters<typeof startA2AServer>[0]) {
  server = await startA2AServer(answer)
  return server
}

const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  )

/** A plain HTTP server on 127.0.0.1 (not an A2A agent). */
async function listen(handler: Parameters<typeof createServer>[1]) {
  const listening: Server = createServer(handler)
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve))
  return { server: listening, port: (listening.address() as AddressInfo).port }
}

describe('sendA2AMessage', () => {
  it('sends message/send with a user text part and reads a Message reply', async () => {
    const { url, requests } = await serve(() => ({
      result: {
        kind: 'message',
        role: 'agent',
        messageId: 'reply-1',
        parts: [
          { kind: 'text', text: 'hello back' },
          { kind: 'data', data: { ok: true } },
        ],
      },
    }))
    const reply = await sendA2AMessage({ endpoint: url, text: 'hello' })
    expect(reply.text).toBe('hello back\n{"ok":true}')
    expect(requests[0]).toMatchObject({
      method: 'message/send',
      params: {
        message: {
          role: 'user',
          kind: 'message',
          parts: [{ kind: 'text', text: 'hello' }],
          messageId: expect.any(String),
        },
      },
    })
  })

  it('reads a completed Task from its artifacts, polling tasks/get while it works', async () => {
    let polls = 0
    const { url, requests } = await serve((request): A2AAnswer => {
      if (request.method === 'message/send') {
        return { result: { kind: 'task', id: 't1', status: { state: 'working' } } }
      }
      polls += 1
      return polls < 2
        ? { result: { kind: 'task', id: 't1', status: { state: 'working' } } }
        : {
            result: {
              kind: 'task',
              id: 't1',
              status: { state: 'completed' },
              artifacts: [{ parts: [{ kind: 'text', text: 'report ready' }] }],
            },
          }
    })
    const reply = await sendA2AMessage({ endpoint: url, text: 'report', pollMs: 10 })
    expect(reply).toEqual({ text: 'report ready', taskId: 't1', state: 'completed' })
    expect(requests.map((request) => request.method)).toEqual([
      'message/send',
      'tasks/get',
      'tasks/get',
    ])
  })

  it('turns a JSON-RPC error into A2A_RPC_ERROR', async () => {
    const { url } = await serve(() => ({ error: { code: -32601, message: 'Method not found' } }))
    const error = await caught(sendA2AMessage({ endpoint: url, text: 'x' }))
    expect(error).toMatchObject({ code: 'A2A_RPC_ERROR', rpcCode: -32601 })
    expect((error as Error).message).toMatch(/Method not found/)
  })

  it('turns a non-200 answer into A2A_HTTP_ERROR', async () => {
    const { url } = await serve(() => ({ status: 503, body: 'busy' }))
    expect(await caught(sendA2AMessage({ endpoint: url, text: 'x' }))).toMatchObject({
      code: 'A2A_HTTP_ERROR',
      status: 503,
    })
  })

  it('turns a body that is not JSON-RPC into A2A_BAD_RESPONSE', async () => {
    const { url } = await serve(() => ({ status: 200, body: '<html>' }))
    expect(await caught(sendA2AMessage({ endpoint: url, text: 'x' }))).toMatchObject({
      code: 'A2A_BAD_RESPONSE',
    })
    await server?.close()
    server = await startA2AServer(() => ({
      result: {
        kind: 'task',
        id: 't',
        status: {
          state: 'failed',
          message: {
            kind: 'message',
            role: 'agent',
            messageId: 'status-1',
            parts: [{ kind: 'text', text: 'no data' }],
          },
        },
      },
    }))
    const failed = await caught(sendA2AMessage({ endpoint: server.url, text: 'x' }))
    expect((failed as Error).message).toMatch(/ended task t as "failed": no data/)
  })

  it('never quotes what the endpoint answered in its error', async () => {
    const internal = await listen((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end('ami-id: SECRET-METADATA-VALUE')
    })
    try {
      for (const path of ['/a2a', '/.well-known/agent-card.json']) {
        const failure = await caught(
          sendA2AMessage({ endpoint: `http://127.0.0.1:${internal.port}${path}`, text: 'x' }),
        )
        expect(failure).toMatchObject({ code: 'A2A_BAD_RESPONSE' })
        const said = JSON.stringify({ ...(failure as object), message: (failure as Error).message })
        expect(said).not.toMatch(/SECRET-METADATA/)
      }
    } finally {
      internal.server.close()
    }
  })

  it('follows no redirect: the target is never contacted, the 3xx is an A2A_HTTP_ERROR', async () => {
    let contacted = 0
    const target = await listen((_request, response) => {
      contacted++
      response.end('{}')
    })
    const redirector = await listen((request, response) => {
      response.writeHead(307, { location: `http://127.0.0.1:${target.port}${request.url}` })
      response.end()
    })
    try {
      for (const path of ['/a2a', '/.well-known/agent-card.json']) {
        const failure = await caught(
          sendA2AMessage({ endpoint: `http://127.0.0.1:${redirector.port}${path}`, text: 'x' }),
        )
        expect(failure).toMatchObject({ code: 'A2A_HTTP_ERROR', status: 307 })
      }
      expect(contacted).toBe(0)
    } finally {
      redirector.server.close()
      target.server.close()
    }
  })

  it('gives up with A2A_TIMEOUT when the agent does not answer in time', async () => {
    const { url } = await serve(() => ({ hang: true }))
    const error = await caught(sendA2AMessage({ endpoint: url, text: 'x', timeoutMs: 200 }))
    expect(error).toMatchObject({ code: 'A2A_TIMEOUT' })
  })

  it('rejects with the signal reason when the caller aborts', async () => {
    const { url } = await serve(() => ({ hang: true }))
    const controller = new AbortController()
    const pending = caught(sendA2AMessage({ endpoint: url, text: 'x', signal: controller.signal }))
    setTimeout(() => controller.abort(new Error('stop now')), 50)
    expect(await pending).toMatchObject({ message: 'stop now' })
  })
})

describe('sendA2AMessage with an agent made of the SDK server pieces', () => {
  let agent: EchoAgent | undefined
  afterEach(async () => {
    await agent?.close()
    agent = undefined
  })

  it('streams the task to its answer when the card allows streaming', async () => {
    agent = await startEchoAgent({ streaming: true })
    const reply = await sendA2AMessage({ endpoint: agent.cardUrl, text: 'hi' })
    expect(reply).toMatchObject({
      text: 'echo: hi',
      state: 'completed',
      taskId: expect.any(String),
    })
    expect(agent.methods[0]).toBe('SendStreamingMessage')
  })

  // Before, a stream cut off after the task began failed the step; the task went on.
  it('reads the task by polling when its stream is cut off after the task began', async () => {
    agent = await startEchoAgent({ streaming: true, workMs: 300, cutStreamsAfter: 1 })
    const reply = await sendA2AMessage({ endpoint: agent.cardUrl, text: 'hi', pollMs: 10 })
    expect(reply).toMatchObject({ text: 'echo: hi', state: 'completed' })
    expect(agent.methods[0]).toBe('SendStreamingMessage')
    expect(agent.methods.slice(1).length).toBeGreaterThan(0)
    expect(agent.methods.slice(1).every((method) => method === 'GetTask')).toBe(true)
    expect(agent.received).toEqual(['hi'])
  })

  it('sends and polls when the card does not stream', async () => {
    agent = await startEchoAgent({ streaming: false, workMs: 50 })
    const reply = await sendA2AMessage({ endpoint: agent.cardUrl, text: 'hi', pollMs: 10 })
    expect(reply).toMatchObject({ text: 'echo: hi', state: 'completed' })
    expect(agent.methods[0]).toBe('SendMessage')
    expect(agent.methods.slice(1).every((method) => method === 'GetTask')).toBe(true)
  })

  it.each([true, false])(
    'cancels the remote task when the caller aborts (streaming: %s)',
    async (streaming) => {
      agent = await startEchoAgent({ streaming, workMs: 60_000 })
      const controller = new AbortController()
      const pending = caught(
        sendA2AMessage({
          endpoint: agent.cardUrl,
          text: 'x',
          signal: controller.signal,
          pollMs: 10,
        }),
      )
      await vi.waitFor(() => expect(agent?.methods.length).toBeGreaterThan(0), { timeout: 10_000 })
      await new Promise((resolve) => setTimeout(resolve, 50))
      controller.abort(new Error('step cancelled'))
      expect(await pending).toMatchObject({ message: 'step cancelled' })
      expect(agent.methods).toContain('CancelTask')
      expect(agent.cancelled).toHaveLength(1)
    },
  )
})

describe('sendA2AMessage polling', () => {
  it('polls a long-working task without piling up abort listeners', async () => {
    const warnings: Error[] = []
    const onWarning = (warning: Error) => warnings.push(warning)
    process.on('warning', onWarning)
    let polls = 0
    const { url } = await serve((request): A2AAnswer => {
      if (request.method === 'tasks/get') polls += 1
      const done = polls >= 15
      return {
        result: {
          kind: 'task',
          id: 't1',
          contextId: 'c1',
          status: { state: done ? 'completed' : 'working' },
          ...(done
            ? { artifacts: [{ artifactId: 'a', parts: [{ kind: 'text', text: 'ok' }] }] }
            : {}),
        },
      }
    })
    const controller = new AbortController()
    const reply = await sendA2AMessage({
      endpoint: url,
      text: 'x',
      pollMs: 1,
      signal: controller.signal,
    })
    process.off('warning', onWarning)
    expect(reply.text).toBe('ok')
    expect(polls).toBe(15)
    expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([])
  })
})

describe('sendA2AMessage while the agent is away for a moment', () => {
  const working = { result: { kind: 'task', id: 't1', status: { state: 'working' } } }
  const completed = {
    result: {
      kind: 'task',
      id: 't1',
      status: { state: 'completed' },
      artifacts: [{ parts: [{ kind: 'text', text: 'report ready' }] }],
    },
  }

  // Before, the first poll that found the agent restarting failed the step, while its task
  // went on to its end with nobody to read the answer.
  it('asks for the task again when a poll gets no answer or 502/503/504, and reads its answer', async () => {
    const faults: A2AAnswer[] = [
      { drop: true },
      { status: 503, body: 'restarting' },
      { status: 502, body: 'bad gateway' },
      { status: 504, body: 'gateway timeout' },
    ]
    let polls = 0
    const { url, requests } = await serve((request): A2AAnswer => {
      if (request.method === 'message/send') return working
      polls += 1
      return faults[polls - 1] ?? completed
    })
    const reply = await sendA2AMessage({ endpoint: url, text: 'report', pollMs: 10 })
    expect(reply).toEqual({ text: 'report ready', taskId: 't1', state: 'completed' })
    expect(requests.map((request) => request.method)).toEqual([
      'message/send',
      ...Array(5).fill('tasks/get'),
    ])
  })

  it('still fails at once when a poll is refused (404, a JSON-RPC error), and within its timeout when the agent stays away', async () => {
    const refused = await serve(
      (request): A2AAnswer =>
        request.method === 'message/send' ? working : { status: 404, body: 'gone' },
    )
    expect(
      await caught(sendA2AMessage({ endpoint: refused.url, text: 'x', pollMs: 10 })),
    ).toMatchObject({ code: 'A2A_HTTP_ERROR', status: 404 })
    expect(refused.requests).toHaveLength(2)
    await server?.close()

    const unknown = await serve(
      (request): A2AAnswer =>
        request.method === 'message/send'
          ? working
          : { error: { code: -32001, message: 'Task not found' } },
    )
    expect(
      await caught(sendA2AMessage({ endpoint: unknown.url, text: 'x', pollMs: 10 })),
    ).toMatchObject({ code: 'A2A_RPC_ERROR', rpcCode: -32001 })
    expect(unknown.requests).toHaveLength(2)
    await server?.close()

    await serve(
      (request): A2AAnswer =>
        request.method === 'message/send' ? working : { status: 503, body: 'down' },
    )
    const started = Date.now()
    expect(
      await caught(
        sendA2AMessage({ endpoint: server!.url, text: 'x', pollMs: 10, timeoutMs: 1_500 }),
      ),
    ).toMatchObject({ code: 'A2A_TIMEOUT' })
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(server!.requests.length).toBeGreaterThan(2)
  })

  // Before, a delegate to an agent restarting failed at once, "gave no answer".
  it.each([
    ['its card', (port: number) => `http://127.0.0.1:${port}/.well-known/agent-card.json`],
    [
      'its JSON-RPC URL (no card: the first request is the message)',
      (port: number) => `http://127.0.0.1:${port}/rpc`,
    ],
  ])(
    'waits for an agent that is not up yet, asked at %s, and sends the message once',
    async (_at, endpointAt) => {
      const port = await freePort()
      // Nothing listens there for the first 600 ms: every connection is refused.
      const started = new Promise<EchoAgent>((resolve, reject) => {
        setTimeout(
          () => startEchoAgent({ streaming: false, workMs: 20, port }).then(resolve, reject),
          600,
        )
      })
      try {
        const reply = await sendA2AMessage({
          endpoint: endpointAt(port),
          text: 'are you back?',
          pollMs: 10,
          timeoutMs: 10_000,
        })
        expect(reply.text).toBe('echo: are you back?')
        expect((await started).received).toEqual(['are you back?'])
      } finally {
        await (await started).close()
      }
    },
  )

  it('opens the stream again while its connection is refused, and sends the message once', async () => {
    // The card is served (by another host), and the agent it names is not up yet.
    const port = await freePort()
    const first = await startEchoAgent({ streaming: true, workMs: 20, port })
    const card = await (await fetch(first.cardUrl)).text()
    await first.close()
    const cardHost = await listen((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(card)
    })
    const started = new Promise<EchoAgent>((resolve, reject) => {
      setTimeout(
        () => startEchoAgent({ streaming: true, workMs: 20, port }).then(resolve, reject),
        600,
      )
    })
    try {
      const pieces: string[] = []
      const reply = await sendA2AMessage({
        endpoint: `http://127.0.0.1:${cardHost.port}/.well-known/agent-card.json`,
        text: 'streaming back',
        timeoutMs: 10_000,
        onText: (text) => pieces.push(text),
      })
      expect(reply.text).toBe('echo: streaming back')
      expect(pieces.join('')).toBe('echo: streaming back')
      expect((await started).received).toEqual(['streaming back'])
    } finally {
      await (await started).close()
      cardHost.server.closeAllConnections()
      await new Promise((resolve) => cardHost.server.close(resolve))
    }
  })

  it("asks nothing again that Baton itself refused (the server's endpoint guard), and fails at once", async () => {
    let calls = 0
    const guarded: typeof fetch = async () => {
      calls += 1
      throw new TypeError('fetch failed', {
        cause: new BatonError('ENDPOINT_REFUSED', 'The endpoint host is an internal address.'),
      })
    }
    for (const endpoint of [
      'http://127.0.0.1:9/.well-known/agent-card.json',
      'http://127.0.0.1:9/rpc',
    ]) {
      calls = 0
      const began = Date.now()
      expect(
        await caught(sendA2AMessage({ endpoint, text: 'x', fetch: guarded, timeoutMs: 5_000 })),
      ).toMatchObject({ code: 'ENDPOINT_REFUSED' })
      expect(calls).toBe(1)
      expect(Date.now() - began).toBeLessThan(1_000)
    }
  })

  it('fails an endpoint nobody answers on after startWaitMs, not after its whole timeout', async () => {
    const port = await freePort()
    let calls = 0
    const counted: typeof fetch = (input, init) => {
      calls += 1
      return fetch(input, init)
    }
    const began = Date.now()
    const error = await caught(
      sendA2AMessage({
        endpoint: `http://127.0.0.1:${port}/rpc`,
        text: 'x',
        fetch: counted,
        timeoutMs: 60_000,
        startWaitMs: 500,
      }),
    )
    expect(error).toMatchObject({
      code: 'A2A_BAD_RESPONSE',
      message: expect.stringContaining('gave no answer'),
    })
    expect(calls).toBeGreaterThan(1)
    expect(Date.now() - began).toBeLessThan(3_000)
  })

  it('gives up on an agent that never comes up when the step times out', async () => {
    const port = await freePort()
    const began = Date.now()
    expect(
      await caught(
        sendA2AMessage({ endpoint: `http://127.0.0.1:${port}/rpc`, text: 'x', timeoutMs: 800 }),
      ),
    ).toMatchObject({ code: 'A2A_TIMEOUT' })
    expect(Date.now() - began).toBeLessThan(3_000)
  })

  it('does not send the message again: only reads are repeated', async () => {
    const { url, requests } = await serve(() => ({ status: 503, body: 'restarting' }))
    expect(await caught(sendA2AMessage({ endpoint: url, text: 'x' }))).toMatchObject({
      code: 'A2A_HTTP_ERROR',
      status: 503,
    })
    expect(requests.map((request) => request.method)).toEqual(['message/send'])
    await server?.close()

    // A message whose connection closed unanswered: sent once, and said as such.
    const dropped = await serve(() => ({ drop: true }))
    const error = await caught(sendA2AMessage({ endpoint: dropped.url, text: 'x' }))
    expect(error).toMatchObject({
      code: 'A2A_BAD_RESPONSE',
      message: expect.stringContaining('gave no answer (the connection failed or closed)'),
    })
    expect(dropped.requests).toHaveLength(1)
  })
})
