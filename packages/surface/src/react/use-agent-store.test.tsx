// @vitest-environment happy-dom
import { act, cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { analyst, critic, makeSwarm } from '../__fixtures__/agents'
import { getDefaultBatonStores } from './baton-context'
import { useAdvancedAgentStore } from './use-advanced-agent-store'
import { useAgentStore } from './use-agent-store'
import { useMentionableAgents } from './use-mentionable-agents'

function Roster() {
  const names = useAgentStore((state) => state.agents.map((agent) => agent.name).join(', '))
  const status = useAgentStore((state) => state.status)
  const swarmCount = useAdvancedAgentStore((state) => state.swarms.length)
  const mentionable = useMentionableAgents()
  return (
    <div>
      <output aria-label="names">{names}</output>
      <output aria-label="status">{status}</output>
      <output aria-label="swarms">{swarmCount}</output>
      <output aria-label="mentionable">{mentionable.map((agent) => agent.id).join(' ')}</output>
    </div>
  )
}

afterEach(() => cleanup())

describe('useAgentStore', () => {
  it('uses the module-level default stores without a provider and re-renders on changes', async () => {
    render(<Roster />)
    expect(screen.getByLabelText('status').textContent).toBe('idle')
    const defaults = getDefaultBatonStores()
    await act(async () => {
      await defaults.agents.getState().load(async () => [analyst, critic])
      defaults.swarms.getState().setSwarms([makeSwarm()])
    })
    expect(screen.getByLabelText('names').textContent).toBe('Analyst, Critic')
    expect(screen.getByLabelText('status').textContent).toBe('ready')
    expect(screen.getByLabelText('swarms').textContent).toBe('1')
    expect(screen.getByLabelText('mentionable').textContent).toBe('analyst critic swarm_research')
    await expect(defaults.swarms.getState().startSwarmRun('research', 'go')).rejects.toThrow(
      /no swarm runner/,
    )
  })
})
