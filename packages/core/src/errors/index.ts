export { BatonError, type BatonErrorOptions, ValidationError } from './baton-error'
export { redactUrl } from './redact-url'
export { socketFailureOf } from './socket-failure'
