// @vitest-environment happy-dom

import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { useState } from 'react'
import { afterEach, describe, expect, it } from 'vitest'
import { analyst, critic, makeSwarm, ops, opsOrchestrator } from '../__fixtures__/agents'
import { inProcessRunnerFor } from '../__fixtures__/swarm-runner'
import type { DelegationResult } from '../delegation/types'
import { parseMentions } from '../mentions/parse-mentions'
import { type BatonStores, createBatonStores } from '../stores/create-baton-stores'
import type { SwarmRunner } from '../swarm-runner/types'
import { BatonProvider } from './baton-provider'
import { useA2ADelegation } from './use-a2a-delegation'
import { useAgentCommunicationStore } from './use-agent-communication-store'
import { useMentionableAgents } from './use-mentionable-agents'
import { useSwarmRun } from './use-swarm-run'

/** A chat box: the person types `@Someone task`, the first mention gets the task. */
function Chat({ from }: { from: string }) {
  const { delegate } = useA2ADelegation()
  const mentionable = useMentionableAgents()
  const [text, setText] = useState('')
  const [result, setResult] = useState<DelegationResult | null>(null)
  const run = useSwarmRun(result?.runId)
  const conversations = useAgentCommunicationStore((state) => state.correlations.size)
  const submit = async () => {
    const { targets, task } = parseMentions(text, mentionable)
    // No known mention: address the first word anyway, so unknown ids reach `delegate`.
    const [, unknownId = '', rest = ''] = /^@?(\S+)\s*(.*)$/s.exec(text) ?? []
    const result = targets[0]
      ? await delegate(from, targets[0].id, task)
      : await delegate(from, unknownId, rest || 'nothing')
    setResult(result)
  }
  return (
    <div>
      <input aria-label="message" value={text} onChange={(event) => setText(event.target.value)} />
      <button type="button" onClick={submit}>
        send
      </button>
      <output aria-label="result">{result ? JSON.stringify(result) : ''}</output>
      <output aria-label="run">
        {run
          ? `${run.status}: ${run.status === 'failed' ? run.error?.message : (run.output ?? '')}`
          : 'no run'}
      </output>
      <output aria-label="conversations">{conversations}</output>
    </div>
  )
}

const stores: BatonStores[] = []
afterEach(async () => {
  cleanup()
  await Promise.all(stores.splice(0).map((created) => created.bus.close()))
})

function renderChat(options: { runner?: SwarmRunner; from?: string } = {}) {
  const created = createBatonStores({
    agents: [analyst, critic, ops, opsOrchestrator],
    swarms: [makeSwarm()],
    runner: options.runner ?? (({ swarms }) => inProcessRunnerFor(() => swarms)),
  })
  stores.push(created)
  render(
    <BatonProvider stores={created}>
      <Chat from={options.from ?? 'analyst'} />
    </BatonProvider>,
  )
  return created
}

async function send(text: string): Promise<DelegationResult> {
  fireEvent.change(screen.getByLabelText('message'), { target: { value: text } })
  await act(async () => {
    fireEvent.click(screen.getByText('send'))
  })
  const output = await waitFor(() => {
    const value = screen.getByLabelText('result').textContent
    expect(value).not.toBe('')
    return value!
  })
  return JSON.parse(output) as DelegationResult
}

describe('useA2ADelegation', () => {
  it('reports a target that is not found and sends nothing', async () => {
    const created = renderChat()
    const result = await send('@nobody do it')
    expect(result).toMatchObject({ success: false, errorCode: 'AGENT_NOT_FOUND' })
    expect(result.message).toContain('"nobody"')
    expect(created.bus.correlations()).toEqual([])
  })

  it('starts nothing for a malformed swarm id', async () => {
    const created = renderChat()
    const result = await send('swarm_bad!id')
    expect(result).toMatchObject({ success: false, errorCode: 'INVALID_SWARM_ID' })
    expect(created.swarms.getState().runs).toEqual({})
  })

  it('reports a swarm run as started, and then its failure with the reason', async () => {
    renderChat()
    // The offline model fails on this directive: the first member fails in round 1.
    const result = await send('@Research Swarm go [[fail:the analyst model is down]]')
    // success only says the run started; its outcome follows in useSwarmRun.
    expect(result).toMatchObject({ success: true, route: 'swarm' })
    await waitFor(() =>
      expect(screen.getByLabelText('run').textContent).toBe('failed: the analyst model is down'),
    )
  })

  it('reports the error when a swarm run fails to start, leaving no run', async () => {
    const created = renderChat({
      runner: {
        start: () => Promise.reject(new Error('no capacity for swarms')),
        subscribe: () => () => {},
      },
    })
    const result = await send('@Research Swarm go')
    expect(result).toMatchObject({ success: false })
    expect(result.message).toContain('no capacity for swarms')
    expect(created.swarms.getState().runs).toEqual({})
    expect(screen.getByLabelText('run').textContent).toBe('no run')
  })

  it('puts a direct A2A message on the bus for an agent that can delegate', async () => {
    const created = renderChat()
    const result = await send('@Ops Orchestrator review yesterday’s incidents')
    expect(result).toMatchObject({ success: true, delegatedTo: 'ops', route: 'message' })
    const history = created.bus.history(result.correlationId!)
    expect(history).toEqual([
      expect.objectContaining({
        type: 'direct',
        hop: 0,
        from: expect.objectContaining({ agentId: 'analyst' }),
        to: { agentId: 'ops' },
        content: 'review yesterday’s incidents',
      }),
    ])
    await waitFor(() => expect(screen.getByLabelText('conversations').textContent).toBe('1'))
  })

  it('runs a swarm with the in-process runner and shows its events as they arrive', async () => {
    const created = renderChat()
    const result = await send('@Research Swarm summarise the churn numbers')
    expect(result).toMatchObject({ success: true, delegatedTo: 'swarm:research', route: 'swarm' })
    await waitFor(
      () => expect(screen.getByLabelText('run').textContent).toMatch(/^done: .*churn/),
      {
        timeout: 20_000,
      },
    )
    const events = created.swarms.getState().runs[result.runId!]!.events
    expect(events[0]?.type).toBe('swarm-start')
    expect(events.at(-1)?.type).toBe('swarm-finish')
  })

  it('reports the bus refusing the message (loop guard) as a failure, not a success', async () => {
    const created = renderChat({ from: 'ops' })
    const result = await send('@Ops Orchestrator talk to yourself')
    expect(result).toMatchObject({ success: false, errorCode: 'LOOP_GUARD_SELF' })
    expect(result.delegatedTo).toBeUndefined()
    expect(result.message).toMatch(/^Could not send the task to Ops Orchestrator: /)
    expect(created.bus.correlations()).toEqual([])
  })

  it('routes nothing for a regular agent', async () => {
    const created = renderChat()
    const result = await send('@Critic check the draft')
    expect(result).toEqual({
      success: true,
      delegatedTo: 'critic',
      route: 'direct',
      message: 'Critic does not delegate; run the task with it directly.',
    })
    expect(created.bus.correlations()).toEqual([])
    expect(created.swarms.getState().runs).toEqual({})
  })
})
