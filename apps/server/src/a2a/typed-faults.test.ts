import type { StreamResponse } from '@a2a-js/sdk'
import { TaskNotFoundError } from '@a2a-js/sdk/errors'
import {
  type A2ARequestHandler,
  defaultServerCallContextBuilder,
  JsonRpcTransportHandler,
} from '@a2a-js/sdk/server'
import type { FastifyBaseLogger } from 'fastify'
import { describe, expect, it } from 'vitest'
import { StorageUnavailableError } from '../db/database-errors'
import { withTypedFaults } from './typed-faults'

/** A request handler whose every method fails as its name says, and a log that keeps what it is told. */
function failingHandler() {
  const logged: { err: unknown; message: string }[] = []
  const log = {
    error: (fields: { err: unknown }, message: string) => logged.push({ ...fields, message }),
  } as unknown as FastifyBaseLogger
  let streamStopped = false
  const handler = {
    // Its own field, read by its methods through `this` (as the SDK's handler's are).
    secret: 'postgres://10.0.3.7:5432/baton',
    async getTask() {
      throw new TaskNotFoundError({ message: 'No task "t1".' })
    },
    async sendMessage(this: { secret: string }) {
      throw new Error(`connect ECONNREFUSED ${this.secret}`)
    },
    async *sendMessageStream(): AsyncGenerator<StreamResponse> {
      try {
        yield { payload: { $case: 'task', value: { id: 't2' } } } as unknown as StreamResponse
        throw new StorageUnavailableError({ location: '/data', reason: 'the disk is full' })
      } finally {
        streamStopped = true
      }
    },
  } as unknown as A2ARequestHandler
  return { handler, log, logged, stopped: () => streamStopped }
}

const context = () =>
  defaultServerCallContextBuilder({ extensions: undefined, user: undefined, headers: {} })
const send = (method: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method,
  params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
})

describe('withTypedFaults', () => {
  it("answers an untyped error as INTERNAL naming the request's id, never its text, which is logged", async () => {
    const { handler, log, logged } = failingHandler()
    const typed = withTypedFaults(handler, { legacy: false, log, requestId: 'req-9' })
    const answer = await new JsonRpcTransportHandler(typed).handle(send('SendMessage'), context())
    expect(answer).toMatchObject({
      error: {
        code: -32603,
        message: "Internal error: the server's log has it under request id req-9.",
        data: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'INTERNAL',
            domain: 'baton',
            metadata: { status: '500', requestId: 'req-9' },
          },
        ],
      },
    })
    expect(JSON.stringify(answer)).not.toContain('10.0.3.7')
    expect(logged).toHaveLength(1)
    expect(String((logged[0]!.err as Error).message)).toContain('10.0.3.7')
  })

  it("passes the protocol's own errors as they are", async () => {
    const { handler, log, logged } = failingHandler()
    const typed = withTypedFaults(handler, { legacy: false, log, requestId: 'req-9' })
    const answer = await new JsonRpcTransportHandler(typed).handle(
      { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 't1' } },
      context(),
    )
    expect(answer).toMatchObject({
      error: { code: -32001, message: 'No task "t1".', data: [{ reason: 'TASK_NOT_FOUND' }] },
    })
    expect(logged).toHaveLength(0)
  })

  it("types a stream's fault after its first events, and stops the handler's stream when its reader stops", async () => {
    const { handler, log, stopped } = failingHandler()
    const typed = withTypedFaults(handler, { legacy: false, log, requestId: 'req-9' })
    const events = typed
      .sendMessageStream(send('SendStreamingMessage').params as never, context())
      [Symbol.asyncIterator]()
    expect((await events.next()).done).toBe(false)
    await expect(events.next()).rejects.toMatchObject({
      reason: 'STORAGE_UNAVAILABLE',
      message: 'The database cannot store: the disk is full.',
      metadata: { status: '507', reason: 'the disk is full' },
    })
    expect(stopped()).toBe(true)

    const again = failingHandler()
    const read = withTypedFaults(again.handler, { legacy: false, log, requestId: 'req-9' })
      .sendMessageStream(send('SendStreamingMessage').params as never, context())
      [Symbol.asyncIterator]()
    await read.next()
    await read.return?.(undefined)
    expect(again.stopped()).toBe(true)
  })
})
