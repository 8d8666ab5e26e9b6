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
 * checked card is kept.
 */
const checkedCards = new WeakMap<object, RunnableCard>()

/**
 * Any other agent's checked card is kept with the values the check read: a run of the same
 * object whose fields are still those values reuses it (a comparison of a dozen values against
 * a zod parse and a wallet checksum); a changed field is checked again.
 */
const checkedMutableCards = new WeakMap<object, Checked>()

type Checked = { card: RunnableCard; read: unknown[] }

/**
 * The last card checked, with what the check read: a new object with the same values (a
 * sub-agent's `{ ...caller, model }`, a host's copy of a card per run) gets the same card,
 * which a parse would have made equal, without the parse. The values are compared as they are,
 * not the objects that hold them, so an equal tools list or agent card in a new object matches.
 */
let lastChecked: Checked | undefined

// Where the agent card's fields and the tools list start in `read`: symbols no field can equal,
// so a card with fewer or more of them never lines up with one checked before.
const CARD_FIELDS = Symbol('agentCard fields')
const TOOLS = Symbol('tools')
const TOOL_NAMES = Symbol('tool names')

/**
 * The fields of an agent a run reads, checked (a `ValidationError` names each bad one).
 *
 * @example
 * const card = runnableCard(agent) // { name, type, wallet, model, tools, maxIterations, ... }
 */
export function runnableCard(agent: Agent): RunnableCard {
  const known = checkedCards.get(agent)
  if (known) return known
  const checked = checkedMutableCards.get(agent)
  if (checked && readMatches(agent, checked.read)) return checked.card
  if (lastChecked && lastChecked !== checked && readMatches(agent, lastChecked.read)) {
    return lastChecked.card
  }
  const read = valuesRead(agent)
  const card = parseWith(RunnableAgent, agent, 'agent')
  lastChecked = { card, read }
  if (isDeepFrozen(agent)) checkedCards.set(agent, card)
  else checkedMutableCards.set(agent, lastChecked)
  return card
}

/**
 * Every value `RunnableAgent` reads of an agent, in a fixed order: the agent card's fields and
 * the tools one by one, each list after its marker.
 */
function valuesRead(agent: Agent): unknown[] {
  const fields = agent as unknown as Record<string, unknown>
  const tools = fields.tools
  const agentCard = fields.agentCard as Record<string, unknown> | undefined
  const read: unknown[] = [
    fields.name,
    fields.type,
    fields.wallet,
    fields.model,
    fields.persona,
    fields.memoryScope,
    fields.maxIterations,
    fields.temperature,
  ]
  // The card's own fields pass through the check (it is loose): each one is compared.
  if (typeof agentCard === 'object' && agentCard !== null) {
    read.push(CARD_FIELDS)
    for (const key of Object.keys(agentCard)) read.push(key, agentCard[key])
  } else read.push(agentCard)
  read.push(TOOLS)
  if (Array.isArray(tools)) read.push(TOOL_NAMES, tools.length, ...tools)
  else read.push(tools)
  return read
}

/**
 * Whether `valuesRead(agent)` would equal `read`, compared as it walks: an agent that is not
 * frozen (a plain object a host passes on every run) is checked on every run, and building
 * the list to compare was most of that check.
 */
function readMatches(agent: Agent, read: unknown[]): boolean {
  const fields = agent as unknown as Record<string, unknown>
  const agentCard = fields.agentCard as Record<string, unknown> | undefined
  if (
    !Object.is(read[0], fields.name) ||
    !Object.is(read[1], fields.type) ||
    !Object.is(read[2], fields.wallet) ||
    !Object.is(read[3], fields.model) ||
    !Object.is(read[4], fields.persona) ||
    !Object.is(read[5], fields.memoryScope) ||
    !Object.is(read[6], fields.maxIterations) ||
    !Object.is(read[7], fields.temperature)
  ) {
    return false
  }
  let index = 8
  if (typeof agentCard === 'object' && agentCard !== null) {
    if (read[index++] !== CARD_FIELDS) return false
    // Own enumerable string keys in `Object.keys` order, as `valuesRead` lists them.
    for (const key in agentCard) {
      if (!Object.hasOwn(agentCard, key)) continue
      if (read[index] !== key || !Object.is(read[index + 1], agentCard[key])) return false
      index += 2
    }
  } else if (!Object.is(read[index++], agentCard)) return false
  if (read[index++] !== TOOLS) return false
  const tools = fields.tools
  if (Array.isArray(tools)) {
    if (read[index++] !== TOOL_NAMES || read[index++] !== tools.length) return false
    for (const tool of tools) if (!Object.is(read[index++], tool)) return false
  } else if (!Object.is(read[index++], tools)) return false
  return index === read.length
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
