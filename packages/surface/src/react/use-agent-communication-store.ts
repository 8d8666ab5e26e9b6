import type { CommunicationState } from '@baton/comm'
import { useStore } from 'zustand'
import { useBatonStores } from './baton-context'

const whole = (state: CommunicationState) => state

/**
 * The `@baton/comm` store of the nearest `<BatonProvider>` (conversations, hop counts,
 * escalations; `allow` / `stop` for a person to answer the loop guard), bound to React.
 *
 * @example
 * const open = useAgentCommunicationStore(selectOpenEscalations)
 */
export function useAgentCommunicationStore(): CommunicationState
export function useAgentCommunicationStore<Selected>(
  selector: (state: CommunicationState) => Selected,
): Selected
export function useAgentCommunicationStore(
  selector?: (state: CommunicationState) => unknown,
): unknown {
  return useStore(useBatonStores().comm, selector ?? whole)
}
