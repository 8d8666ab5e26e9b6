import { createStaticRegistry } from '@baton/core'
import { type EchoAgent, startEchoAgent } from '@baton/testing/a2a'
import { afterEach, describe, expect, it } from 'vitest'
import { agentRecord, analystWallet } from '../__fixtures__/agents'
import type { RunEvent } from './run-event'
import { runPlan } from './run-plan'

type Delta = Extract<RunEvent, { type: 'step-delta' }>

let agent: EchoAgent | undefined
afterEach(async () => {
  await agent?.close()
  agent = undefined
})

const prompt = 'Summarize the incident in a few plain words for the on-call channel'

async function delegateTo(cardUrl: string) {
  const seen: RunEvent[] = []
  const result = await runPlan(
    { steps: [{ op: 'delegate', saveAs: 'answer', agentWallet: analystWallet, prompt }] },
    {
      registry: createStaticRegistry([agentRecord({ endpoint: cardUrl })]),
      onEvent: (event) => seen.push(event),
    },
  )
  const deltas = seen.filter((event): event is Delta => event.type === 'step-delta')
  return { result, seen, deltas }
}

describe('a delegate to a remote A2A agent, streamed', () => {
  it('streams the remote task artifact appends as step-delta events when its card streams', async () => {
    // The SDK's own server pieces, appending the answer 16 characters at a time, 60 ms apart.
    agent = await startEchoAgent({ streaming: true, pieces: { size: 16, delayMs: 60 } })
    const { result, seen, deltas } = await delegateTo(agent.cardUrl)
    expect(result.status).toBe('done')
    expect(result.values.answer).toBe(`echo: ${prompt}`)
    expect(agent.methods[0]).toBe('SendStreamingMessage')
    // Several pieces as they came (each one after the last's 50 ms), the agent's wallet on each.
    expect(deltas.length).toBeGreaterThan(2)
    expect(deltas.every((delta) => delta.wallet === analystWallet)).toBe(true)
    expect(deltas.map((delta) => delta.text).join('')).toBe(result.values.answer)
    const finish = seen.find((event) => event.type === 'step-finish')!
    expect(deltas.every((delta) => seen.indexOf(delta) < seen.indexOf(finish))).toBe(true)
    expect(finish).toMatchObject({ firstTextMs: expect.any(Number) })
  })

  it('falls back to SendMessage and polling when the card does not stream, with no deltas', async () => {
    agent = await startEchoAgent({ streaming: false, pieces: { size: 16, delayMs: 10 } })
    const { result, deltas } = await delegateTo(agent.cardUrl)
    expect(result.status).toBe('done')
    expect(result.values.answer).toBe(`echo: ${prompt}`)
    expect(agent.methods[0]).toBe('SendMessage')
    expect(deltas).toEqual([])
  })
})
