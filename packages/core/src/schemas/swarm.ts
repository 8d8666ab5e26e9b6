import { z } from 'zod'
import { TrustTier } from './agent-card'

export const SwarmStrategy = z.enum([
  'hierarchical',
  'democratic',
  'specialist',
  'round-robin',
  'competitive',
  'collaborative',
  'adaptive',
])
export type SwarmStrategy = z.infer<typeof SwarmStrategy>

export const SwarmRole = z.enum(['leader', 'worker', 'critic', 'planner', 'specialist', 'observer'])
export type SwarmRole = z.infer<typeof SwarmRole>

export const SwarmMember = z.object({
  agentId: z.string().min(1, 'must not be empty'),
  role: SwarmRole,
  weight: z.number().min(0).max(1).default(1),
  canInitiate: z.boolean().optional(),
  /** Higher goes first in turns and wins ties (votes, verdicts); default 0, then the listed order. */
  priority: z.number().int().optional(),
  /** May end a collaborative run early (as the leader may). */
  canTerminate: z.boolean().optional(),
})
export type SwarmMember = z.output<typeof SwarmMember>

/** A group of agents that work one task together under a strategy. */
export const AgentSwarm = z
  .object({
    id: z
      .string()
      .min(1, 'must not be empty')
      .regex(/^[A-Za-z0-9_-]+$/, 'may contain only letters, digits, "_" and "-"'),
    name: z.string().min(1, 'must not be empty'),
    description: z.string().optional(),
    strategy: SwarmStrategy,
    agents: z.array(SwarmMember).min(1, 'a swarm needs at least one member'),
    consensusThreshold: z.number().min(0).max(1).default(0.5),
    maxRounds: z.number().int().min(1).default(3),
    /** Members see the run's conclave (its shared entries) in every prompt. */
    sharedContext: z.boolean().optional(),
    /** How members hear each other (default `broadcast`). */
    communication: z.enum(['broadcast', 'direct', 'shared-memory']).optional(),
    /** Every member's agent must be trusted at least this much (checked before the run starts). */
    minTrustTier: TrustTier.optional(),
  })
  .superRefine((swarm, context) => {
    const leaders = swarm.agents.flatMap((member, index) =>
      member.role === 'leader' ? [index] : [],
    )
    if (leaders.length > 1) {
      context.addIssue({
        code: 'custom',
        path: ['agents', leaders[1]!, 'role'],
        message: `a swarm may have one leader; agents[${leaders[0]}] is already the leader`,
      })
    }
    if (swarm.strategy === 'hierarchical' && leaders.length === 0) {
      context.addIssue({
        code: 'custom',
        path: ['agents'],
        message: 'a hierarchical swarm needs a leader',
      })
    }
    const seen = new Map<string, number>()
    swarm.agents.forEach((member, index) => {
      if (seen.has(member.agentId)) {
        context.addIssue({
          code: 'custom',
          path: ['agents', index, 'agentId'],
          message: `"${member.agentId}" is already a member at agents[${seen.get(member.agentId)}]`,
        })
      }
      seen.set(member.agentId, index)
    })
  })
export type AgentSwarm = z.output<typeof AgentSwarm>
export type AgentSwarmInput = z.input<typeof AgentSwarm>
