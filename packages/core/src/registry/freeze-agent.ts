import type { Agent } from '../schemas/agent'

/**
 * Freezes an agent and everything in it, so the one cached copy a registry hands to every
 * caller cannot be changed by any of them (`agent.tools.push('rm_rf')` throws in strict code).
 *
 * @example
 * const agent = freezeAgent(Agent.parse(record))
 * Object.isFrozen(agent.tools) // true
 */
export function freezeAgent(agent: Agent): Readonly<Agent> {
  return deepFreeze(agent)
}

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value
  Object.freeze(value)
  for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key])
  return value
}
