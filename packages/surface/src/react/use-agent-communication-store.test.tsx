// @vitest-environment happy-dom
import { type Envelope, selectOpenEscalations } from '@baton/comm'
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { analyst, critic, opsOrchestrator } from '../__fixtures__/agents'
import { createDelegation } from '../delegation/create-delegation'
import { type BatonStores, createBatonStores } from '../stores/create-baton-stores'
import { BatonProvider } from './baton-provider'
import { useAgentCommunicationStore } from './use-agent-communication-store'

/** What a person sees of the loop guard: open escalations, with Allow and Stop. */
function Escalations() {
  const open = useAgentCommunicationStore(selectOpenEscalations)
  const { allow, stop } = useAgentCommunicationStore()
  return (
    <ul>
      {open.map((escalation) => (
        <li key={escalation.id}>
          <span>{`${escalation.path.join(' → ')} after ${escalation.hops} hops`}</span>
          <button type="button" onClick={() => allow(escalation.id, 1)}>
            allow
          </button>
          <button type="button" onClick={() => stop(escalation.id, 'enough')}>
            stop
          </button>
        </li>
      ))}
    </ul>
  )
}

let stores: BatonStores | undefined
afterEach(async () => {
  cleanup()
  await stores?.bus.close()
  stores = undefined
})

async function escalateChain() {
  stores = createBatonStores({
    agents: [analyst, critic, opsOrchestrator],
    busOptions: { loopGuard: { maxHops: 2 } },
  })
  const delivered: Envelope[] = []
  stores.bus.subscribe('critic', (envelope) => {
    delivered.push(envelope)
  })
  render(
    <BatonProvider stores={stores}>
      <Escalations />
    </BatonProvider>,
  )
  const delegation = createDelegation(stores)
  const first = await delegation.delegate('analyst', 'ops', 'pass it on')
  let message = first.envelope!
  for (const next of ['critic', 'analyst']) {
    message = (await delegation.forward(message, next)).envelope!
  }
  let held: Awaited<ReturnType<typeof delegation.forward>> | undefined
  await act(async () => {
    held = await delegation.forward(message, 'critic')
  })
  return { delivered, held: held!, correlationId: first.correlationId! }
}

describe('useAgentCommunicationStore', () => {
  it('shows an escalation, and allowing it delivers the held message', async () => {
    const { delivered, held, correlationId } = await escalateChain()
    // Held, not lost: the result says so, and names the escalation a person decides on.
    expect(held).toMatchObject({
      success: true,
      held: true,
      escalationId: stores!.bus.escalations()[0]?.id,
    })
    expect(screen.getByText('analyst → ops → critic → analyst → critic after 2 hops')).toBeTruthy()
    expect(delivered.map((envelope) => envelope.hop)).toEqual([1])
    await act(async () => {
      fireEvent.click(screen.getByText('allow'))
    })
    await waitFor(() => expect(screen.queryByText('allow')).toBeNull())
    expect(delivered.map((envelope) => envelope.hop)).toEqual([1, 3])
    expect(delivered[1]?.correlationId).toBe(correlationId)
  })

  it('stopping an escalation ends the chain', async () => {
    const { correlationId } = await escalateChain()
    await act(async () => {
      fireEvent.click(screen.getByText('stop'))
    })
    await waitFor(() => expect(screen.queryByText('stop')).toBeNull())
    const held = stores!.bus.history(correlationId).at(-1)!
    const delegation = createDelegation(stores!)
    const after = await delegation.forward(held, 'critic')
    expect(after).toMatchObject({ success: false, errorCode: 'LOOP_GUARD_STOPPED' })
    expect(after.message).toContain('enough')
  })
})
