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

export const EnvelopeType = z.enum(['direct', 'broadcast', 'reply', 'escalation'])
export type EnvelopeType = z.output<typeof EnvelopeType>

/**
 * One A2A message on the bus. `correlationId` names the conversation (a forward and a reply
 * keep it); `hop` counts how many times the conversation has been passed on.
 */
export const Envelope = z.object({
  id: z.string().min(1),
  from: Sender,
  to: Recipient,
  content: z.string(),
  type: EnvelopeType,
  correlationId: z.string().min(1),
  hop: z.number().int().min(0),
  inReplyTo: z.string().min(1).optional(),
  createdAt: z.iso.datetime(),
  signature: z
    .string()
    .regex(/^0x[0-9a-fA-F]+$/, 'expected a 0x-prefixed hex signature')
    .optional(),
})
export type Envelope = z.output<typeof Envelope>
