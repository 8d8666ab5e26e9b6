import type { Escalation } from '../loop-guard/escalation'
import type { CommunicationState, CorrelationView } from './communication-state'

/**
 * A selector for one conversation: its value changes identity only when that conversation
 * changes, so a component bound to it does not re-render for the others.
 *
 * @example
 * const view = useStore(store, selectCorrelation(correlationId))
 */
export function selectCorrelation(
  correlationId: string,
): (state: CommunicationState) => CorrelationView | undefined {
  return (state) => state.correlations.get(correlationId)
}

/**
 * Selects the open escalations, as a stable array while they do not change.
 *
 * @example
 * const open = useStore(store, selectOpenEscalations)
 */
export const selectOpenEscalations = memoizeOn(
  (state: CommunicationState) => state.escalations,
  (escalations): readonly Escalation[] =>
    escalations.filter((escalation) => escalation.status === 'open'),
)

function memoizeOn<Input, Output>(
  pick: (state: CommunicationState) => Input,
  compute: (input: Input) => Output,
): (state: CommunicationState) => Output {
  let lastInput: Input | undefined
  let lastOutput: Output | undefined
  return (state) => {
    const input = pick(state)
    if (lastOutput === undefined || input !== lastInput) {
      lastInput = input
      lastOutput = compute(input)
    }
    return lastOutput
  }
}
