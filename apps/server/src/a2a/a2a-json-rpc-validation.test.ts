import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createTestServices, type TestServices } from './__fixtures__/a2a-test-services'
import { createA2APlugin } from './a2a-plugin'

let services: TestServices
let app: FastifyInstance
let url = ''
beforeAll(async () => {
  services = await createTestServices()
  app = Fastify()
  await app.register(createA2APlugin(services))
  url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/a2a/analyst`
})
afterAll(async () => {
  await app.close()
  await services.close()
})
afterEach(() => {
  services.calls.length = 0
})

type Answer = {
  status: number
  body: { id?: unknown; result?: Record<string, unknown>; error?: Record<string, unknown> }
}

const post = async (body: unknown, version: '1.0' | '0.3' = '1.0'): Promise<Answer> => {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(version === '1.0' ? { 'a2a-version': '1.0' } : {}),
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as Answer['body'] }
}

const send = (message: Record<string, unknown>, id: unknown = 9) =>
  post({ jsonrpc: '2.0', id, method: 'SendMessage', params: { message } })

const listTasks = (params: Record<string, unknown> = {}) =>
  post({ jsonrpc: '2.0', id: 'list', method: 'ListTasks', params })

/** The refusal the binding asks for: -32602 with the request's id, naming the field. */
const invalidParams = (id: unknown, field: string) => ({
  status: 200,
  body: {
    id,
    error: { code: -32602, message: expect.stringContaining(field), data: { field } },
  },
})

describe('invalid JSON-RPC envelopes', () => {
  it('answer -32600 with the request’s id whenever it can be read', async () => {
    expect(await post({ jsonrpc: '1.0', id: 5, method: 'SendMessage' })).toMatchObject({
      body: { id: 5, error: { code: -32600 } },
    })
    expect(await post({ jsonrpc: '2.0', id: 'no-method' })).toMatchObject({
      body: { id: 'no-method', error: { code: -32600 } },
    })
    expect(await post({ jsonrpc: '2.0', id: null, method: 7 })).toMatchObject({
      body: { id: null, error: { code: -32600 } },
    })
    // An id that is not a string, a number or null cannot be read back.
    expect(await post({ jsonrpc: '2.0', id: { nested: 1 }, method: 'GetTask' })).toMatchObject({
      body: { id: null, error: { code: -32600 } },
    })
  })
})

describe('messages', () => {
  const parts = [{ text: 'hello' }]
  const cases: [string, Record<string, unknown>, string][] = [
    ['no role', { messageId: 'm', parts }, 'params.message.role'],
    [
      'ROLE_UNSPECIFIED',
      { messageId: 'm', role: 'ROLE_UNSPECIFIED', parts },
      'params.message.role',
    ],
    ['an unknown role', { messageId: 'm', role: 'ROLE_BOSS', parts }, 'params.message.role'],
    ['no parts', { messageId: 'm', role: 'ROLE_USER' }, 'params.message.parts'],
    ['"parts": []', { messageId: 'm', role: 'ROLE_USER', parts: [] }, 'params.message.parts'],
    [
      'a part with no content',
      { messageId: 'm', role: 'ROLE_USER', parts: [{}] },
      'params.message.parts[0]',
    ],
    [
      'a text part that is no string',
      { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'a' }, { text: 7 }] },
      'params.message.parts[1].text',
    ],
    [
      'metadata that is no object',
      { messageId: 'm', role: 'ROLE_USER', parts, metadata: [1] },
      'params.message.metadata',
    ],
  ]
  it.each(cases)(
    'with %s are refused with -32602 naming the field, before anything runs or is stored',
    async (_name, message, field) => {
      expect(await send(message)).toMatchObject(invalidParams(9, field))
      expect(services.calls).toEqual([])
      expect((await listTasks()).body.result?.tasks).toEqual([])
    },
  )

  it('in the v0.3 dialect are held to its roles and part kinds', async () => {
    const legacy = (message: Record<string, unknown>) =>
      post(
        {
          jsonrpc: '2.0',
          id: 3,
          method: 'message/send',
          params: { message: { kind: 'message', messageId: 'm', ...message } },
        },
        '0.3',
      )
    expect(await legacy({ role: 'boss', parts: [{ kind: 'text', text: 'x' }] })).toMatchObject(
      invalidParams(3, 'params.message.role'),
    )
    expect(await legacy({ role: 'user', parts: [] })).toMatchObject(
      invalidParams(3, 'params.message.parts'),
    )
    expect(await legacy({ role: 'user', parts: [{ kind: 'text' }] })).toMatchObject(
      invalidParams(3, 'params.message.parts[0].text'),
    )
    expect(services.calls).toEqual([])
    const fine = await legacy({ role: 'user', parts: [{ kind: 'text', text: 'x' }] })
    expect(fine.body.result).toMatchObject({ status: { state: 'completed' } })
  })

  it('with metadata nested thousands deep are refused with -32602 naming it, not -32603', async () => {
    // Written as text: JSON.stringify itself runs out of stack on such an object.
    const metadata = `${'{"deeper":'.repeat(5000)}{}${'}'.repeat(5000)}`
    const answer = await post(
      `{"jsonrpc":"2.0","id":9,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}],"metadata":${metadata}}}}`,
    )
    expect(answer).toMatchObject(invalidParams(9, 'params.message.metadata'))
    expect(services.calls).toEqual([])
  })

  it('that are valid run the agent (ROLE_USER with a text part)', async () => {
    const answer = await send({ messageId: 'ok', role: 'ROLE_USER', parts: [{ text: 'fine' }] })
    expect(answer.body.result).toMatchObject({
      task: { status: { state: 'TASK_STATE_COMPLETED' } },
    })
    expect(services.calls).toHaveLength(1)
  })
})

describe('task queries', () => {
  it('refuse a statusTimestampAfter that is not an RFC 3339 timestamp', async () => {
    for (const statusTimestampAfter of ['-1', '2026-01-01', 'yesterday', '2026-13-01T00:00:00Z']) {
      expect(await listTasks({ statusTimestampAfter }), statusTimestampAfter).toMatchObject(
        invalidParams('list', 'params.statusTimestampAfter'),
      )
    }
    const fine = await listTasks({ statusTimestampAfter: '2026-01-01T00:00:00.5+02:00' })
    expect(fine.body.result).toBeDefined()
  })

  it('refuse a negative historyLength, in ListTasks and GetTask', async () => {
    expect(await listTasks({ historyLength: -1 })).toMatchObject(
      invalidParams('list', 'params.historyLength'),
    )
    expect(
      await post({
        jsonrpc: '2.0',
        id: 4,
        method: 'GetTask',
        params: { id: 'x', historyLength: -1 },
      }),
    ).toMatchObject(invalidParams(4, 'params.historyLength'))
    expect(
      await send({ messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] }).then(() =>
        post({
          jsonrpc: '2.0',
          id: 6,
          method: 'SendMessage',
          params: {
            message: { messageId: 'h', role: 'ROLE_USER', parts: [{ text: 'x' }] },
            configuration: { historyLength: -2 },
          },
        }),
      ),
    ).toMatchObject(invalidParams(6, 'params.configuration.historyLength'))
  })

  it('ListTasks answers pageSize as the number of tasks it returns', async () => {
    const fresh = await createTestServices()
    const other = Fastify()
    try {
      await other.register(createA2APlugin(fresh))
      const endpoint = `${await other.listen({ port: 0, host: '127.0.0.1' })}/a2a/analyst`
      const list = async (params: Record<string, unknown>) => {
        const response = await fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params }),
        })
        return ((await response.json()) as { result: { pageSize: number; tasks: unknown[] } })
          .result
      }
      expect(await list({})).toMatchObject({ tasks: [], pageSize: 0 })
      for (const text of ['one', 'two', 'three']) {
        await fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: text,
            method: 'SendMessage',
            params: { message: { messageId: text, role: 'ROLE_USER', parts: [{ text }] } },
          }),
        })
      }
      expect(await list({})).toMatchObject({ pageSize: 3 })
      const page = await list({ pageSize: 2 })
      expect(page.tasks).toHaveLength(2)
      expect(page.pageSize).toBe(2)
    } finally {
      await other.close()
      await fresh.close()
    }
  })
})
