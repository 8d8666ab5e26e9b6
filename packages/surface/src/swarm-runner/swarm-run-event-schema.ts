import { z } from 'zod'

const RunError = z.object({ code: z.string(), message: z.string() })

const Outcome = z.looseObject({
  status: z.enum(['done', 'failed', 'cancelled']),
  output: z.string(),
  usage: z.object({ calls: z.number(), tokens: z.number(), costUsd: z.number() }).optional(),
  error: RunError.optional(),
})

/** A swarm run event as it arrives over the wire; unknown extra fields are kept. */
export const SwarmRunEventSchema = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('swarm-start'),
    runId: z.string(),
    swarmId: z.string(),
    strategy: z.string().optional(),
    task: z.string(),
  }),
  z.looseObject({ type: z.literal('round-start'), runId: z.string(), round: z.number() }),
  z.looseObject({
    type: z.literal('swarm-message'),
    runId: z.string(),
    round: z.number(),
    kind: z.string(),
    agentId: z.string(),
    content: z.string(),
    weight: z.number().optional(),
  }),
  z.looseObject({
    type: z.literal('round-finish'),
    runId: z.string(),
    round: z.number(),
    consensusReached: z.boolean().optional(),
  }),
  z.looseObject({
    type: z.literal('step-delta'),
    runId: z.string(),
    round: z.number(),
    path: z.string(),
    agentId: z.string(),
    wallet: z.string().optional(),
    kind: z.string().optional(),
    text: z.string(),
  }),
  z.looseObject({ type: z.literal('swarm-finish'), runId: z.string(), result: Outcome }),
  z.looseObject({ type: z.literal('swarm-error'), runId: z.string(), error: RunError }),
])
