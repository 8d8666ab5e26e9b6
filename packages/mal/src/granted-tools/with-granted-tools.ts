import { type Agent, grantTools } from '@baton/core'

// One copy per agent and set of names: a run that grants the same tools on every turn (or
// every member call) hands `runAgent` the same frozen card, whose check core then keeps.
const copies = new WeakMap<Agent, Map<string, { listed: Agent['tools']; agent: Agent }>>()

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
  if (names.length === 0) return agent
  // The names of the agent's last grant, compared one by one: a hop grants the same names
  // (property names, so each comparison is one of pointers) and joining them cost more.
  const last = lastGrants.get(agent)
  if (last && last.listed === agent.tools && sameNames(last.names, names)) return last.agent
  const result = grantedCopy(agent, names)
  lastGrants.set(agent, { names: names.slice(), listed: agent.tools, agent: result })
  return result
}

const lastGrants = new WeakMap<
  Agent,
  { names: readonly string[]; listed: Agent['tools']; agent: Agent }
>()

function sameNames(kept: readonly string[], names: readonly string[]): boolean {
  if (kept.length !== names.length) return false
  for (let index = 0; index < names.length; index++) if (kept[index] !== names[index]) return false
  return true
}

function grantedCopy(agent: Agent, names: readonly string[]): Agent {
  // Looked up by the names asked for before anything is copied: a hop grants the same names
  // to the same agent every time, and `grantTools` copies the whole card to find its list.
  const asked = names.join('\n')
  const listed = agent.tools
  let byNames = copies.get(agent)
  const known = byNames?.get(asked)
  if (known && known.listed === listed) return known.agent
  const granted = grantTools(agent, names)
  const result =
    granted === agent
      ? agent
      : (byTools(agent, granted) ??
        Object.freeze({ ...granted, tools: Object.freeze(granted.tools) as string[] }))
  if (!byNames) {
    byNames = new Map()
    copies.set(agent, byNames)
  }
  byNames.set(asked, { listed, agent: result })
  return result
}

// The copy already made for the same resulting list (names asked in another order).
function byTools(agent: Agent, granted: Agent): Agent | undefined {
  const tools = granted.tools.join('\n')
  for (const entry of copies.get(agent)?.values() ?? []) {
    if (entry.agent !== agent && entry.agent.tools.join('\n') === tools) return entry.agent
  }
  return undefined
}
