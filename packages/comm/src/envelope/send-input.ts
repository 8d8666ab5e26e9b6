import { z } from 'zod'
import { EnvelopeId, EnvelopeType, Recipient, Sender } from './envelope'

/** What `bus.send` takes when the caller lets the bus fill in id, time, hop and correlation. */
export const SendInput = z.object({
  from: Sender,
  to: Recipient,
  content: z.string(),
  type: EnvelopeType.optional(),
  correlationId: z.string().min(1).optional(),
  inReplyTo: EnvelopeId.optional(),
  hop: z.number().int().min(0).optional(),
})
export type SendInput = z.input<typeof SendInput>
