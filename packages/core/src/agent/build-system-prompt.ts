import type { Agent } from '../schemas'

/**
 * The system prompt of a run: the persona (the override, else the card's), then who the agent
 * is and what it can do. The offline model reads the agent's name and type back from it.
 *
 * @example
 * buildSystemPrompt({ name: 'Ada', type: 'worker', persona: 'Be terse.', agentCard: { capabilityDescription: 'Sums numbers.' } })
 * // 'Be terse.\n\nYou are Ada, a worker agent. Sums numbers.'
 */
export function buildSystemPrompt(
  agent: Pick<Agent, 'name' | 'type' | 'persona'> & {
    agentCard?: { capabilityDescription?: string | undefined } | undefined
  },
  persona: string | undefined = agent.persona,
): string {
  const article = /^[aeiou]/i.test(agent.type) ? 'an' : 'a'
  const identity = `You are ${agent.name}, ${article} ${agent.type} agent. ${
    agent.agentCard?.capabilityDescription ?? ''
  }`.trim()
  return persona?.trim() ? `${persona.trim()}\n\n${identity}` : identity
}
