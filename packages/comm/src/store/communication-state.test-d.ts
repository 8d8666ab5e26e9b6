import { describe, expectTypeOf, it } from 'vitest'
import type { StoreApi } from 'zustand/vanilla'
import type { MessageBus } from '../bus/message-bus'
import type { Envelope } from '../envelope/envelope'
import type { Escalation } from '../loop-guard/escalation'
import type { CommunicationState, CorrelationView } from './communication-state'
import { createCommunicationStore } from './create-communication-store'
import { selectCorrelation, selectOpenEscalations } from './select-correlation'

describe('createCommunicationStore types', () => {
  it('gives a zustand store of CommunicationState with the bus actions', () => {
    expectTypeOf(createCommunicationStore).returns.toEqualTypeOf<StoreApi<CommunicationState>>()
    expectTypeOf<CommunicationState['send']>().toEqualTypeOf<MessageBus['send']>()
    expectTypeOf<CommunicationState['allow']>().returns.resolves.toEqualTypeOf<Escalation>()
    expectTypeOf<CorrelationView['messages']>().toEqualTypeOf<readonly Envelope[]>()
  })

  it('types the selectors for useStore', () => {
    expectTypeOf(selectCorrelation('corr_1')).returns.toEqualTypeOf<CorrelationView | undefined>()
    expectTypeOf(selectOpenEscalations).returns.toEqualTypeOf<readonly Escalation[]>()
  })
})
