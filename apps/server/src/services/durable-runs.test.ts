import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { freePort, type ServerProcess, startServerProcess } from '../__fixtures__/server-process'
import { waitFor } from '../__fixtures__/wait-for'
import { openDatabase } from '../db/open-database'
import { createRunsRepository } from '../db/runs-repository'

const analyst = '0x1111111111111111111111111111111111111111'
const reviewer = '0x2222222222222222222222222222222222222222'
const tester = '0x3333333333333333333333333333333333333333'

// Each step asks a different demo agent, slowly; the ledger then shows who was asked how often.
const plan = {
  name: 'three-slow-steps',
  steps: [
    { op: 'delegate', saveAs: 'a', agentWallet: analyst, prompt: '[[sleep:1500]] first' },
    { op: 'delegate', saveAs: 'b', agentWallet: reviewer, prompt: '[[sleep:1500]] second' },
    { op: 'delegate', saveAs: 'c', agentWallet: tester, prompt: '[[sleep:1500]] third' },
    { op: 'stop', output: { a: '{{a}}', b: '{{b}}', c: '{{c}}' } },
  ],
}

const servers: ServerProcess[] = []
let dataDir: string | undefined
afterAll(async () => {
  for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL')
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
})

async function getJson(url: string) {
  const response = await fetch(url)
  // biome-ignore lint/suspicious/noExplicitAny: the test reads the JSON answers loosely.
  return (await response.json()) as Record<string, any>
}

describe('durable runs', () => {
  it('keeps the finished steps of a run killed mid-way, resumes it without running one twice, and on SIGTERM leaves a run in flight interrupted at its next step', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'baton-durable-'))
    const environment = { BATON_DATA_DIR: dataDir, PORT: String(await freePort()) }
    const first = await startServerProcess(environment)
    servers.push(first)
    const started = await fetch(`${first.url}/api/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ plan }),
    })
    expect(started.status).toBe(202)
    const { id } = (await started.json()) as { id: string }
    await waitFor(
      async () => {
        const run = await getJson(`${first.url}/api/v1/runs/${id}`)
        return run.steps.length >= 1 && run.status === 'running' ? run : undefined
      },
      { timeoutMs: 60_000, what: 'the first step to finish' },
    )
    first.child.kill('SIGKILL')
    await first.exited

    const second = await startServerProcess(environment)
    servers.push(second)
    const interrupted = await getJson(`${second.url}/api/v1/runs/${id}`)
    expect(interrupted.status).toBe('interrupted')
    const kept = interrupted.steps.map((step: { path: string }) => step.path)
    expect(kept.length).toBeGreaterThanOrEqual(1)
    expect(kept.length).toBeLessThan(4)
    expect(interrupted.steps[0]).toMatchObject({ path: 'steps[0]', saveAs: 'a', wallet: analyst })

    const resumed = await fetch(`${second.url}/api/v1/runs/${id}/resume`, { method: 'POST' })
    expect(resumed.status).toBe(202)
    const done = await waitFor(
      async () => {
        const run = await getJson(`${second.url}/api/v1/runs/${id}`)
        return ['done', 'failed', 'cancelled'].includes(run.status) ? run : undefined
      },
      { timeoutMs: 60_000, what: 'the resumed run to finish' },
    )
    expect(done.status).toBe('done')
    expect(done.steps.map((step: { path: string }) => step.path)).toEqual([
      'steps[0]',
      'steps[1]',
      'steps[2]',
      'steps[3]',
    ])
    // A finished step kept its first value (it was not run again) …
    expect(done.steps[0].finishedAt).toBe(interrupted.steps[0].finishedAt)
    // … and every agent was charged for exactly one call: no finished step ran twice.
    const spend = await getJson(`${second.url}/api/v1/spend?by=wallet`)
    const calls = Object.fromEntries(
      spend.spend.map((row: { wallet: string; calls: number }) => [row.wallet, row.calls]),
    )
    expect(calls).toMatchObject({ [analyst]: 1, [reviewer]: 1, [tester]: 1 })
    expect(done.usageByWallet[analyst].calls).toBe(1)
    const events = await fetch(`${second.url}/api/v1/runs/${id}/events`)
    const text = await events.text()
    const finishes = [...text.matchAll(/event: step-finish\ndata: (.*)\n/g)].map(
      (match) => JSON.parse(match[1]!).path,
    )
    expect(finishes).toEqual(['steps[0]', 'steps[1]', 'steps[2]', 'steps[3]'])

    // SIGTERM: the run in flight reaches its next step boundary, is left interrupted, exit 0.
    const slow = await fetch(`${second.url}/api/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        plan: {
          steps: [0, 1, 2].map((index) => ({
            op: 'tool',
            toolName: 'wait',
            args: { ms: 1500 },
            saveAs: `w${index}`,
          })),
        },
      }),
    })
    const slowId = ((await slow.json()) as { id: string }).id
    await waitFor(
      async () =>
        (await getJson(`${second.url}/api/v1/runs/${slowId}`)).steps.length >= 1 ? true : undefined,
      { timeoutMs: 60_000, what: 'the first wait to finish' },
    )
    second.child.kill('SIGTERM')
    expect(await second.exited).toBe(0)
    const { db } = await openDatabase({ dataDir: dataDir! })
    try {
      const runs = createRunsRepository(db)
      const stopped = await runs.find(slowId)
      expect(stopped?.status).toBe('interrupted')
      const kept = await runs.steps(slowId)
      expect(kept.length).toBeGreaterThanOrEqual(2)
      expect(stopped?.state).toMatchObject({ cursor: { index: kept.length } })
    } finally {
      await db.destroy()
    }
  }, 300_000)
})
