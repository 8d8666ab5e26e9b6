import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { Budget } from '@baton/core'
import { waitFor } from '@baton/testing/processes'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'

// Every budget the server makes, weakly: the test must not be what keeps one alive.
const made = vi.hoisted(() => ({ budgets: [] as WeakRef<Budget>[] }))
vi.mock('@baton/core', async (importOriginal) => {
  const core = await importOriginal<typeof import('@baton/core')>()
  return {
    ...core,
    createBudget: (...args: Parameters<typeof core.createBudget>) => {
      const budget = core.createBudget(...args)
      made.budgets.push(new WeakRef(budget))
      return budget
    },
  }
})

setFlagsFromString('--expose-gc')
const collectGarbage = runInNewContext('gc') as () => void

const analyst = '0x1111111111111111111111111111111111111111'

/** The budgets made since the test began that are still alive after a full collection. */
async function budgetsAlive(): Promise<Budget[]> {
  // A WeakRef's target is kept until the task that read it has ended.
  await new Promise((resolve) => setTimeout(resolve, 20))
  collectGarbage()
  collectGarbage()
  return made.budgets.map((ref) => ref.deref()).filter((budget) => budget !== undefined)
}

describe('a budget the server makes for a piece of work', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    // The files before this one in the worker may have imported the server already, with the
    // real \`@baton/core\`: imported afresh here, it sees the mock above.
    vi.resetModules()
    const { createTestApp } = await import('../__fixtures__/test-app')
    const { seedDemo } = await import('../seed/seed-demo')
    app = await createTestApp()
    await seedDemo(app.baton)
  })
  afterAll(async () => {
    await app.close()
    // ... and the files after it import the real one again.
    vi.resetModules()
  })
  beforeEach(() => {
    made.budgets.length = 0
  })

  // Its wall limit (two minutes for a message, ten for a run) is a timer, and a timer keeps
  // the budget and all it holds alive until the deadline: at hundreds of messages a second,
  // hundreds of megabytes of finished budgets.
  it('ends when an A2A message is answered, and nothing keeps it', async () => {
    for (const index of [1, 2, 3]) {
      const answer = await app.inject({
        method: 'POST',
        url: '/a2a/analyst',
        headers: { 'a2a-version': '1.0' },
        payload: {
          jsonrpc: '2.0',
          id: index,
          method: 'SendMessage',
          params: {
            message: { messageId: `m-${index}`, role: 'ROLE_USER', parts: [{ text: 'Hi' }] },
          },
        },
      })
      expect(answer.json()).toMatchObject({
        result: { task: { status: { state: 'TASK_STATE_COMPLETED' } } },
      })
    }
    expect(made.budgets.length).toBeGreaterThanOrEqual(3)
    const alive = await budgetsAlive()
    expect(alive.every((budget) => budget.aborted)).toBe(true)
    expect(alive).toEqual([])
  })

  it('ends when a bus message its sender granted a budget is answered, and nothing keeps it', async () => {
    const sent = await app.inject({
      method: 'POST',
      url: '/api/v1/messages',
      payload: {
        from: { agentId: 'person' },
        to: { agentId: 'analyst' },
        content: 'Hi',
        budget: { calls: 5, maxWallMs: 60_000 },
      },
    })
    expect(sent.statusCode).toBe(202)
    const { correlationId } = sent.json().envelope as { correlationId: string }
    await waitFor(async () => {
      const read = await app.inject({
        method: 'GET',
        url: `/api/v1/conversations/${correlationId}`,
      })
      const messages = read.json().messages as { type: string }[]
      return messages.some((message) => message.type === 'reply') || undefined
    })
    expect(made.budgets.length).toBeGreaterThanOrEqual(1)
    expect(await budgetsAlive()).toEqual([])
  })

  it('ends when a run has finished, and nothing keeps it', async () => {
    const plan = {
      steps: [{ op: 'delegate', saveAs: 'answer', agentWallet: analyst, prompt: 'Hi' }],
    }
    for (let index = 0; index < 3; index += 1) {
      const started = await app.inject({ method: 'POST', url: '/api/v1/runs', payload: { plan } })
      expect(started.statusCode).toBe(202)
      const id = started.json().id as string
      const run = await waitFor(
        async () => {
          const stored = (await app.inject({ method: 'GET', url: `/api/v1/runs/${id}` })).json()
          return ['queued', 'running'].includes(stored.status) ? undefined : stored
        },
        { what: `run ${id} to finish` },
      )
      expect(run.status).toBe('done')
    }
    expect(made.budgets.length).toBeGreaterThanOrEqual(3)
    expect(await budgetsAlive()).toEqual([])
  })
})
