import type { Agent } from '@baton/core'
import { describe, expectTypeOf, it } from 'vitest'
import type { AgentStoreState } from '../agent-store/create-agent-store'
import type { DelegationResult } from '../delegation/types'
import type { useA2ADelegation } from './use-a2a-delegation'
import { useAdvancedAgentStore } from './use-advanced-agent-store'
import { useAgentStore } from './use-agent-store'

// Checked by `tsc` (typecheck); the hooks are never called here.
describe('hook types', () => {
  it('returns the whole state without a selector and the selected value with one', () => {
    expectTypeOf<ReturnType<typeof useAgentStore<Agent[]>>>().toEqualTypeOf<Agent[]>()
    // Overloads: ReturnType sees only the last one, so check the no-selector form by assignment.
    const whole: () => AgentStoreState = useAgentStore
    expectTypeOf(whole).returns.toEqualTypeOf<AgentStoreState>()
    expectTypeOf(useAdvancedAgentStore<number>).returns.toEqualTypeOf<number>()
  })

  it('delegate resolves with a DelegationResult', () => {
    expectTypeOf<ReturnType<ReturnType<typeof useA2ADelegation>['delegate']>>().toEqualTypeOf<
      Promise<DelegationResult>
    >()
  })
})
