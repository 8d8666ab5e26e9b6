import { type Agent, grantTools } from '@baton/core'

// Cards made from a caller's card that is frozen through and through (as a registry hands
// them out): the same for every sub-agent with the same model, and every turn with the same
// tools, so they are made once, frozen too, and `runAgent` checks each of them once instead
// of parsing a new copy per sub-agent and turn. A card that can still change is copied each
// time, as before.
const byModel = new WeakMap<Agent, Map<string, Agent>>()
const byTools = new WeakMap<Agent, Map<string, Agent>>()
// Objects known to be frozen through and through: what is frozen cannot change, so each is
// walked once.
const deepFrozen = new WeakSet<object>()

/**
 * The card of a sub-agent of `caller`: the caller's, with `model`.
 *
 * @example
 * subagentCard(caller, 'offline:small') // { ...caller, model: 'offline:small' }
 */
export function subagentCard(caller: Agent, model: string): Agent {
  if (!isDeepFrozen(caller)) return { ...caller, model }
  return cached(byModel, caller, model, () => ({ ...caller, model }))
}

/**
 * `grantTools(agent, names)` of `@baton/core`, made once per frozen card and list of names.
 *
 * @example
 * grantedCard(agent, ['read_file', 'ask_caller']).tools // [...agent.tools, 'ask_caller']
 */
export function grantedCard(agent: Agent, names: readonly string[]): Agent {
  if (!isDeepFrozen(agent)) return grantTools(agent, names)
  return cached(byTools, agent, names.join('\u0000'), () => {
    const granted = grantTools(agent, names)
    if (granted !== agent) Object.freeze(granted.tools)
    return granted
  })
}

function cached(
  cards: WeakMap<Agent, Map<string, Agent>>,
  from: Agent,
  key: string,
  make: () => Agent,
): Agent {
  let known = cards.get(from)
  if (!known) {
    known = new Map()
    cards.set(from, known)
  }
  let card = known.get(key)
  if (!card) {
    card = Object.freeze(make())
    deepFrozen.add(card)
    known.set(key, card)
  }
  return card
}

function isDeepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true
  if (deepFrozen.has(value)) return true
  if (!Object.isFrozen(value)) return false
  for (const key of Reflect.ownKeys(value)) {
    if (!isDeepFrozen((value as Record<PropertyKey, unknown>)[key])) return false
  }
  deepFrozen.add(value)
  return true
}
