import { connect, createServer } from 'node:net'
import { describe, expect, it } from 'vitest'
import { socketFailureOf } from './socket-failure'

/** A port on 127.0.0.1 that nobody listens on any more. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** What connecting to it throws, as Node gives it. */
function refused(port: number): Promise<Error> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port })
    socket.on('error', resolve)
  })
}

describe('socketFailureOf', () => {
  it('says what a socket error is without where, on the error, along its causes and in an AggregateError', async () => {
    const port = await closedPort()
    const error = await refused(port)
    expect(error.message).toContain(`127.0.0.1:${port}`)
    expect(socketFailureOf(error)).toBe('the connection was refused')
    expect(socketFailureOf(new TypeError('fetch failed', { cause: error }))).toBe(
      'the connection was refused',
    )
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })
    expect(socketFailureOf(new Error('outer', { cause: new AggregateError([reset]) }))).toBe(
      'the connection was reset',
    )
    // A fetch to a server that is not there, as the AI SDK's providers make it.
    const fetched = await fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e)
    expect(socketFailureOf(fetched)).toBe('the connection was refused')
  })

  it('says nothing of an error that is not a socket’s, nor of a code that only looks like one', () => {
    expect(socketFailureOf(new Error('ECONNREFUSED in a message only'))).toBeUndefined()
    expect(socketFailureOf({ code: 'toString' })).toBeUndefined()
    expect(socketFailureOf('ECONNREFUSED')).toBeUndefined()
    const loop: { cause?: unknown } = {}
    loop.cause = loop
    expect(socketFailureOf(loop)).toBeUndefined()
  })
})
