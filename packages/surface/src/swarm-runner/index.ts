export {
  type CreateHttpSwarmRunnerOptions,
  createHttpSwarmRunner,
} from './create-http-swarm-runner'
export { readServerSentEvents, type ServerSentEvent } from './read-server-sent-events'
export { SwarmRunEventSchema } from './swarm-run-event-schema'
export { SwarmRunRefusedError, SwarmServerError } from './swarm-runner-errors'
export type { SwarmRunEvent, SwarmRunner, SwarmRunOutcome } from './types'
