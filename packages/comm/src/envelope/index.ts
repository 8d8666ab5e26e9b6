export { type CreateEnvelopeOptions, createEnvelope, newId } from './create-envelope'
export { Envelope, EnvelopeId, EnvelopeType, Recipient, Sender } from './envelope'
export { isCompleteEnvelope } from './is-envelope'
export { SendInput } from './send-input'
