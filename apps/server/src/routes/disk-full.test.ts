import { randomBytes } from 'node:crypto'
import { waitFor } from '@baton/testing/processes'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ServerProcess, startServerProcess } from '../__fixtures__/server-process'
import { canMountTmpfs, mountTmpfs, type Tmpfs } from '../__fixtures__/tmpfs'

// The data folder's disk is a small tmpfs the test fills and frees (root, as CI runs here).
const mountable = await canMountTmpfs()
if (!mountable && process.env.CI === 'true') {
  throw new Error('mounting a tmpfs is required under CI=true (the tests run as root there)')
}
if (!mountable) console.warn('[disk full] cannot mount a tmpfs here: skipping.')

const analyst = '0x1111111111111111111111111111111111111111'
// Random text does not compress: storing it needs new pages, which a full disk refuses.
const incompressible = () => randomBytes(150_000).toString('base64')

// biome-ignore lint/suspicious/noExplicitAny: the test reads the JSON answers loosely.
type Json = Record<string, any>

let disk: Tmpfs | undefined
let server: ServerProcess | undefined

afterAll(async () => {
  await server?.stop({ signal: 'SIGKILL' })
  await disk?.unmount()
})

beforeAll(async () => {
  if (!mountable) return
  disk = await mountTmpfs({ sizeMb: 160 })
  server = await startServerProcess({
    BATON_DATA_DIR: `${disk!.dir}/data`,
    BATON_RATE_LIMIT: '1000000',
  })
}, 180_000)

async function request(
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${server!.url}${path}`, {
    ...init,
    ...(init.body ? { headers: { 'content-type': 'application/json' } } : {}),
    signal: AbortSignal.timeout(30_000),
  })
  return { status: response.status, body: (await response.json()) as Json }
}

/** Reads a run's event stream to its end; resolves with the event names (bounded in time). */
async function readToEnd(id: string): Promise<string[]> {
  const response = await fetch(`${server!.url}/api/v1/runs/${id}/events`, {
    signal: AbortSignal.timeout(150_000),
  })
  const text = await response.text()
  return [...text.matchAll(/^event: (.+)$/gm)].map((match) => match[1]!)
}

describe.skipIf(!mountable)('a server whose data folder’s disk is full', () => {
  it('acknowledges no message it did not store, says /ready 503, and leaves no run running once there is room', async () => {
    expect((await request('/ready')).status).toBe(200)
    // Each run spends (the analyst), then stores a large step value while the disk is full.
    const plan = {
      name: 'writes-big',
      steps: [
        { op: 'delegate', saveAs: 'a', agentWallet: analyst, prompt: '[[sleep:3000]] first' },
        { op: 'tool', toolName: 'wait', saveAs: 'b', args: { ms: 10, value: incompressible() } },
        { op: 'tool', toolName: 'wait', saveAs: 'c', args: { ms: 10, value: incompressible() } },
        { op: 'stop', output: 'written' },
      ],
    }
    const ids: string[] = []
    for (let index = 0; index < 4; index++) {
      const started = await request('/api/v1/runs', {
        method: 'POST',
        body: JSON.stringify({ plan }),
      })
      expect(started.status).toBe(202)
      ids.push(started.body.id)
    }
    const streams = ids.map((id) => readToEnd(id))
    // Awaited below; a test that fails first must not leave them unhandled.
    for (const stream of streams) stream.catch(() => {})
    await disk!.fill()

    const notReady = await request('/ready')
    expect(notReady.status).toBe(503)
    expect(notReady.body.error.details.checks.dataFolder).toMatch(/no space left/)

    // Every 202 is a stored message; the others are refused with a typed 5xx.
    const answers: { status: number; body: Json; content: string }[] = []
    for (let index = 0; index < 10; index++) {
      const content = index % 2 === 0 ? incompressible() : `small message ${index}`
      const sent = await request('/api/v1/messages', {
        method: 'POST',
        body: JSON.stringify({
          from: { agentId: 'disk-client' },
          // A broadcast to a registered agent: stored, and nobody runs on it.
          to: { agentId: 'analyst' },
          type: 'broadcast',
          content,
          correlationId: `disk-full-${index}`,
        }),
      })
      answers.push({ ...sent, content })
    }
    const refused = answers.filter((answer) => answer.status !== 202)
    expect(refused.length).toBeGreaterThan(0)
    for (const answer of refused) {
      expect(answer.status).toBe(507)
      expect(answer.body.error.code).toBe('STORAGE_UNAVAILABLE')
      // The data folder's path is the operator's (in the log), not in the answer.
      expect(JSON.stringify(answer.body)).not.toContain(disk!.dir)
    }

    // Runs met the full disk (their large values); give them time to reach it, then free it.
    await waitFor(
      async () => {
        const runs = await Promise.all(ids.map((id) => request(`/api/v1/runs/${id}`)))
        const past = (run: Json) =>
          run.status !== 'queued' && (run.status !== 'running' || run.steps.length >= 1)
        return runs.every((run) => past(run.body)) ? true : undefined
      },
      { timeoutMs: 60_000, what: 'every run past its first step' },
    ).catch(() => undefined)
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    await disk!.free()
    await waitFor(async () => ((await request('/ready')).status === 200 ? true : undefined), {
      timeoutMs: 30_000,
      what: '/ready to answer 200 again',
    })

    for (let index = 0; index < answers.length; index++) {
      const answer = answers[index]!
      const conversation = await request(`/api/v1/conversations/disk-full-${index}`)
      const stored = conversation.body.messages.map((message: Json) => message.content)
      expect(stored).toEqual(answer.status === 202 ? [answer.content] : [])
    }

    // No run stays running: each finished, or is interrupted and resumable.
    const settled = await waitFor(
      async () => {
        const runs = await Promise.all(ids.map((id) => request(`/api/v1/runs/${id}`)))
        return runs.every((run) => ['done', 'interrupted'].includes(run.body.status))
          ? runs.map((run) => run.body)
          : undefined
      },
      { timeoutMs: 60_000, what: 'every run done or interrupted' },
    )
    // Their event streams ended.
    const ended = await Promise.all(streams)
    expect(ended).toHaveLength(ids.length)
    const interrupted = settled.filter((run) => run.status === 'interrupted')
    expect(interrupted.length).toBeGreaterThan(0)
    for (const run of interrupted) {
      const ledger = await request(`/api/v1/runs/${run.id}/ledger`)
      expect(run.usage).toEqual(ledger.body.ledgerTotal)
      expect((await request(`/api/v1/runs/${run.id}/resume`, { method: 'POST' })).status).toBe(202)
    }
    for (const run of interrupted) {
      const done = await waitFor(
        async () => {
          const now = await request(`/api/v1/runs/${run.id}`)
          return ['done', 'failed'].includes(now.body.status) ? now.body : undefined
        },
        { timeoutMs: 60_000, what: 'the resumed run to finish' },
      )
      expect(done.status).toBe('done')
      expect(done.output).toBe('written')
    }
  }, 300_000)
})
