import { describe, expect, it } from 'vitest'
import { ValidationError } from '../errors/baton-error'
import { makeAgent } from './__fixtures__/make-agent'
import { runnableCard } from './runnable-card'

describe('runnableCard', () => {
  it('keeps the checked card of an unchanged plain agent, and checks every change again', () => {
    const agent = makeAgent({ tools: ['lookup'] })
    const first = runnableCard(agent)
    expect(runnableCard(agent)).toBe(first)

    agent.tools.push('search')
    const withTool = runnableCard(agent)
    expect(withTool).not.toBe(first)
    expect(withTool.tools).toEqual(['lookup', 'search'])
    expect(runnableCard(agent)).toBe(withTool)

    agent.tools[1] = 'fetch'
    expect(runnableCard(agent).tools).toEqual(['lookup', 'fetch'])

    const card = agent.agentCard as Record<string, unknown>
    card.region = 'eu'
    expect(runnableCard(agent).agentCard).toMatchObject({ region: 'eu' })
    card.region = 'us'
    expect(runnableCard(agent).agentCard).toMatchObject({ region: 'us' })
    delete card.region
    expect(runnableCard(agent).agentCard).not.toHaveProperty('region')

    agent.persona = 'Terse.'
    expect(runnableCard(agent).persona).toBe('Terse.')
    ;(agent as { maxIterations: number }).maxIterations = 3
    expect(runnableCard(agent).maxIterations).toBe(3)
  })

  it('refuses a plain agent changed into a bad one, naming the field', () => {
    const agent = makeAgent()
    runnableCard(agent)
    ;(agent as { model: string }).model = 'no provider'
    expect(() => runnableCard(agent)).toThrow(ValidationError)
    expect(() => runnableCard(agent)).toThrow(/model/)
    ;(agent as { model: string }).model = 'offline:default'
    ;(agent as { tools: unknown }).tools = [42]
    expect(() => runnableCard(agent)).toThrow(/tools/)
  })

  it('gives a new object with the values of the card checked last that card, and checks any other', () => {
    const agent = makeAgent({ tools: ['lookup'], agentCard: { canDelegate: true } })
    const card = runnableCard(agent)
    // A sub-agent's `{ ...caller, model }`, a host's copy per run: equal values, new objects.
    expect(runnableCard({ ...agent })).toBe(card)
    expect(runnableCard({ ...agent, tools: ['lookup'], agentCard: { ...agent.agentCard } })).toBe(
      card,
    )

    const more = runnableCard({ ...agent, tools: ['lookup', 'search'] })
    expect(more).not.toBe(card)
    expect(more.tools).toEqual(['lookup', 'search'])
    const fewerFields = runnableCard({ ...agent, agentCard: {} } as never)
    expect(fewerFields.agentCard).toEqual({ capabilityDescription: '' })
    const moreFields = runnableCard({
      ...agent,
      agentCard: { canDelegate: true, region: 'eu' },
    } as never)
    expect(moreFields.agentCard).toMatchObject({ canDelegate: true, region: 'eu' })
    expect(runnableCard({ ...agent, agentCard: undefined } as never).agentCard).toBeUndefined()
    expect(runnableCard({ ...agent, model: 'offline:small' }).model).toBe('offline:small')

    // A copy that differs in one bad field is refused, however like the last one it is.
    runnableCard(agent)
    expect(() => runnableCard({ ...agent, wallet: '0x12' })).toThrow(/wallet/)
    expect(() => runnableCard({ ...agent, tools: ['lookup', 7] } as never)).toThrow(/tools/)
  })
})
