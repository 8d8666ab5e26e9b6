export { createInProcessRail } from './create-in-process-rail'
export type { Transport, TransportReceiver } from './transport'
export { TransportError } from './transport-error'
export * from './websocket'
