import { parseWith } from '@baton/core'
import { buildEnvelope } from './build-envelope'
import type { Envelope } from './envelope'
import { SendInput } from './send-input'

export { newId } from './new-id'

export type CreateEnvelopeOptions = {
  /** Clock used for `createdAt`; tests inject one. */
  now?: () => number
}

/**
 * Builds a complete envelope from a send input: a fresh id, `createdAt`, hop 0 and a fresh
 * `correlationId` (a new conversation) unless the input carries them. The input is checked
 * once; the envelope is built valid and frozen.
 *
 * @example
 * const envelope = createEnvelope({ from: { agentId: 'ops' }, to: { agentId: 'analyst' }, content: 'review incidents' })
 * envelope.hop // 0
 */
export function createEnvelope(input: SendInput, options: CreateEnvelopeOptions = {}): Envelope {
  return buildEnvelope(parseWith(SendInput, input, 'message'), options.now ?? Date.now)
}
