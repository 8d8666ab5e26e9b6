export { recordGuardEvent } from './guard-span-events'
export { traceMetadata, withEnvelopeContext } from './trace-metadata'
