import { z } from 'zod'
import { Envelope } from '../envelope/envelope'

export const EscalationStatus = z.enum(['open', 'allowed', 'stopped'])
export type EscalationStatus = z.output<typeof EscalationStatus>

/**
 * A chain handed to a person: the conversation passed `maxHops`, so `lastMessage` is held
 * until someone allows more hops or stops the chain.
 */
export const Escalation = z.object({
  id: z.string().min(1),
  correlationId: z.string().min(1),
  /** Hops the conversation had made when it was held. */
  hops: z.number().int().min(0),
  /** Agent ids in the order the conversation visited them, ending with the held recipient. */
  path: z.array(z.string()),
  lastMessage: Envelope,
  status: EscalationStatus,
  createdAt: z.iso.datetime(),
  resolvedAt: z.iso.datetime().optional(),
  /** Why a person stopped the chain. */
  reason: z.string().optional(),
  /** How many more hops a person allowed, the held message included. */
  extraHops: z.number().int().min(1).optional(),
})
export type Escalation = z.output<typeof Escalation>
