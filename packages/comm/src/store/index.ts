export type { CommunicationState, CorrelationView } from './communication-state'
export { createCommunicationStore } from './create-communication-store'
export { selectCorrelation, selectOpenEscalations } from './select-correlation'
