import { createContext, useContext } from 'react'
import { type BatonStores, createBatonStores } from '../stores/create-baton-stores'

/** The stores `<BatonProvider>` hands down; `null` outside any provider. */
export const BatonContext = createContext<BatonStores | null>(null)

let defaultStores: BatonStores | undefined

/**
 * The stores used outside any `<BatonProvider>`: created on first use, with an in-process
 * bus and no swarm runner (so `startSwarmRun` rejects until a provider gives one).
 *
 * @example
 * getDefaultBatonStores().agents.getState().setAgents(agents)
 */
export function getDefaultBatonStores(): BatonStores {
  defaultStores ??= createBatonStores()
  return defaultStores
}

/**
 * The stores of the nearest `<BatonProvider>`, or the module-level defaults.
 *
 * @example
 * const { agents, swarms, comm, bus } = useBatonStores()
 */
export function useBatonStores(): BatonStores {
  return useContext(BatonContext) ?? getDefaultBatonStores()
}
