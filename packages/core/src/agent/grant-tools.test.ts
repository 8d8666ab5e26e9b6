import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createBudget } from '../budget'
import { ADA_WALLET, makeAgent } from './__fixtures__/make-agent'
import { grantTools } from './grant-tools'
import { runAgent } from './run-agent'

describe('grantTools', () => {
  it('lists the granted names on a copy of the card, once each, after the card’s own', () => {
    const agent = makeAgent({ tools: ['read_file'] })
    const granted = grantTools(agent, ['ask_caller', 'read_file', 'ask_caller'])
    expect(granted.tools).toEqual(['read_file', 'ask_caller'])
    expect(granted.wallet).toBe(ADA_WALLET)
    expect(agent.tools).toEqual(['read_file'])
  })

  it('gives back the same card when it lists every granted name already', () => {
    const agent = Object.freeze(makeAgent({ tools: ['read_file'] }))
    expect(grantTools(agent, ['read_file'])).toBe(agent)
    expect(grantTools(agent, [])).toBe(agent)
  })

  it('makes a runtime tool callable by the run it is granted to', async () => {
    const extraTools = {
      ask_caller: tool({
        inputSchema: z.object({ question: z.string() }),
        execute: async () => 'the blue one',
      }),
    }
    const result = await runAgent(
      grantTools(makeAgent(), Object.keys(extraTools)),
      '[[tool:ask_caller {"question":"Which?"}]]',
      { budget: createBudget(), extraTools },
    )
    expect(result.text).toContain('ask_caller → the blue one')
  })
})
