import { z } from 'zod'

/** Who sent an envelope: the agent id, plus its display name and role when known. */
export const Sender = z.object({
  agentId: z.string().min(1),
  agentName: z.string().optional(),
  agentRole: z.string().optional(),
})
export type Sender = z.output<typeof Sender>

/** Who an envelope is addressed to. */
export const Recipient = z.object({ agentId: z.string().min(1) })
export type Recipient = z.output<typeof Recipient>

/**
 * An envelope id: letters, digits and `_ - . : @ + = ~ /`, at most 256 characters. Ids are
 * written into the `id:` lines of event streams and into URLs, so they never carry a space,
 * a control character or a line break.
 */
export const EnvelopeId = z
  .string()
  .min(1)
  .max(256)
  .regex(
    /^[A-Za-z0-9_.:@+=~/-]+$/,
    'must be letters, digits and "_ - . : @ + = ~ /" only (no spaces or line breaks)',
  )

export const EnvelopeType = z.enum(['direct', 'broadcast', 'reply', 'escalation'])
export type EnvelopeType = z.output<typeof EnvelopeType>

/**
 * One A2A message on the bus. `correlationId` names the conversation (a forward and a reply
 * keep it); `hop` counts how many times the conversation has been passed on.
 */
export const Envelope = z.object({
  id: EnvelopeId,
  from: Sender,
  to: Recipient,
  content: z.string(),
  type: EnvelopeType,
  correlationId: z.string().min(1),
  hop: z.number().int().min(0),
  inReplyTo: EnvelopeId.optional(),
  createdAt: z.iso.datetime(),
  signature: z
    .string()
    .regex(/^0x[0-9a-fA-F]+$/, 'expected a 0x-prefixed hex signature')
    .optional(),
  /**
   * Transport data, outside the signature: the sender's trace context (W3C `traceparent`,
   * `tracestate`), so the receiver's work continues the sender's trace on every rail.
   */
  metadata: z.record(z.string().max(64), z.string().max(512)).optional(),
})
export type Envelope = z.output<typeof Envelope>
