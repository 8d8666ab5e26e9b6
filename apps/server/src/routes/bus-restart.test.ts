import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { waitFor } from '@baton/testing/processes'
import { afterAll, describe, expect, it } from 'vitest'
import { callJson as call, type Json } from '../__fixtures__/call-json'
import { loopUntilHeld, storedEscalation } from '../__fixtures__/outside-parties'
import { type ServerProcess, startServerProcess } from '../__fixtures__/server-process'
import { openDatabase } from '../db/open-database'
import { createRepositories } from '../db/repositories'

const servers: ServerProcess[] = []
const dataDirs: string[] = []

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop({ signal: 'SIGKILL' })))
  for (const dataDir of dataDirs) await rm(dataDir, { recursive: true, force: true })
})

/**
 * A single process on its own embedded database, with the seeded agents; `restart` stops it
 * (SIGTERM), runs `between` while it is down, and starts it again.
 */
async function startSingle() {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'baton-bus-restart-'))
  dataDirs.push(dataDir)
  const environment = {
    BATON_DATA_DIR: dataDir,
    // The seeded analyst is the registered agent the conversation opens with.
    BATON_SEED: 'true',
    BATON_RATE_LIMIT: '1000000',
  }
  let current = await startServerProcess(environment)
  servers.push(current)
  const restart = async (between?: () => Promise<void>) => {
    current.child.kill('SIGTERM')
    await current.exited
    await between?.()
    current = await startServerProcess(environment)
    servers.push(current)
    return current
  }
  return { server: current, dataDir, restart }
}

describe('the loop guard across a restart of a single process', () => {
  it('still holds a chain held before the restart, lets a person allow it, and delivers the held message', async () => {
    const { server: first, restart } = await startSingle()
    const correlationId = 'restart-loop'
    // Two outside parties nobody hosts pass one conversation back and forth until the guard
    // holds it.
    expect(await loopUntilHeld(first.url, correlationId)).toMatchObject({
      code: 'LOOP_GUARD_ESCALATED',
    })
    const open = await storedEscalation(first.url, correlationId)
    const hopsBefore = (await call(`${first.url}/api/v1/conversations/${correlationId}`)).body.hops
    const second = await restart()
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

  it('delivers, once, the held message of an allow stored just before the process was killed', async () => {
    const { server: first, dataDir, restart } = await startSingle()
    const correlationId = 'allowed-then-killed'
    await loopUntilHeld(first.url, correlationId)
    const open = await storedEscalation(first.url, correlationId)
    // What the allow route leaves when the process is killed between storing the decision
    // and the guard's act on it (the decision is stored first): the escalation stored as
    // allowed, the held message never sent.
    const second = await restart(async () => {
      const { db } = await openDatabase({ dataDir, databaseUrl: '' })
      try {
        await createRepositories(db).messages.saveEscalation({
          ...open,
          status: 'allowed',
          extraHops: 2,
          resolvedAt: new Date().toISOString(),
        })
      } finally {
        await db.destroy()
      }
    })
    const delivered = await waitFor(
      async () => {
        const { body } = await call(`${second.url}/api/v1/conversations/${correlationId}`)
        const held = body.messages.filter((message: Json) => message.id === open.lastMessage.id)
        return held.length > 0 ? held : undefined
      },
      { what: 'the held message to be delivered', timeoutMs: 30_000 },
    )
    expect(delivered).toHaveLength(1)
    const { body } = await call(`${second.url}/api/v1/escalations?status=allowed`)
    expect(body.escalations.map((each: Json) => each.id)).toEqual([open.id])
    // The chain goes on within the hops allowed: the held message was the first of the two.
    const next = await call(`${second.url}/api/v1/messages`, {
      from: { agentId: 'loop-a' },
      to: { agentId: 'loop-b' },
      content: 'after the allow',
      correlationId,
    })
    expect(next.status, JSON.stringify(next.body)).toBe(202)
    const beyond = await call(`${second.url}/api/v1/messages`, {
      from: { agentId: 'loop-b' },
      to: { agentId: 'loop-a' },
      content: 'one too many',
      correlationId,
    })
    expect(beyond.status).toBe(409)
    // Acted on once: a start after it delivers nothing more.
    const third = await restart()
    const after = await call(`${third.url}/api/v1/conversations/${correlationId}`)
    expect(after.body.messages.filter((m: Json) => m.id === open.lastMessage.id)).toHaveLength(1)
  }, 240_000)
})
