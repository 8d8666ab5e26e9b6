import { createStaticRegistry } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { agentRecord, analystWallet } from '../__fixtures__/agents'
import { withGrantedTools } from './with-granted-tools'

describe('withGrantedTools', () => {
  it('lists the granted names on a frozen copy and leaves the registry’s agent as it was', async () => {
    const registry = createStaticRegistry([agentRecord({ tools: ['lookup'] })])
    const agent = await registry.ensureRegisteredAgent(analystWallet)
    const granted = withGrantedTools(agent, ['conclave_read', 'lookup', 'conclave_read'])
    expect(granted.tools).toEqual(['lookup', 'conclave_read'])
    expect(Object.isFrozen(granted)).toBe(true)
    expect(agent.tools).toEqual(['lookup'])
    expect(Object.isFrozen(agent)).toBe(true)
    // The same names give the same card, so its check is kept between runs.
    expect(withGrantedTools(agent, ['conclave_read'])).toBe(granted)
  })

  it('returns the agent itself when its card lists every name already', async () => {
    const registry = createStaticRegistry([agentRecord({ tools: ['lookup'] })])
    const agent = await registry.ensureRegisteredAgent(analystWallet)
    expect(withGrantedTools(agent, ['lookup'])).toBe(agent)
    expect(withGrantedTools(agent, [])).toBe(agent)
  })

  it('tells grants apart when one agent is granted different names in turn', async () => {
    const registry = createStaticRegistry([agentRecord({ tools: ['lookup'] })])
    const agent = await registry.ensureRegisteredAgent(analystWallet)
    const names = ['conclave_read', 'conclave_write']
    const both = withGrantedTools(agent, names)
    const one = withGrantedTools(agent, ['conclave_read'])
    expect(one.tools).toEqual(['lookup', 'conclave_read'])
    expect(withGrantedTools(agent, [...names])).toBe(both)
    // The caller's array changed after the grant: the grant follows what it holds now.
    names.pop()
    expect(withGrantedTools(agent, names)).toBe(one)
    expect(withGrantedTools(agent, ['conclave_write']).tools).toEqual(['lookup', 'conclave_write'])
  })
})
