import { type Agent, SwarmRole, SwarmStrategy } from '@baton/core'
import { useState } from 'react'
import { serverApi } from '../api/client'
import { refreshDirectory } from '../api/stores'
import { describeError } from '../ui/describe-error'

type Member = { role: (typeof SwarmRole.options)[number]; weight: number }

function slug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
}

/**
 * Creates a swarm on the server (`POST /api/v1/swarms`): a name, a strategy, its members with a
 * role and a weight each, and the consensus threshold. The server checks every member is a
 * registered agent; a refusal is shown in its words.
 */
export function CreateSwarmForm({
  agents,
  onCreated,
}: {
  agents: readonly Agent[]
  onCreated: (swarmId: string) => void
}) {
  const hosted = agents.filter((agent) => !agent.id.startsWith('swarm_'))
  const [name, setName] = useState('')
  const [strategy, setStrategy] = useState<string>('democratic')
  const [threshold, setThreshold] = useState('0.5')
  const [members, setMembers] = useState<Record<string, Member>>({})
  const [status, setStatus] = useState<{ ok: boolean; text: string }>()
  const toggle = (agentId: string, on: boolean) =>
    setMembers((current) => {
      const next = { ...current }
      if (on) next[agentId] = { role: 'worker', weight: 1 }
      else delete next[agentId]
      return next
    })
  return (
    <form
      className="panel stack"
      aria-label="Create a swarm"
      onSubmit={(event) => {
        event.preventDefault()
        const id = slug(name)
        setStatus(undefined)
        serverApi
          .createSwarm({
            id,
            name: name.trim(),
            strategy,
            consensusThreshold: Number(threshold),
            agents: Object.entries(members).map(([agentId, member]) => ({ agentId, ...member })),
          })
          .then(
            async () => {
              await refreshDirectory().catch(() => undefined)
              setStatus({ ok: true, text: `Created the swarm "${name.trim()}" (${id}).` })
              setName('')
              setMembers({})
              onCreated(id)
            },
            (failure: unknown) =>
              setStatus({
                ok: false,
                text: `The swarm was not created: ${describeError(failure)}`,
              }),
          )
      }}
    >
      <h2 style={{ margin: 0, fontSize: '1rem' }}>Create a swarm</h2>
      <div className="row">
        <label htmlFor="swarm-name" style={{ margin: 0 }}>
          Name
        </label>
        <input
          id="swarm-name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          style={{ flex: 1, width: 'auto', minWidth: 160 }}
        />
        <label htmlFor="swarm-strategy" style={{ margin: 0 }}>
          Strategy
        </label>
        <select
          id="swarm-strategy"
          value={strategy}
          onChange={(event) => setStrategy(event.target.value)}
          style={{ width: 'auto' }}
        >
          {SwarmStrategy.options.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
        <label htmlFor="swarm-threshold" style={{ margin: 0 }}>
          Consensus threshold
        </label>
        <input
          id="swarm-threshold"
          type="number"
          min={0}
          max={1}
          step={0.05}
          value={threshold}
          onChange={(event) => setThreshold(event.target.value)}
          style={{ width: '5rem' }}
        />
      </div>
      <fieldset className="stack" style={{ border: 0, padding: 0, margin: 0 }}>
        <legend className="muted">Members</legend>
        {hosted.map((agent) => {
          const member = members[agent.id]
          return (
            <div key={agent.id} className="row">
              <label style={{ margin: 0, minWidth: '10rem' }}>
                <input
                  type="checkbox"
                  checked={member !== undefined}
                  onChange={(event) => toggle(agent.id, event.target.checked)}
                  style={{ width: 'auto', marginRight: 6 }}
                />
                {agent.name}
              </label>
              {member ? (
                <>
                  <select
                    aria-label={`Role of ${agent.name}`}
                    value={member.role}
                    onChange={(event) =>
                      setMembers({
                        ...members,
                        [agent.id]: { ...member, role: event.target.value as Member['role'] },
                      })
                    }
                    style={{ width: 'auto' }}
                  >
                    {SwarmRole.options.map((role) => (
                      <option key={role} value={role}>
                        {role}
                      </option>
                    ))}
                  </select>
                  <input
                    aria-label={`Weight of ${agent.name}`}
                    type="number"
                    min={0}
                    max={1}
                    step={0.1}
                    value={member.weight}
                    onChange={(event) =>
                      setMembers({
                        ...members,
                        [agent.id]: { ...member, weight: Number(event.target.value) },
                      })
                    }
                    style={{ width: '5rem' }}
                  />
                </>
              ) : null}
            </div>
          )
        })}
      </fieldset>
      <div className="row">
        <button type="submit" disabled={!slug(name) || Object.keys(members).length === 0}>
          Create the swarm
        </button>
      </div>
      {status ? (
        <p className={status.ok ? 'muted' : 'error-text'} role={status.ok ? 'status' : 'alert'}>
          {status.text}
        </p>
      ) : null}
    </form>
  )
}
