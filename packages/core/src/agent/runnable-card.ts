import { z } from 'zod'
import type { Agent } from '../schemas'
import { AgentType, ModelRef } from '../schemas/agent'
import { parseWith } from '../schemas/parse'
import { Wallet } from '../schemas/wallet'
import { buildSystemPrompt } from './build-system-prompt'

// Only what a run reads is checked, so callers may pass cards with fields added later.
const RunnableAgent = z.object({
  name: z.string().min(1),
  type: AgentType,
  wallet: Wallet,
  model: ModelRef,
  tools: z.array(z.string()).default([]),
  persona: z.string().optional(),
  memoryScope: z.string().min(1).optional(),
  maxIterations: z.number().int().min(1).default(8),
  temperature: z.number().min(0).max(2).optional(),
  agentCard: z
    .object({ capabilityDescription: z.string().default('') })
    .loose()
    .optional(),
})

export type RunnableCard = z.output<typeof RunnableAgent>

/**
 * A frozen agent (as every registry hands out) cannot change after it was checked, so its
 * checked card is kept; any other agent is checked on every run.
 */
const checkedCards = new WeakMap<object, RunnableCard>()

/**
 * The fields of an agent a run reads, checked (a `ValidationError` names each bad one).
 *
 * @example
 * const card = runnableCard(agent) // { name, type, wallet, model, tools, maxIterations, ... }
 */
export function runnableCard(agent: Agent): RunnableCard {
  const known = checkedCards.get(agent)
  if (known) return known
  const card = parseWith(RunnableAgent, agent, 'agent')
  if (isDeepFrozen(agent)) checkedCards.set(agent, card)
  return card
}

const systemPrompts = new WeakMap<RunnableCard, string>()

/**
 * The system prompt of a run (see `buildSystemPrompt`), kept per card for the card's persona.
 *
 * @example
 * systemPrompt(card, card.persona) // 'You are Ada, a worker agent. Adds numbers.'
 */
export function systemPrompt(card: RunnableCard, persona: string | undefined): string {
  if (persona !== card.persona) return buildSystemPrompt(card, persona)
  let prompt = systemPrompts.get(card)
  if (prompt === undefined) {
    prompt = buildSystemPrompt(card, persona)
    systemPrompts.set(card, prompt)
  }
  return prompt
}

function isDeepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true
  if (!Object.isFrozen(value)) return false
  return Object.values(value).every(isDeepFrozen)
}
