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

let warnedAboutServerDefaults = false

/**
 * The stores of the nearest `<BatonProvider>`, or the module-level defaults. On a server the
 * defaults would be shared by every request rendered in the process (one user's agents and
 * messages in another's page), so a `<BatonProvider>` is required there; in development the
 * first render that falls back to them on a server warns once.
 *
 * @example
 * const { agents, swarms, comm, bus } = useBatonStores()
 */
export function useBatonStores(): BatonStores {
  const provided = useContext(BatonContext)
  if (provided) return provided
  if (!warnedAboutServerDefaults && isServer() && isDevelopment()) {
    warnedAboutServerDefaults = true
    console.warn(
      '@baton/surface: a hook used the module-level default stores during a server render. They are shared by every request in this process, so state leaks between renders: wrap the tree in <BatonProvider stores={createBatonStores()}> with stores made per request.',
    )
  }
  return getDefaultBatonStores()
}

function isServer(): boolean {
  return typeof window === 'undefined' || typeof document === 'undefined'
}

function isDevelopment(): boolean {
  const environment = (globalThis as { process?: { env?: Record<string, string | undefined> } })
    .process?.env?.NODE_ENV
  return environment !== 'production'
}
