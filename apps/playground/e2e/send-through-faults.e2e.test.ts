import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Envelope } from '@baton/comm'
import { createServerCommunicationStore, createServerSwarmRunner } from '@baton/surface'
import { freePort } from '@baton/testing/ports'
import { type ServerProcess, startServerProcess } from '@baton/testing/server-process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

// What the playground's chat does when it sends a task (`@baton/surface`'s server stores),
// against the real server, through the faults a person meets: the server's answer lost on the
// way, and the server killed and started again while the message is being sent.

const serverEntry = fileURLToPath(new URL('../../server/src/main.ts', import.meta.url))

/**
 * An HTTP proxy to `target` that, while `dropAnswers` is above 0, forwards a `POST` to
 * `dropPath`, reads the server's whole answer (so the server has done everything) and then
 * closes the client's connection without it.
 */
async function lossyProxy(target: () => string) {
  const state = { dropPath: '/api/v1/messages', dropAnswers: 0, dropped: 0, replayed: 0 }
  const proxy: Server = createServer((incoming, outgoing) => {
    const upstream = httpRequest(
      `${target()}${incoming.url}`,
      { method: incoming.method, headers: incoming.headers },
      (answer) => {
        const chunks: Buffer[] = []
        answer.on('data', (chunk: Buffer) => chunks.push(chunk))
        answer.on('end', () => {
          if (answer.headers['idempotent-replayed'] === 'true') state.replayed += 1
          if (incoming.url === state.dropPath && state.dropAnswers > 0) {
            state.dropAnswers -= 1
            state.dropped += 1
            incoming.socket.destroy()
            return
          }
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
          outgoing.end(Buffer.concat(chunks))
        })
      },
    )
    upstream.on('error', () => incoming.socket.destroy())
    incoming.pipe(upstream)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const { port } = proxy.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections()
        proxy.close(() => resolve())
      }),
  }
}

describe('a message or swarm run sent from the playground', () => {
  let dataDir: string
  let port: number
  let server: ServerProcess | undefined
  let proxy: Awaited<ReturnType<typeof lossyProxy>>
  const baseUrl = () => `http://127.0.0.1:${port}`
  const start = async () => {
    server = await startServerProcess({
      entry: serverEntry,
      environment: {
        PORT: String(port),
        BATON_DATA_DIR: dataDir,
        BATON_API_TOKEN: '',
        BATON_CHECK_RESPONSES: 'true',
      },
      timeoutMs: 180_000,
    })
  }

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'baton-send-faults-'))
    port = await freePort()
    await start()
    proxy = await lossyProxy(baseUrl)
  }, 200_000)
  afterAll(async () => {
    await proxy?.close()
    await server?.stop()
    await rm(dataDir, { recursive: true, force: true })
  })

  /** The stored messages of a conversation, read from the server itself. */
  const conversation = async (correlationId: string): Promise<Envelope[]> => {
    const response = await fetch(`${baseUrl()}/api/v1/conversations/${correlationId}`)
    expect(response.status).toBe(200)
    return ((await response.json()) as { messages: Envelope[] }).messages
  }
  /** Waits until the orchestrator has answered `sent`, and returns the conversation. */
  const answered = async (sent: Envelope): Promise<Envelope[]> => {
    for (const until = Date.now() + 60_000; Date.now() < until; ) {
      const messages = await conversation(sent.correlationId)
      if (messages.some((message) => message.inReplyTo === sent.id)) return messages
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    throw new Error(`the orchestrator never answered ${sent.id}`)
  }
  const fromUser = (messages: Envelope[]) =>
    messages.filter((message) => message.from.agentId === 'user')

  it('whose answer is lost on the way is stored, sent and answered once', async () => {
    const comm = createServerCommunicationStore({ baseUrl: proxy.url, live: false })
    try {
      Object.assign(proxy.state, { dropPath: '/api/v1/messages', dropAnswers: 1, dropped: 0 })
      proxy.state.replayed = 0
      const sent = await comm.getState().send({
        from: { agentId: 'user' },
        to: { agentId: 'orchestrator' },
        content: 'summarise the refunds of this week',
      })
      expect(proxy.state.dropped).toBe(1)
      // The second try was answered with the first's answer, not carried out again.
      expect(proxy.state.replayed).toBe(1)
      const messages = await answered(sent)
      expect(fromUser(messages).map((message) => message.id)).toEqual([sent.id])
      expect(messages.filter((message) => message.inReplyTo === sent.id)).toHaveLength(1)
    } finally {
      comm.getState().detach()
    }
  }, 90_000)

  it('whose start is answered but the answer lost is one run', async () => {
    const runs = async () => {
      const response = await fetch(`${baseUrl()}/api/v1/runs?limit=200`)
      return ((await response.json()) as { runs: { id: string }[] }).runs.map((run) => run.id)
    }
    const before = await runs()
    Object.assign(proxy.state, {
      dropPath: '/api/v1/swarms/dev-team/runs',
      dropAnswers: 1,
      dropped: 0,
      replayed: 0,
    })
    const runId = await createServerSwarmRunner({ baseUrl: proxy.url }).start(
      'dev-team',
      'review the release notes',
    )
    expect(proxy.state).toMatchObject({ dropped: 1, replayed: 1 })
    const after = await runs()
    expect(after.filter((id) => !before.includes(id))).toEqual([runId])
  }, 90_000)

  it('while the server is killed and started again is sent once it is back, and answered once', async () => {
    const comm = createServerCommunicationStore({
      baseUrl: proxy.url,
      live: false,
      // The server starts from source here, slower than `pnpm start`'s build.
      retryForMs: 120_000,
    })
    try {
      await server?.stop({ signal: 'SIGKILL' })
      server = undefined
      const sending = comm.getState().send({
        from: { agentId: 'user' },
        to: { agentId: 'orchestrator' },
        content: 'plan the release of version 2',
      })
      let settled = false
      void sending.then(
        () => (settled = true),
        () => (settled = true),
      )
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      // Still trying, not failed: nothing answers yet.
      expect(settled).toBe(false)
      await start()
      const sent = await sending
      const messages = await answered(sent)
      expect(fromUser(messages).map((message) => message.content)).toEqual([
        'plan the release of version 2',
      ])
      expect(messages.filter((message) => message.inReplyTo === sent.id)).toHaveLength(1)
    } finally {
      comm.getState().detach()
    }
  }, 200_000)
})
