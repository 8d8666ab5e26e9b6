import { z } from 'zod'

/** The seed systems' trust tiers, lowest first; a minimum tier admits every tier above it. */
export const TrustTier = z.enum(['safe', 'low', 'medium', 'high', 'critical'])
export type TrustTier = z.infer<typeof TrustTier>

// A JSON Schema Baton can check values against (zod's fromJSONSchema reads it).
const JsonSchema = z.record(z.string(), z.unknown()).superRefine((schema, context) => {
  try {
    z.fromJSONSchema(schema as never)
  } catch (error) {
    context.addIssue({
      code: 'custom',
      message: `must be a JSON Schema Baton can check (${(error as Error).message})`,
    })
  }
})

/** What an agent tells others about itself (published at the A2A well-known path). */
export const AgentCard = z.object({
  tagline: z.string().max(200).default(''),
  capabilityDescription: z.string().default(''),
  trustTier: TrustTier.default('low'),
  canDelegate: z.boolean().default(false),
  a2aVersion: z.string().default('0.3.0'),
  examples: z.array(z.string()).default([]),
  /** JSON Schema of what the agent takes: a delegation or A2A message is checked against it first. */
  inputSchema: JsonSchema.optional(),
  /** JSON Schema of what the agent answers (asked of its model as structured output). */
  outputSchema: JsonSchema.optional(),
})
export type AgentCard = z.output<typeof AgentCard>
export type AgentCardInput = z.input<typeof AgentCard>
