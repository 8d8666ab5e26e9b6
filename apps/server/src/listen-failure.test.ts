import { createServer, type Server } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { runServerToExit } from './__fixtures__/server-process'
import { listenFailureOf } from './listen-failure'

const holders: Server[] = []
afterAll(async () => {
  for (const holder of holders) await new Promise((done) => holder.close(done))
})

/** A port this test holds open on 127.0.0.1, so nothing else can listen there. */
async function heldPort(): Promise<number> {
  const holder = createServer()
  holders.push(holder)
  await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done))
  return (holder.address() as { port: number }).port
}

/** The error Node.js gives a `listen` on `port` and `host`. */
function listenError(port: number, host: string): Promise<unknown> {
  const server = createServer()
  return new Promise((resolve) => {
    server.once('error', resolve)
    server.listen(port, host, () => server.close(() => resolve(undefined)))
  })
}

/** The one line a failed start printed for its operator. */
const startLine = (output: string) =>
  output.split('\n').filter((line) => line.startsWith('Baton server could not start'))

describe('a server that cannot listen', () => {
  it('says the port is in use, which one, and what to start with instead; exits 1', async () => {
    const port = await heldPort()
    const { code, output } = await runServerToExit({
      PORT: String(port),
      BATON_DATA_DIR: 'memory://',
      BATON_SEED: 'false',
    })
    expect(code).toBe(1)
    expect(startLine(output), output).toEqual([
      `Baton server could not start: port ${port} on 127.0.0.1 is in use (another Baton server, or another program): stop it, or start with another PORT (PORT=${port + 1})`,
    ])
  }, 120_000)

  it('says a HOST that is not this machine’s is not, and what to start with', async () => {
    // TEST-NET-1: an address no machine here has.
    const { code, output } = await runServerToExit({
      HOST: '192.0.2.1',
      PORT: '0',
      BATON_DATA_DIR: 'memory://',
      BATON_SEED: 'false',
    })
    expect(code).toBe(1)
    expect(startLine(output)[0], output).toMatch(
      /^Baton server could not start: HOST 192\.0\.2\.1 is not an address of this machine: start with HOST=127\.0\.0\.1/,
    )
  }, 120_000)
})

describe('listenFailureOf', () => {
  it('reads Node.js’s own listen errors, and leaves every other error to its message', async () => {
    const port = await heldPort()
    expect(listenFailureOf(await listenError(port, '127.0.0.1'))).toMatch(
      new RegExp(`^port ${port} on 127\\.0\\.0\\.1 is in use`),
    )
    expect(listenFailureOf(await listenError(0, '192.0.2.1'))).toMatch(/^HOST 192\.0\.2\.1 is not/)
    const denied = Object.assign(new Error('listen EACCES: permission denied 0.0.0.0:80'), {
      code: 'EACCES',
      syscall: 'listen',
      address: '0.0.0.0',
      port: 80,
    })
    expect(listenFailureOf(denied)).toMatch(/^port 80 on 0\.0\.0\.0 needs privileges/)
    // A refused connect is not a listen: it keeps its own words.
    const refused = Object.assign(new Error('connect ECONNREFUSED'), {
      code: 'ECONNREFUSED',
      syscall: 'connect',
    })
    expect(listenFailureOf(refused)).toBeUndefined()
    expect(listenFailureOf(new Error('no code'))).toBeUndefined()
    expect(listenFailureOf(undefined)).toBeUndefined()
  })
})
