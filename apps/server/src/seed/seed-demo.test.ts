import { waitFor } from '@baton/testing/processes'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp } from '../__fixtures__/test-app'
import { seedDemo } from './seed-demo'

const analyst = '0x1111111111111111111111111111111111111111'

let app: FastifyInstance
beforeAll(async () => {
  app = await createTestApp()
  await seedDemo(app.baton)
})
afterAll(async () => {
  await app.close()
})

type StoredEvent = { type: string; path?: string; name?: string }

/** Starts `steps` as a plan and waits for it to end: its status, output and stored events. */
async function runPlan(steps: unknown[]) {
  const started = await app.inject({
    method: 'POST',
    url: '/api/v1/runs',
    payload: { plan: { steps } },
  })
  expect(started.statusCode).toBe(202)
  const { id } = started.json() as { id: string }
  const run = await waitFor(
    async () => {
      const read = (await app.inject({ method: 'GET', url: `/api/v1/runs/${id}` })).json() as {
        status: string
        output?: unknown
        error?: { code: string; message: string } | null
      }
      return ['done', 'failed', 'cancelled'].includes(read.status) ? read : undefined
    },
    { timeoutMs: 30_000, what: `run ${id} to end` },
  )
  const stream = await app.inject({ method: 'GET', url: `/api/v1/runs/${id}/events` })
  const events = stream.body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as StoredEvent)
  return { run, events }
}

describe('the seeded demo agents', () => {
  it('list tools on their cards: file tools for the workers, delegation for the orchestrator', async () => {
    const listed = (await app.inject({ method: 'GET', url: '/api/v1/agents' })).json() as {
      agents: { id: string; tools: string[]; agentCard: { examples?: string[] } }[]
    }
    const byId = new Map(listed.agents.map((agent) => [agent.id, agent]))
    expect(byId.get('analyst')?.tools).toEqual(['read_file', 'list_files'])
    expect(byId.get('tester')?.tools).toContain('write_file')
    for (const agent of listed.agents) expect(agent.agentCard.examples?.length).toBeGreaterThan(0)
  })

  it('work in a task with the file tools their card lists', async () => {
    const { run, events } = await runPlan([
      {
        op: 'task',
        agentWallet: analyst,
        saveAs: 'found',
        prompt: 'What is in the folder? [[tool:list_files {}]]',
      },
      { op: 'stop', output: '{{found}}' },
    ])
    expect(run.error ?? null).toBeNull()
    expect(run.status).toBe('done')
    const calls = events.filter((event) => event.type === 'tool-call')
    expect(calls.map((event) => event.name)).toEqual(['list_files'])
  })

  it('answer a delegate without them, where no workspace grants them', async () => {
    // Before tools that are granted only in a workspace were left out elsewhere, each of these
    // failed with UNKNOWN_TOOL ("Tool "read_file" is not registered").
    const { run } = await runPlan([
      { op: 'delegate', agentWallet: analyst, saveAs: 'risks', prompt: 'List the risks' },
      { op: 'stop', output: '{{risks}}' },
    ])
    expect(run.error ?? null).toBeNull()
    expect(run.status).toBe('done')
  })

  it('answer a message without them', async () => {
    const sent = await app.inject({
      method: 'POST',
      url: '/api/v1/messages',
      payload: {
        from: { agentId: 'person' },
        to: { agentId: 'analyst' },
        content: '[[answer:two risks]] look at the outage',
      },
    })
    expect(sent.statusCode).toBe(202)
    const { correlationId } = (sent.json() as { envelope: { correlationId: string } }).envelope
    const reply = await waitFor(
      async () => {
        const read = await app.inject({
          method: 'GET',
          url: `/api/v1/conversations/${correlationId}`,
        })
        const messages = read.json().messages as { type: string; content: string }[]
        return messages.find((message) => message.type === 'reply')
      },
      { timeoutMs: 30_000, what: "the analyst's reply" },
    )
    expect(reply.content).toBe('two risks')
  })

  it('answer a swarm call without them', async () => {
    const swarm = await app.inject({
      method: 'POST',
      url: '/api/v1/swarms/dev-team/runs',
      payload: { task: 'Review the release notes' },
    })
    expect(swarm.statusCode).toBe(202)
    const swarmRunId = (swarm.json() as { runId: string }).runId
    const finished = await waitFor(
      async () => {
        const read = (
          await app.inject({ method: 'GET', url: `/api/v1/runs/${swarmRunId}` })
        ).json() as { status: string; error?: unknown }
        return ['done', 'failed'].includes(read.status) ? read : undefined
      },
      { timeoutMs: 30_000, what: 'the dev-team swarm run to end' },
    )
    expect(finished.error ?? null).toBeNull()
    expect(finished.status).toBe('done')
  })
})
