import { type Agent, type AgentSwarm, SwarmRole, SwarmStrategy } from '@baton/core'
import { useId, useState } from 'react'
import { serverApi } from '../api/client'
import { refreshDirectory } from '../api/stores'
import { describeError } from '../ui/describe-error'

type Member = Omit<AgentSwarm['agents'][number], 'agentId'>

function slug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
}

const pair = { flexWrap: 'nowrap', gap: '0.4rem' } as const

function membersOf(swarm: AgentSwarm | undefined): Record<string, Member> {
  return Object.fromEntries(
    (swarm?.agents ?? []).map(({ agentId, ...member }) => [agentId, member] as const),
  )
}

/**
 * Creates a swarm on the server (`POST /api/v1/swarms`) or, given `swarm`, changes that one
 * (`PATCH /api/v1/swarms/:id`; its id stays): a name, a description, a strategy, its members
 * with a role and a weight each, the consensus threshold and the most rounds. The server checks
 * every member is a registered agent; a refusal is shown once, in its words, naming the field.
 */
export function SwarmForm({
  agents,
  swarm,
  onSaved,
  onCancel,
}: {
  agents: readonly Agent[]
  /** The swarm to edit; a new one is created without it. */
  swarm?: AgentSwarm
  /** Called with the saved swarm's id and name once the server stored it. */
  onSaved: (swarmId: string, name: string) => void
  onCancel?: () => void
}) {
  const editing = swarm !== undefined
  const fieldId = useId()
  const hosted = agents.filter((agent) => !agent.id.startsWith('swarm_'))
  // A member whose agent is gone (revoked) is still listed, so it can be taken out.
  const listed = [
    ...hosted.map((agent) => ({ id: agent.id, name: agent.name })),
    ...(swarm?.agents ?? [])
      .filter((member) => !hosted.some((agent) => agent.id === member.agentId))
      .map((member) => ({ id: member.agentId, name: member.agentId })),
  ]
  const [name, setName] = useState(swarm?.name ?? '')
  const [description, setDescription] = useState(swarm?.description ?? '')
  const [strategy, setStrategy] = useState<string>(swarm?.strategy ?? 'democratic')
  const [threshold, setThreshold] = useState(String(swarm?.consensusThreshold ?? 0.5))
  const [maxRounds, setMaxRounds] = useState(String(swarm?.maxRounds ?? 3))
  const [members, setMembers] = useState<Record<string, Member>>(() => membersOf(swarm))
  const [status, setStatus] = useState<{ ok: boolean; text: string }>()
  const [saving, setSaving] = useState(false)
  const toggle = (agentId: string, on: boolean) =>
    setMembers((current) => {
      const next = { ...current }
      if (on) next[agentId] = membersOf(swarm)[agentId] ?? { role: 'worker', weight: 1 }
      else delete next[agentId]
      return next
    })
  const setMember = (agentId: string, member: Member) =>
    setMembers((current) => ({ ...current, [agentId]: member }))

  const save = async () => {
    const fields = {
      name: name.trim(),
      strategy,
      consensusThreshold: Number(threshold),
      maxRounds: Number(maxRounds),
      agents: Object.entries(members).map(([agentId, member]) => ({ agentId, ...member })),
    }
    setStatus(undefined)
    setSaving(true)
    try {
      let id: string
      if (swarm) {
        id = swarm.id
        // An emptied description is cleared (null), not stored as "".
        await serverApi.updateSwarm(id, { ...fields, description: description.trim() || null })
      } else {
        id = slug(name)
        await serverApi.createSwarm({
          id,
          ...fields,
          ...(description.trim() ? { description: description.trim() } : {}),
        })
      }
      await refreshDirectory().catch(() => undefined)
      setStatus({
        ok: true,
        text: swarm
          ? `Saved the swarm "${fields.name}".`
          : `Created the swarm "${fields.name}" (${id}).`,
      })
      if (!swarm) {
        setName('')
        setDescription('')
        setMembers({})
      }
      onSaved(id, fields.name)
    } catch (failure) {
      setStatus({
        ok: false,
        text: `The swarm was not ${swarm ? 'saved' : 'created'}: ${describeError(failure)}`,
      })
    } finally {
      setSaving(false)
    }
  }

  const title = swarm ? `Edit ${swarm.name}` : 'Create a swarm'
  return (
    <form
      className="panel stack"
      aria-label={swarm ? 'Edit the swarm' : 'Create a swarm'}
      onSubmit={(event) => {
        event.preventDefault()
        void save()
      }}
    >
      <h2 style={{ margin: 0, fontSize: '1rem' }}>
        {title}
        {swarm ? <span className="muted"> (id {swarm.id}, which stays)</span> : null}
      </h2>
      <div className="row">
        {/* Each label keeps to its control when the row wraps (on a phone). */}
        <span className="row" style={{ ...pair, flex: '1 1 16rem' }}>
          <label htmlFor={`${fieldId}-name`} style={{ margin: 0 }}>
            Name
          </label>
          <input
            id={`${fieldId}-name`}
            value={name}
            onChange={(event) => setName(event.target.value)}
            style={{ flex: 1, width: 'auto', minWidth: 0 }}
          />
        </span>
        <span className="row" style={pair}>
          <label htmlFor={`${fieldId}-strategy`} style={{ margin: 0 }}>
            Strategy
          </label>
          <select
            id={`${fieldId}-strategy`}
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
        </span>
        <span className="row" style={pair}>
          <label htmlFor={`${fieldId}-threshold`} style={{ margin: 0 }}>
            Consensus threshold
          </label>
          <input
            id={`${fieldId}-threshold`}
            type="number"
            min={0}
            max={1}
            step={0.05}
            value={threshold}
            onChange={(event) => setThreshold(event.target.value)}
            style={{ width: '5rem' }}
          />
        </span>
        <span className="row" style={pair}>
          <label htmlFor={`${fieldId}-rounds`} style={{ margin: 0 }}>
            Most rounds
          </label>
          <input
            id={`${fieldId}-rounds`}
            type="number"
            min={1}
            step={1}
            value={maxRounds}
            onChange={(event) => setMaxRounds(event.target.value)}
            style={{ width: '4.5rem' }}
          />
        </span>
      </div>
      <div className="row">
        <span className="row" style={{ ...pair, flex: '1 1 16rem' }}>
          <label htmlFor={`${fieldId}-description`} style={{ margin: 0 }}>
            Description
          </label>
          <input
            id={`${fieldId}-description`}
            value={description}
            onChange={(event) => setDescription(event.target.value)}
            placeholder="What the swarm is for (optional)"
            style={{ flex: 1, width: 'auto', minWidth: 0 }}
          />
        </span>
      </div>
      <fieldset className="stack" style={{ border: 0, padding: 0, margin: 0 }}>
        <legend className="muted">Members</legend>
        {listed.map((agent) => {
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
                // Role and weight stay on one line, even on a phone.
                <span className="row" style={{ flexWrap: 'nowrap' }}>
                  <select
                    aria-label={`Role of ${agent.name}`}
                    value={member.role}
                    onChange={(event) =>
                      setMember(agent.id, { ...member, role: event.target.value as Member['role'] })
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
                      setMember(agent.id, { ...member, weight: Number(event.target.value) })
                    }
                    style={{ width: '5rem' }}
                  />
                </span>
              ) : null}
            </div>
          )
        })}
      </fieldset>
      <div className="row">
        <button type="submit" disabled={saving || !slug(name) || Object.keys(members).length === 0}>
          {swarm ? 'Save the swarm' : 'Create the swarm'}
        </button>
        {onCancel ? (
          <button type="button" className="ghost" onClick={onCancel}>
            {editing ? 'Stop editing' : 'Cancel'}
          </button>
        ) : null}
      </div>
      {status ? (
        <p className={status.ok ? 'muted' : 'error-text'} role={status.ok ? 'status' : 'alert'}>
          {status.text}
        </p>
      ) : null}
    </form>
  )
}
