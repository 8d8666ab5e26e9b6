import { z } from 'zod'

/** The seed systems' trust tiers, lowest first; a minimum tier admits every tier above it. */
export const TrustTier = z.enum(['safe', 'low', 'medium', 'high', 'critical'])
export type TrustTier = z.infer<typeof TrustTier>

/** What an agent tells others about itself (published at the A2A well-known path). */
export const AgentCard = z.object({
  tagline: z.string().max(200).default(''),
  capabilityDescription: z.string().default(''),
  trustTier: TrustTier.default('low'),
  canDelegate: z.boolean().default(false),
  a2aVersion: z.string().default('0.3.0'),
  examples: z.array(z.string()).default([]),
})
export type AgentCard = z.output<typeof AgentCard>
export type AgentCardInput = z.input<typeof AgentCard>
