import { type Agent, grantTools } from '@baton/core'

// Cards made from a caller's card that is frozen through and through (as a registry hands
// them out): the same for every sub-agent with the same model, and every turn with the same
// tools, so they are made once, frozen too, and `runAgent` checks each of them once instead
// of parsing a new copy per sub-agent and turn.
const byModel = new WeakMap<Agent, Map<string, Agent>>()
const byTools = new WeakMap<Agent, Map<string, Agent>>()
// Objects known to be frozen through and through: what is frozen cannot change, so each is
// walked once.
const deepFrozen = new WeakSet<object>()
// A caller's card that can still change: one frozen copy of it, used for as long as the card
// holds the same data (compared at each delegation), so its sub-agents share their cards as
// those of a frozen card do. Before, each sub-agent and each turn got a copy of its own: two
// objects per sub-agent, alive as long as it runs (~1 KB of the ~14 a sub-agent allocates).
const frozenCopies = new WeakMap<Agent, Agent>()
// Cards found to hold more than plain data: copied per sub-agent, not walked again each time.
const unshared = new WeakSet<Agent>()

/**
 * The card of a sub-agent of `caller`: the caller's, with `model`. Always frozen: a card that
 * can still change is copied (nothing of the caller's own is frozen), and a change to it is
 * seen by the sub-agents delegated after it.
 *
 * @example
 * subagentCard(caller, 'offline:small') // { ...caller, model: 'offline:small' }
 */
export function subagentCard(caller: Agent, model: string): Agent {
  const base = isDeepFrozen(caller) ? caller : frozenCopyOf(caller)
  if (!base) return { ...caller, model }
  // A sub-agent's sub-agent on the same model has the same card: one for the whole chain, not
  // a card (and two caches of cards made from it) per level of a deep tree.
  if (base.model === model) return base
  return cached(byModel, base, model, () => ({ ...base, model }))
}

/**
 * `grantTools(agent, names)` of `@baton/core`, made once per frozen card and list of names.
 *
 * @example
 * grantedCard(agent, ['read_file', 'ask_caller']).tools // [...agent.tools, 'ask_caller']
 */
export function grantedCard(agent: Agent, names: readonly string[]): Agent {
  if (!isDeepFrozen(agent)) return grantTools(agent, names)
  return cached(byTools, agent, keyOf(names), () => {
    const granted = grantTools(agent, names)
    if (granted !== agent) Object.freeze(granted.tools)
    return granted
  })
}

// The key of a list of names that cannot change (a shared grant's): joined once, not per turn.
const namesKeys = new WeakMap<readonly string[], string>()

function keyOf(names: readonly string[]): string {
  if (!Object.isFrozen(names)) return names.join('\u0000')
  let key = namesKeys.get(names)
  if (key === undefined) {
    key = names.join('\u0000')
    namesKeys.set(names, key)
  }
  return key
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

/**
 * The frozen copy of a card that can still change, made again when its data changed;
 * undefined for a card holding what is not plain data (a class instance, a function in its
 * `config`), a cycle, or more than `MAX_COPIED` objects and arrays (it would be compared at
 * every delegation), which is copied for each sub-agent instead, from then on.
 */
function frozenCopyOf(card: Agent): Agent | undefined {
  if (unshared.has(card)) return undefined
  const known = frozenCopies.get(card)
  if (known && sameData(card, known)) return known
  const copy = plainCopy(card, { left: MAX_COPIED })
  if (copy === NOT_PLAIN) {
    unshared.add(card)
    frozenCopies.delete(card)
    return undefined
  }
  const frozen = freezeThrough(copy) as Agent
  frozenCopies.set(card, frozen)
  return frozen
}

const NOT_PLAIN = Symbol('not plain data')
// A card's own fields, its tools and its agent card are a few dozen; a `config` is the user's.
const MAX_COPIED = 1_000

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value)
  return (
    (prototype === Object.prototype || prototype === null || Array.isArray(value)) &&
    Object.getOwnPropertySymbols(value).length === 0
  )
}

function plainCopy(value: unknown, budget: { left: number }): unknown {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'function' || typeof value === 'symbol' ? NOT_PLAIN : value
  }
  // Past the budget (a cycle comes here too): not worth sharing.
  budget.left -= 1
  if (budget.left < 0 || !isPlainObject(value)) return NOT_PLAIN
  if (Array.isArray(value)) {
    const items: unknown[] = []
    for (const item of value) {
      const copied = plainCopy(item, budget)
      if (copied === NOT_PLAIN) return NOT_PLAIN
      items.push(copied)
    }
    return items
  }
  const fields: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const copied = plainCopy((value as Record<string, unknown>)[key], budget)
    if (copied === NOT_PLAIN) return NOT_PLAIN
    fields[key] = copied
  }
  return fields
}

/**
 * Whether `value` holds the same plain data as `copy` (made by `plainCopy`), without making
 * anything: it runs at every delegation. (A symbol key added to the card later is not looked
 * for: nothing reads one.)
 */
function sameData(value: unknown, copy: unknown): boolean {
  if (value === null || typeof value !== 'object' || copy === null || typeof copy !== 'object') {
    return Object.is(value, copy)
  }
  const prototype = Object.getPrototypeOf(value)
  if (Array.isArray(value)) {
    if (!Array.isArray(copy) || value.length !== copy.length) return false
    for (let index = 0; index < value.length; index += 1) {
      if (!sameData(value[index], copy[index])) return false
    }
    return true
  }
  if ((prototype !== Object.prototype && prototype !== null) || Array.isArray(copy)) return false
  const fields = value as Record<string, unknown>
  const copied = copy as Record<string, unknown>
  let count = 0
  for (const key in fields) {
    if (!Object.hasOwn(fields, key)) continue
    count += 1
    if (!Object.hasOwn(copied, key) || !sameData(fields[key], copied[key])) return false
  }
  for (const _ in copied) count -= 1
  return count === 0
}

function freezeThrough(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value
  for (const key of Object.keys(value)) freezeThrough((value as Record<string, unknown>)[key])
  Object.freeze(value)
  deepFrozen.add(value)
  return value
}
