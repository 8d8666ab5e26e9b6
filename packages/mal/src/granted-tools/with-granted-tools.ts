import type { Agent } from '@baton/core'

// One copy per agent and set of names: a run that grants the same tools on every turn (or
// every member call) hands `runAgent` the same frozen card, whose check core then keeps.
const copies = new WeakMap<Agent, Map<string, Agent>>()

/**
 * The card to run an agent with when the runtime grants it tools of its own (`extraTools`):
 * a frozen copy of the agent with those names added to its `tools`, so the card records every
 * tool the run may bind (core binds an extra only when the card lists it). The agent itself
 * is returned when it lists them all already; it is never changed (a registry's stays frozen).
 *
 * @example
 * const extraTools = createConclaveTools({ store, space, wallet: agent.wallet })
 * await runAgent(withGrantedTools(agent, Object.keys(extraTools)), prompt, { budget, extraTools })
 */
export function withGrantedTools(agent: Agent, names: readonly string[]): Agent {
  const listed = agent.tools ?? []
  const added = [...new Set(names)].filter((name) => !listed.includes(name))
  if (added.length === 0) return agent
  const key = added.join('\n')
  let byNames = copies.get(agent)
  const known = byNames?.get(key)
  if (known) return known
  const copy = Object.freeze({ ...agent, tools: Object.freeze([...listed, ...added]) as string[] })
  if (!byNames) {
    byNames = new Map()
    copies.set(agent, byNames)
  }
  byNames.set(key, copy)
  return copy
}
