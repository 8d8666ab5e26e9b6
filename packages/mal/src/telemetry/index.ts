export { recordSwarmEvent } from './swarm-span-events'
export { type WorkflowSpanOptions, withWorkflowSpan } from './workflow-span'
