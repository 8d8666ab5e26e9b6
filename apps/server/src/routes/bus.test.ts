import { Agent, parseWith } from '@baton/core'
import { waitFor } from '@baton/testing/processes'
import { readSse } from '@baton/testing/sse'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends, databaseSettings } from '../__fixtures__/backends'
import { listenTestApp } from '../__fixtures__/listen-test-app'
import { joinAsParty } from '../__fixtures__/outside-parties'
import { newAgentAccounts } from '../__fixtures__/signed-agents'
import { createAgentsRepository } from '../db/agents-repository'

describe.each(backends)('on %s', (backend) => {
  let app: FastifyInstance
  let base: string
  beforeAll(async () => {
    ;({ app, base } = await listenTestApp({ settings: await databaseSettings(backend) }))
  })
  afterAll(async () => {
    await app.close()
  })

  type Envelope = { id: string; type: string; content: string; correlationId: string; hop: number }

  async function send(payload: object) {
    return app.inject({ method: 'POST', url: '/api/v1/messages', payload })
  }

  describe('POST /api/v1/messages', () => {
    it('runs the hosted agent a direct message is for, which replies in the same correlation', async () => {
      const response = await send({
        from: { agentId: 'person' },
        to: { agentId: 'analyst' },
        content: '[[answer:two risks found]] look at the outage',
      })
      expect(response.statusCode).toBe(202)
      const { envelope } = response.json() as { envelope: Envelope }
      const conversation = await waitFor(async () => {
        const read = await app.inject({
          method: 'GET',
          url: `/api/v1/conversations/${envelope.correlationId}`,
        })
        const messages = read.json().messages as Envelope[]
        return messages.length >= 2 ? messages : undefined
      })
      expect(conversation[1]).toMatchObject({
        type: 'reply',
        content: 'two risks found',
        correlationId: envelope.correlationId,
        hop: 1,
      })
      const spend = (await app.inject({ method: 'GET', url: '/api/v1/spend?by=wallet' })).json()
      const analyst = spend.spend.find(
        (row: { wallet: string }) => row.wallet === '0x1111111111111111111111111111111111111111',
      )
      expect(analyst.calls).toBeGreaterThanOrEqual(1)
    })

    it('lets an agent that canDelegate ask a peer through the bus, in the same correlation', async () => {
      const response = await send({
        from: { agentId: 'person' },
        to: { agentId: 'orchestrator' },
        content:
          '[[tool:ask_peer {"agentId":"analyst","content":"check the logs"}]] [[answer:asked the analyst]]',
      })
      const { envelope } = response.json() as { envelope: Envelope }
      const messages = await waitFor(async () => {
        const read = await app.inject({
          method: 'GET',
          url: `/api/v1/conversations/${envelope.correlationId}`,
        })
        const list = read.json().messages as (Envelope & { to: { agentId: string } })[]
        return list.some((message) => message.type === 'reply' && message.to.agentId === 'person')
          ? list
          : undefined
      })
      const route = messages.map(
        (message) => `${message.type}:${message.to.agentId}@${message.hop}`,
      )
      expect(route).toEqual([
        'direct:orchestrator@0',
        'direct:analyst@1',
        'reply:orchestrator@2',
        'reply:person@1',
      ])
      expect(messages.at(-1)?.content).toBe('asked the analyst')
    })

    it('lets an agent that canDelegate start a sub-agent on its own budget', async () => {
      const response = await send({
        from: { agentId: 'person' },
        to: { agentId: 'orchestrator' },
        content:
          '[[tool:start_subagent {"agentId":"tester","task":"list the tests"}]] [[answer:sub-agent done]]',
      })
      const { envelope } = response.json() as { envelope: Envelope }
      const reply = await waitFor(async () => {
        const read = await app.inject({
          method: 'GET',
          url: `/api/v1/conversations/${envelope.correlationId}`,
        })
        return (read.json().messages as Envelope[]).find((message) => message.type === 'reply')
      })
      expect(reply.content).toBe('sub-agent done')
      const spend = (await app.inject({ method: 'GET', url: '/api/v1/spend?by=wallet' })).json()
      const tester = spend.spend.find(
        (row: { wallet: string }) => row.wallet === '0x3333333333333333333333333333333333333333',
      )
      expect(tester?.calls).toBeGreaterThanOrEqual(1)
    })

    it('keeps what each agent spent on a delegated answer with the conversation: the agent and its sub-agent under its reply, the peer under its own', async () => {
      const response = await send({
        from: { agentId: 'person' },
        to: { agentId: 'orchestrator' },
        content:
          '[[tool:ask_peer {"agentId":"analyst","content":"list the risks"}]] [[tool:start_subagent {"agentId":"reviewer","task":"check the list"}]] [[answer:both parts done]]',
      })
      const { envelope } = response.json() as { envelope: Envelope }
      const read = () =>
        app.inject({ method: 'GET', url: `/api/v1/conversations/${envelope.correlationId}` })
      type Spend = { messageId: string; wallet: string; calls: number; costUsd: number }
      const answered = await waitFor(async () => {
        const body = (await read()).json() as {
          messages: (Envelope & { to: { agentId: string } })[]
          spend: Spend[]
        }
        return body.messages.some((message) => message.to.agentId === 'person') ? body : undefined
      })
      const asked = answered.messages.find((message) => message.to.agentId === 'analyst')!
      const byMessage = (messageId: string) =>
        answered.spend
          .filter((row) => row.messageId === messageId)
          .map((row) => row.wallet)
          .sort()
      // The orchestrator answered the person's message with a sub-agent (the reviewer) on its budget.
      expect(byMessage(envelope.id)).toEqual([
        '0x2222222222222222222222222222222222222222',
        '0x4444444444444444444444444444444444444444',
      ])
      // The analyst answered the question forwarded to it, on a budget of its own.
      expect(byMessage(asked.id)).toEqual(['0x1111111111111111111111111111111111111111'])
      for (const row of answered.spend) {
        expect(row.calls).toBeGreaterThanOrEqual(1)
        expect(row.costUsd).toBeGreaterThan(0)
      }
    })

    it('runs the recipient under the budget its sender grants', async () => {
      const response = await send({
        from: { agentId: 'person' },
        to: { agentId: 'tester' },
        content: 'spend nothing',
        budget: { calls: 0 },
      })
      expect(response.statusCode).toBe(202)
      const { envelope } = response.json() as { envelope: Envelope }
      const reply = await waitFor(async () => {
        const read = await app.inject({
          method: 'GET',
          url: `/api/v1/conversations/${envelope.correlationId}`,
        })
        return (read.json().messages as Envelope[]).find((message) => message.type === 'reply')
      })
      expect(reply.content).toMatch(/^\[error\].*budget/i)
    })

    it('refuses a message with a key it does not know (a misspelt budget) with 400 naming it, and stores and sends nothing', async () => {
      const content = `misspelt budget ${crypto.randomUUID()}`
      const response = await send({
        from: { agentId: 'person' },
        to: { agentId: 'tester' },
        content,
        budjet: { calls: 0 },
      })
      expect(response.statusCode).toBe(400)
      expect(response.json().error).toMatchObject({
        code: 'VALIDATION_FAILED',
        message: expect.stringContaining('Unrecognized key: "budjet"'),
      })
      // A misspelt conversation is refused as well: it would have started a new one.
      const astray = await send({
        from: { agentId: 'person' },
        to: { agentId: 'tester' },
        content,
        correlationID: 'the-conversation-meant',
      })
      expect(astray.statusCode).toBe(400)
      expect(astray.json().error.message).toContain('Unrecognized key: "correlationID"')
      const stored = await app.baton.repositories.messages.since(new Date(0), 10_000)
      expect(stored.filter((envelope) => envelope.content === content)).toEqual([])
    })

    it('keeps the memory of a hosted agent in the database', async () => {
      await send({
        from: { agentId: 'person' },
        to: { agentId: 'reviewer' },
        content: 'remember me',
      })
      const reviewer = await app.baton.repositories.agents.findById('reviewer')
      // The card's scope, or (as core reads it) the agent's own wallet.
      const scopes = [reviewer!.memoryScope, reviewer!.wallet]
      const entries = await waitFor(async () => {
        const read = (await Promise.all(scopes.map((scope) => app.baton.memory.read(scope)))).flat()
        return read.some((entry) => entry.content.includes('remember me')) ? read : undefined
      })
      expect(entries.length).toBeGreaterThan(0)
    })

    it('lists the newest conversations first, each once, so a page can show them after a reload', async () => {
      // Broadcasts to registered agents (nobody runs, so no reply reorders the list), then an
      // outside party answers the person in the first conversation.
      const first = (
        await send({
          from: { agentId: 'person' },
          to: { agentId: 'tester' },
          type: 'broadcast',
          content: 'one',
        })
      ).json().envelope as Envelope
      const second = (
        await send({
          from: { agentId: 'person' },
          to: { agentId: 'reviewer' },
          type: 'broadcast',
          content: 'two',
        })
      ).json().envelope as Envelope
      await send({
        from: { agentId: 'desk-a' },
        to: { agentId: 'person' },
        content: 'one, again',
        correlationId: first.correlationId,
        hop: 1,
      })
      const listed = (await app.inject({ method: 'GET', url: '/api/v1/conversations?limit=50' }))
        .json()
        .conversations.map((row: { correlationId: string }) => row.correlationId) as string[]
      expect(listed.indexOf(first.correlationId)).toBeLessThan(listed.indexOf(second.correlationId))
      expect(listed.filter((id) => id === first.correlationId)).toHaveLength(1)
      const limited = await app.inject({ method: 'GET', url: '/api/v1/conversations?limit=1' })
      expect(limited.json().conversations).toHaveLength(1)
      expect(
        (await app.inject({ method: 'GET', url: '/api/v1/conversations?limit=0' })).statusCode,
      ).toBe(400)
    })

    it('refuses a message to an agent nobody registered with 404 UNKNOWN_AGENT naming it, and stores nothing', async () => {
      const correlationId = `corr-nobody-${Date.now()}`
      const post = (body: object) =>
        fetch(`${base}/api/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      for (const body of [
        {
          from: { agentId: 'ops-desk' },
          to: { agentId: 'nobody' },
          content: 'anyone?',
          correlationId,
        },
        { from: { agentId: 'ops-desk' }, to: { agentId: 'nobody' }, content: 'anyone at all?' },
      ]) {
        const refused = await post(body)
        expect(refused.status).toBe(404)
        const { error } = (await refused.json()) as {
          error: { code: string; message: string; details: Record<string, unknown> }
        }
        expect(error.code).toBe('UNKNOWN_AGENT')
        expect(error.message).toMatch(/No agent "nobody" to send to/)
        expect(error.details).toMatchObject({ field: 'to.agentId', agentId: 'nobody' })
      }
      // Nothing of it was stored: no message, no conversation, no owner.
      const read = await fetch(`${base}/api/v1/conversations/${correlationId}`)
      expect(((await read.json()) as { messages: unknown[] }).messages).toEqual([])
      const listed = (await (await fetch(`${base}/api/v1/conversations?limit=100`)).json()) as {
        conversations: { correlationId: string }[]
      }
      expect(listed.conversations.map((row) => row.correlationId)).not.toContain(correlationId)
      expect(await app.baton.repositories.messages.conversationOwner(correlationId)).toBeUndefined()
      const stored = await app.baton.repositories.messages.since(new Date(0), 10_000)
      expect(stored.filter((message) => message.to.agentId === 'nobody')).toEqual([])
    })

    it('lets an outside party be written to in a conversation it is part of, and no other', async () => {
      const correlationId = `corr-parties-${Date.now()}`
      expect((await send(joinAsParty('desk-a', correlationId))).statusCode).toBe(202)
      // desk-a wrote in it: desk-b may answer desk-a there, and desk-a desk-b in turn.
      const answer = await send({
        from: { agentId: 'desk-b' },
        to: { agentId: 'desk-a' },
        content: 'seen',
        correlationId,
        hop: 1,
      })
      expect(answer.statusCode).toBe(202)
      expect(
        (
          await send({
            from: { agentId: 'desk-a' },
            to: { agentId: 'desk-b' },
            content: 'thanks',
            correlationId,
            hop: 2,
          })
        ).statusCode,
      ).toBe(202)
      // desk-c never took part in it, and is not an agent.
      const stranger = await send({
        from: { agentId: 'desk-a' },
        to: { agentId: 'desk-c' },
        content: 'you too',
        correlationId,
        hop: 3,
      })
      expect(stranger.statusCode).toBe(404)
      expect(stranger.json().error).toMatchObject({
        code: 'UNKNOWN_AGENT',
        details: { agentId: 'desk-c', correlationId },
      })
      expect(stranger.json().error.message).toMatch(/nor a party of conversation/)
      const messages = (
        await app.inject({ method: 'GET', url: `/api/v1/conversations/${correlationId}` })
      ).json().messages as Envelope[]
      expect(messages.map((message) => message.content)).toEqual([
        'desk-a joins the conversation',
        'seen',
        'thanks',
      ])
    })

    it('delivers to an agent another server process registered in the shared database', async () => {
      // Written by a repository of its own, as another process on the same database would.
      const elsewhere = createAgentsRepository(app.baton.db)
      const { agent } = newAgentAccounts('registered-elsewhere')
      await elsewhere.insert(parseWith(Agent, agent, 'test agent'), 'test')
      const sent = await send({
        from: { agentId: 'ops-desk' },
        to: { agentId: 'registered-elsewhere' },
        type: 'broadcast',
        content: 'found you',
      })
      expect(sent.statusCode).toBe(202)
    })

    it('refuses a message that is not a send input with 400', async () => {
      const response = await send({ to: { agentId: 'analyst' }, content: 'who am I?' })
      expect(response.statusCode).toBe(400)
      expect(response.json().error.code).toBe('VALIDATION_FAILED')
    })

    it('streams new envelopes over SSE', async () => {
      const controller = new AbortController()
      const stream = await fetch(`${base}/api/v1/messages/stream`, { signal: controller.signal })
      const first = (async () => {
        for await (const event of readSse(stream.body!)) {
          if (event.event === 'message') return JSON.parse(event.data) as Envelope
        }
      })()
      await send({
        from: { agentId: 'person' },
        to: { agentId: 'analyst' },
        type: 'broadcast',
        content: 'hello stream',
      })
      expect((await first)?.content).toBe('hello stream')
      controller.abort()
    })
  })

  describe('escalations', () => {
    it('holds a chain past the hop limit and lets a person allow more hops or stop it', async () => {
      const correlationId = `corr-${Date.now()}`
      let held: { statusCode: number; json: () => { error: { code: string } } } | undefined
      // desk-a opens the conversation; then desk-b and desk-a, its parties, pass it back and forth.
      expect((await send(joinAsParty('desk-a', correlationId))).statusCode).toBe(202)
      for (let hop = 1; hop < 12 && !held; hop++) {
        const [from, to] = hop % 2 ? ['desk-b', 'desk-a'] : ['desk-a', 'desk-b']
        const response = await send({
          from: { agentId: from },
          to: { agentId: to },
          content: `pass ${hop}`,
          correlationId,
          hop,
        })
        if (response.statusCode !== 202) held = response
      }
      expect(held?.statusCode).toBe(409)
      expect(held?.json().error.code).toBe('LOOP_GUARD_ESCALATED')
      const open = await waitFor(async () => {
        const list = (
          await app.inject({ method: 'GET', url: '/api/v1/escalations?status=open' })
        ).json()
        return list.escalations.find(
          (item: { correlationId: string }) => item.correlationId === correlationId,
        )
      })
      const allowed = await app.inject({
        method: 'POST',
        url: `/api/v1/escalations/${open.id}/allow`,
        payload: { extraHops: 1 },
      })
      expect(allowed.statusCode).toBe(200)
      expect(allowed.json().escalation.status).toBe('allowed')
      const again = await app.inject({
        method: 'POST',
        url: `/api/v1/escalations/${open.id}/stop`,
        payload: { reason: 'enough' },
      })
      expect(again.statusCode).toBe(409)
      const unknown = await app.inject({
        method: 'POST',
        url: '/api/v1/escalations/nope/allow',
        payload: { extraHops: 1 },
      })
      expect(unknown.statusCode).toBe(404)
    })

    it("lists escalations with the loop guard's maxHops, on the list and on each one", async () => {
      const list = (await app.inject({ method: 'GET', url: '/api/v1/escalations' })).json() as {
        maxHops: number
        escalations: { maxHops: number }[]
      }
      expect(list.maxHops).toBe(app.baton.bus.loopGuard.maxHops)
      expect(list.maxHops).toBe(8)
      expect(list.escalations.length).toBeGreaterThan(0)
      for (const escalation of list.escalations) expect(escalation.maxHops).toBe(8)
    })
  })
})
