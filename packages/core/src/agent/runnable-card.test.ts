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
})
