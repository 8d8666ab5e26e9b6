export { recordSwarmEvent } from './swarm-span-events'
export { withTraceHeaders } from './trace-headers'
export { type WorkflowSpanOptions, withWorkflowSpan } from './workflow-span'
