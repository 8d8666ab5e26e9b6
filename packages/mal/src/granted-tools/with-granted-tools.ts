import { type Agent, grantTools } from '@baton/core'

// One copy per agent and set of names: a run that grants the same tools on every turn (or
// every member call) hands `runAgent` the same frozen card, whose check core then keeps.
const copies = new WeakMap<Agent, Map<string, Agent>>()

/**
 * Core's `grantTools` (the agent with the names of the tools the runtime grants added to its
 * card's `tools`, which is what lets `runAgent` bind those `extraTools`), kept: the copy is
 * frozen and made once per agent and set of names, so core checks its card once. The agent
 * itself is returned when it lists them all already; it is never changed.
 *
 * @example
 * const extraTools = createConclaveTools({ store, space, wallet: agent.wallet })
 * await runAgent(withGrantedTools(agent, Object.keys(extraTools)), prompt, { budget, extraTools })
 */
export function withGrantedTools(agent: Agent, names: readonly string[]): Agent {
  const granted = grantTools(agent, names)
  if (granted === agent) return agent
  const key = granted.tools.join('\n')
  let byNames = copies.get(agent)
  const known = byNames?.get(key)
  if (known) return known
  const copy = Object.freeze({ ...granted, tools: Object.freeze(granted.tools) as string[] })
  if (!byNames) {
    byNames = new Map()
    copies.set(agent, byNames)
  }
  byNames.set(key, copy)
  return copy
}
