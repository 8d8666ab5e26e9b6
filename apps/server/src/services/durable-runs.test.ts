import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { waitFor } from '@baton/testing/processes'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ServerProcess, startServerProcess } from '../__fixtures__/server-process'
import { cutShortPlan as cutShortPlanOf } from '../__fixtures__/slow-plans'
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

// Killed in its second step's wait on the tester, a process dies mid-step, after it spent.
const cutShortPlan = cutShortPlanOf({ name: 'cut-short', waiter: tester, waitMs: 6000 })

type LedgerRow = { wallet: string; stepPath: string | null; attempt: number; calls: number }

const servers: ServerProcess[] = []
let dataDir: string | undefined
let second: ServerProcess
// The run killed between its steps, and two runs killed mid-step: budgets of 4 and 3 calls.
const ids = { between: '', fits: '', tight: '' }
// biome-ignore lint/suspicious/noExplicitAny: the test reads the JSON answers loosely.
let interrupted: Record<string, any>
// biome-ignore lint/suspicious/noExplicitAny: the test reads the JSON answers loosely.
const done: Record<string, Record<string, any>> = {}
// Each run and its ledger as the restarted process first shows them, before any resume.
// biome-ignore lint/suspicious/noExplicitAny: the test reads the JSON answers loosely.
const beforeResume: Record<string, { run: Record<string, any>; ledger: Record<string, any> }> = {}

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop({ signal: 'SIGKILL' })))
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
})

async function getJson(url: string) {
  const response = await fetch(url)
  // biome-ignore lint/suspicious/noExplicitAny: the test reads the JSON answers loosely.
  return (await response.json()) as Record<string, any>
}

async function startRun(url: string, body: unknown): Promise<string> {
  const started = await fetch(`${url}/api/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  expect(started.status).toBe(202)
  return ((await started.json()) as { id: string }).id
}

async function ledgerOf(url: string, id: string): Promise<LedgerRow[]> {
  return (await getJson(`${url}/api/v1/runs/${id}/ledger`)).entries
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'baton-durable-'))
  const environment = {
    BATON_DATA_DIR: dataDir,
    // The test polls several runs at once, faster than a client is allowed to by default.
    BATON_RATE_LIMIT: '1000000',
  }
  const first = await startServerProcess(environment)
  servers.push(first)
  ids.between = await startRun(first.url, { plan })
  ids.fits = await startRun(first.url, { plan: cutShortPlan, budget: { calls: 4 } })
  ids.tight = await startRun(first.url, { plan: cutShortPlan, budget: { calls: 3 } })
  await waitFor(
    async () => {
      const run = await getJson(`${first.url}/api/v1/runs/${ids.between}`)
      if (run.steps.length < 1 || run.status !== 'running') return undefined
      for (const id of [ids.fits, ids.tight]) {
        // Mid-step: the second step has spent (its first call is on the books), not committed.
        const rows = await ledgerOf(first.url, id)
        if (!rows.some((row) => row.stepPath === 'steps[1].then[0]')) return undefined
      }
      return true
    },
    { timeoutMs: 60_000, intervalMs: 50, what: 'every run to be in the step it is killed in' },
  )
  await first.stop({ signal: 'SIGKILL' })

  second = await startServerProcess(environment)
  servers.push(second)
  interrupted = await getJson(`${second.url}/api/v1/runs/${ids.between}`)
  for (const id of Object.values(ids)) {
    beforeResume[id] = {
      run: await getJson(`${second.url}/api/v1/runs/${id}`),
      ledger: await getJson(`${second.url}/api/v1/runs/${id}/ledger`),
    }
  }
  for (const id of Object.values(ids)) {
    const resumed = await fetch(`${second.url}/api/v1/runs/${id}/resume`, { method: 'POST' })
    expect(resumed.status).toBe(202)
  }
  for (const id of Object.values(ids)) {
    done[id] = await waitFor(
      async () => {
        const run = await getJson(`${second.url}/api/v1/runs/${id}`)
        return ['done', 'failed', 'stopped', 'cancelled'].includes(run.status) ? run : undefined
      },
      { timeoutMs: 60_000, what: 'the resumed runs to finish' },
    )
  }
}, 300_000)

describe('durable runs', () => {
  it('keeps the finished steps of a run killed mid-way and resumes it without running one twice', async () => {
    expect(interrupted.status).toBe('interrupted')
    const kept = interrupted.steps.map((step: { path: string }) => step.path)
    expect(kept.length).toBeGreaterThanOrEqual(1)
    expect(kept.length).toBeLessThan(4)
    expect(interrupted.steps[0]).toMatchObject({ path: 'steps[0]', saveAs: 'a', wallet: analyst })

    const run = done[ids.between]!
    expect(run.status).toBe('done')
    const steps = run.steps as { path: string; finishedAt: string }[]
    expect(steps.map((step) => step.path)).toEqual(['steps[0]', 'steps[1]', 'steps[2]', 'steps[3]'])
    // A finished step kept its first value (it was not run again) …
    expect(steps[0]!.finishedAt).toBe(interrupted.steps[0]!.finishedAt)
    // … and every agent was charged for exactly one call: no finished step ran twice.
    const rows = await ledgerOf(second.url, ids.between)
    const calls: Record<string, number> = {}
    for (const row of rows) calls[row.wallet] = (calls[row.wallet] ?? 0) + row.calls
    expect(calls).toEqual({ [analyst]: 1, [reviewer]: 1, [tester]: 1 })
    expect((run.usageByWallet as Record<string, { calls: number }>)[analyst]!.calls).toBe(1)
    const events = await fetch(`${second.url}/api/v1/runs/${ids.between}/events`)
    const text = await events.text()
    const finishes = [...text.matchAll(/event: step-finish\ndata: (.*)\n/g)].map(
      (match) => JSON.parse(match[1]!).path,
    )
    expect(finishes).toEqual(['steps[0]', 'steps[1]', 'steps[2]', 'steps[3]'])
  })

  it('puts both attempts of a step killed after it spent on the books, with its wallet and step, and counts both in the run’s usage', async () => {
    const run = done[ids.fits]!
    expect(run.status).toBe('done')
    const rows = await ledgerOf(second.url, ids.fits)
    const seen = rows.map(({ stepPath, attempt, wallet }) => ({ stepPath, attempt, wallet }))
    expect(seen).toEqual([
      // The finished, committed step is never charged again.
      { stepPath: 'steps[0]', attempt: 1, wallet: analyst },
      { stepPath: 'steps[1].then[0]', attempt: 1, wallet: reviewer },
      { stepPath: 'steps[1].then[0]', attempt: 2, wallet: reviewer },
      { stepPath: 'steps[1].then[1]', attempt: 2, wallet: tester },
    ])
    expect(run.usage).toMatchObject({ calls: 4 })
    expect((run.usageByWallet as Record<string, { calls: number }>)[reviewer]!.calls).toBe(2)
    const ledger = await getJson(`${second.url}/api/v1/runs/${ids.fits}/ledger`)
    expect(ledger).toMatchObject({ attempt: 2, total: 4 })
    expect(ledger.ledgerTotal).toEqual(run.usage)
  })

  it('counts the spend of the step cut short in an interrupted run’s usage before it is resumed', () => {
    for (const id of [ids.fits, ids.tight]) {
      const { run, ledger } = beforeResume[id]!
      expect(run.status).toBe('interrupted')
      // The first step and the second step's first call, though the second never committed.
      expect(ledger.ledgerTotal).toMatchObject({ calls: 2 })
      expect(run.usage).toEqual(ledger.ledgerTotal)
      expect(run.usageByWallet[reviewer]).toMatchObject({ calls: 1 })
    }
    for (const { run, ledger } of Object.values(beforeResume)) {
      expect(run.usage).toEqual(ledger.ledgerTotal)
    }
  })

  it('counts the attempt cut short against the run’s budget: the run never spends past it', async () => {
    const run = done[ids.tight]!
    // Three calls: the first step, and the second step's first call twice. The tester's call
    // would be a fourth, past the budget, so it is refused and the run ends there.
    expect(run.usage).toMatchObject({ calls: 3 })
    expect(run.status).toBe('failed')
    expect(run.error).toMatchObject({ code: 'BUDGET_EXCEEDED' })
    const rows = await ledgerOf(second.url, ids.tight)
    expect(rows.map((row) => row.wallet)).toEqual([analyst, reviewer, reviewer])
    expect(rows.reduce((sum, row) => sum + row.calls, 0)).toBe(3)
  })

  it('on SIGTERM leaves a run in flight interrupted at its next step, and its events say so', async () => {
    const slowId = await startRun(second.url, {
      plan: {
        steps: [0, 1, 2].map((index) => ({
          op: 'tool',
          toolName: 'wait',
          args: { ms: 1500 },
          saveAs: `w${index}`,
        })),
      },
    })
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
      // Its events say interrupted (an event of its own), not a failed run-finish.
      const types = (await runs.events(slowId, -1)).map((stored) => stored.type)
      expect(types.at(-1)).toBe('run-interrupted')
      expect(types).not.toContain('run-finish')
      expect((await runs.events(slowId, -1)).at(-1)?.event).toMatchObject({
        status: 'interrupted',
        reason: expect.stringMatching(/resume continues the run/),
      })
    } finally {
      await db.destroy()
    }
  }, 60_000)
})
