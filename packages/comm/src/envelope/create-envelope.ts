import { parseWith } from '@baton/core'
import { Envelope } from './envelope'
import { SendInput } from './send-input'

export type CreateEnvelopeOptions = {
  /** Clock used for `createdAt`; tests inject one. */
  now?: () => number
}

/**
 * Builds a complete envelope from a send input: a fresh id, `createdAt`, hop 0 and a fresh
 * `correlationId` (a new conversation) unless the input carries them.
 *
 * @example
 * const envelope = createEnvelope({ from: { agentId: 'ops' }, to: { agentId: 'analyst' }, content: 'review incidents' })
 * envelope.hop // 0
 */
export function createEnvelope(input: SendInput, options: CreateEnvelopeOptions = {}): Envelope {
  const parsed = parseWith(SendInput, input, 'message')
  const now = options.now ?? Date.now
  return parseWith(
    Envelope,
    {
      id: newId('msg'),
      from: parsed.from,
      to: parsed.to,
      content: parsed.content,
      type: parsed.type ?? 'direct',
      correlationId: parsed.correlationId ?? newId('corr'),
      hop: parsed.hop ?? 0,
      ...(parsed.inReplyTo === undefined ? {} : { inReplyTo: parsed.inReplyTo }),
      createdAt: new Date(now()).toISOString(),
    },
    'envelope',
  )
}

/**
 * A random, collision-safe id with a readable prefix.
 *
 * @example
 * newId('corr') // 'corr_4f0c…'
 */
export function newId(prefix: string): string {
  return `${prefix}_${globalThis.crypto.randomUUID()}`
}
