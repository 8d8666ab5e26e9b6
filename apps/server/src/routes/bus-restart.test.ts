import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { waitFor } from '@baton/testing/processes'
import { afterAll, describe, expect, it } from 'vitest'
import { callJson as call, type Json } from '../__fixtures__/call-json'
import { loopUntilHeld } from '../__fixtures__/outside-parties'
import { type ServerProcess, startServerProcess } from '../__fixtures__/server-process'

const servers: ServerProcess[] = []
let dataDir: string | undefined

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop({ signal: 'SIGKILL' })))
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
})

describe('the loop guard across a restart of a single process', () => {
  it('still holds a chain held before the restart, lets a person allow it, and delivers the held message', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'baton-bus-restart-'))
    const environment = {
      BATON_DATA_DIR: dataDir,
      // The seeded analyst is the registered agent the conversation opens with.
      BATON_SEED: 'true',
      BATON_RATE_LIMIT: '1000000',
    }
    const first = await startServerProcess(environment)
    servers.push(first)
    const correlationId = 'restart-loop'
    // Two outside parties nobody hosts pass one conversation back and forth until the guard
    // holds it.
    expect(await loopUntilHeld(first.url, correlationId)).toMatchObject({
      code: 'LOOP_GUARD_ESCALATED',
    })
    const open = await waitFor(
      async () => {
        const { body } = await call(`${first.url}/api/v1/escalations?status=open`)
        return body.escalations.length === 1 ? body.escalations[0] : undefined
      },
      { what: 'the escalation to be stored' },
    )
    const hopsBefore = (await call(`${first.url}/api/v1/conversations/${correlationId}`)).body.hops
    first.child.kill('SIGTERM')
    await first.exited

    const second = await startServerProcess(environment)
    servers.push(second)
    const conversation = await call(`${second.url}/api/v1/conversations/${correlationId}`)
    expect(conversation.body.hops).toBe(hopsBefore)
    // Still held: the chain takes no new message while the person has not decided.
    const refused = await call(`${second.url}/api/v1/messages`, {
      from: { agentId: 'loop-a' },
      to: { agentId: 'loop-b' },
      content: 'one more',
      correlationId,
    })
    expect(refused.status).toBe(409)
    expect(refused.body.error.code).toBe('LOOP_GUARD_ESCALATED')

    const allowed = await call(`${second.url}/api/v1/escalations/${open.id}/allow`, {
      extraHops: 2,
    })
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200)
    expect(allowed.body.escalation).toMatchObject({ id: open.id, status: 'allowed' })
    const delivered = await waitFor(
      async () => {
        const { body } = await call(`${second.url}/api/v1/conversations/${correlationId}`)
        return body.messages.find((message: Json) => message.id === open.lastMessage.id)
      },
      { what: 'the held message to be delivered and stored' },
    )
    expect(delivered).toMatchObject({ content: open.lastMessage.content })
    // The chain goes on within the hops allowed.
    const next = await call(`${second.url}/api/v1/messages`, {
      from: { agentId: 'loop-a' },
      to: { agentId: 'loop-b' },
      content: 'after the allow',
      correlationId,
    })
    expect(next.status).toBe(202)
  }, 240_000)
})
