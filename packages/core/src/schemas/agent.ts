import { z } from 'zod'
import { AgentCard } from './agent-card'
import { Wallet } from './wallet'

export const AgentType = z.enum(['orchestrator', 'worker', 'specialist', 'reviewer', 'assistant'])
export type AgentType = z.infer<typeof AgentType>

export const AgentStatus = z.enum(['idle', 'running', 'paused', 'error'])
export type AgentStatus = z.infer<typeof AgentStatus>

/** A URL-safe identifier: lowercase letters, digits, `-` and `_`, starting with a letter or digit. */
export const Slug = z
  .string()
  .min(1, 'must not be empty')
  .max(64)
  .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be a slug (lowercase letters, digits, "-" and "_")')

/** What a `ModelRef` matches (a model registry tells a good reference by it without zod). */
export const MODEL_REF_PATTERN = /^[a-z][a-z0-9-]*:\S+$/

/** `provider:model-id`, e.g. `offline:default` or `openai:gpt-4o-mini`. */
export const ModelRef = z
  .string()
  .regex(MODEL_REF_PATTERN, 'must be "provider:model-id" (e.g. "offline:default")')
export type ModelRef = z.infer<typeof ModelRef>

const Timestamp = z.union([
  z.string().datetime({ offset: true }),
  z.date().transform((d) => d.toISOString()),
])

/** A registered, wallet-addressed agent. */
export const Agent = z
  .object({
    id: Slug,
    wallet: Wallet,
    creator: Wallet,
    name: z.string().min(1, 'must not be empty').max(120),
    description: z.string().default(''),
    type: AgentType,
    model: ModelRef,
    provider: z.string().min(1).optional(),
    capabilities: z.array(z.string()).default([]),
    tools: z.array(z.string()).default([]),
    persona: z.string().optional(),
    // Left out, an agent remembers on its own (its wallet); agents share memory only when
    // their cards name the same scope.
    memoryScope: z.string().min(1).optional(),
    maxIterations: z.number().int().min(1).max(100).default(8),
    temperature: z.number().min(0).max(2).default(0.2),
    status: AgentStatus.default('idle'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    config: z.record(z.string(), z.unknown()).default({}),
    // Agents are called over HTTP; other schemes (javascript:, file:, ftp:) are never endpoints.
    endpoint: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    // A factory, so that no two agents share (and mutate) one default card's arrays.
    agentCard: AgentCard.default(() => AgentCard.parse({})),
  })
  .transform((agent) => ({
    ...agent,
    provider: agent.provider ?? agent.model.split(':')[0]!,
    memoryScope: agent.memoryScope ?? agent.wallet,
  }))
  .superRefine((agent, context) => {
    if (agent.provider !== agent.model.split(':')[0]) {
      context.addIssue({
        code: 'custom',
        path: ['provider'],
        message: `must match the provider of model "${agent.model}"`,
      })
    }
  })
export type Agent = z.output<typeof Agent>
export type AgentInput = z.input<typeof Agent>
