import { useMentionableAgents } from '@baton/surface'
import { useState } from 'react'
import { AgentCardView } from './agent-card-view'
import { type AgentFilter, filterAgents } from './filter-agents'
import { RegisterAgentForm } from './register-agent-form'

/** Every registered agent and swarm as a card, with search, filters and the register form. */
export function AgentsView() {
  const agents = useMentionableAgents()
  const [filter, setFilter] = useState<AgentFilter>({ text: '', kind: 'all', trustTier: 'any' })
  const [registering, setRegistering] = useState(false)
  const shown = filterAgents(agents, filter)
  return (
    <section className="stack" aria-labelledby="agents-title">
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <h1 id="agents-title">Agents</h1>
        <button
          type="button"
          onClick={() => setRegistering((open) => !open)}
          aria-expanded={registering}
        >
          {registering ? 'Close the form' : 'Register an agent'}
        </button>
      </div>
      <p className="muted">
        Registered agents are wallet-addressed identities with a card. A coordinator delegates to
        them with a budget; swarms are groups of agents that can be @mentioned like one.
      </p>
      {registering ? <RegisterAgentForm /> : null}
      <div className="row">
        <label className="sr-only" htmlFor="agent-search">
          Search agents
        </label>
        <input
          id="agent-search"
          type="search"
          placeholder="Search by name, capability, model, tool…"
          value={filter.text}
          onChange={(event) => setFilter({ ...filter, text: event.target.value })}
          style={{ flex: '2 1 240px', width: 'auto' }}
        />
        <label className="sr-only" htmlFor="agent-kind">
          Kind
        </label>
        <select
          id="agent-kind"
          value={filter.kind}
          onChange={(event) =>
            setFilter({ ...filter, kind: event.target.value as AgentFilter['kind'] })
          }
          style={{ flex: '1 1 140px', width: 'auto' }}
        >
          <option value="all">Agents and swarms</option>
          <option value="agents">Agents only</option>
          <option value="swarms">Swarms only</option>
          <option value="delegating">Those that delegate</option>
        </select>
        <label className="sr-only" htmlFor="agent-trust">
          Trust tier
        </label>
        <select
          id="agent-trust"
          value={filter.trustTier}
          onChange={(event) =>
            setFilter({ ...filter, trustTier: event.target.value as AgentFilter['trustTier'] })
          }
          style={{ flex: '1 1 120px', width: 'auto' }}
        >
          <option value="any">Any trust tier</option>
          <option value="low">low</option>
          <option value="medium">medium</option>
          <option value="high">high</option>
        </select>
      </div>
      <p className="muted" aria-live="polite">
        {shown.length} of {agents.length} shown
      </p>
      <div className="grid">
        {shown.map((agent) => (
          <AgentCardView key={agent.id} agent={agent} />
        ))}
      </div>
    </section>
  )
}
