export { createEmitter, type Emitter } from './create-emitter'
export { createMessageBus } from './create-message-bus'
export { DeliveryError } from './delivery-error'
export type {
  MessageBus,
  MessageBusEvents,
  MessageBusOptions,
  MessageHandler,
} from './message-bus'
export { MessageBusClosedError } from './message-bus-closed-error'
export { DEFAULT_RETENTION, type RetentionOptions } from './message-history'
