export {
  createServerBatonStores,
  type ServerBatonStores,
} from './create-server-baton-stores'
export {
  type CreateServerCommunicationStoreOptions,
  createServerCommunicationStore,
  type ReplyDraft,
  type ServerCommunicationState,
  type ServerCommunicationStore,
} from './create-server-communication-store'
export { createServerSwarmRunner } from './create-server-swarm-runner'
export {
  type EventStream,
  type EventStreamStatus,
  type OpenEventStreamOptions,
  openEventStream,
} from './open-event-stream'
export { envelopeIn, escalationIn, escalationListIn } from './parse-server-body'
export {
  type RequestJsonOptions,
  requestJson,
  type ServerEndpoint,
} from './request-json'
export { ServerLoopGuardError, ServerRefusedError, ServerUnavailableError } from './server-errors'
