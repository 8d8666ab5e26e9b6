import type { Hex, LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'

/** Keys this browser made for local development: the creator's, and one per agent wallet. */
export type DevelopmentKeys = { creator: Hex; agents: Record<string, Hex> }

const storageKey = 'baton-development-keys'

/**
 * Reads this browser's development keys, making the creator's on first use. They live in
 * localStorage: fine for a playground, never for real money.
 *
 * @example
 * const creator = privateKeyToAccount(loadDevelopmentKeys().creator)
 */
export function loadDevelopmentKeys(storage: Storage = localStorage): DevelopmentKeys {
  const saved = storage.getItem(storageKey)
  if (saved) {
    try {
      const keys = JSON.parse(saved) as DevelopmentKeys
      if (typeof keys.creator === 'string' && keys.agents && typeof keys.agents === 'object')
        return keys
    } catch {
      // A damaged entry is replaced below rather than breaking the form.
    }
  }
  const keys: DevelopmentKeys = { creator: generatePrivateKey(), agents: {} }
  storage.setItem(storageKey, JSON.stringify(keys))
  return keys
}

/**
 * Makes a new agent key and keeps it beside the others.
 *
 * @example
 * const agentAccount = newAgentAccount()
 */
export function newAgentAccount(storage: Storage = localStorage): LocalAccount {
  const keys = loadDevelopmentKeys(storage)
  const privateKey = generatePrivateKey()
  const account = privateKeyToAccount(privateKey)
  keys.agents[account.address] = privateKey
  storage.setItem(storageKey, JSON.stringify(keys))
  return account
}

/**
 * The development keys as a downloadable JSON file (for `.env` files or another browser).
 *
 * @example
 * link.href = exportDevelopmentKeys()
 */
export function exportDevelopmentKeys(storage: Storage = localStorage): string {
  const keys = loadDevelopmentKeys(storage)
  const file = {
    note: 'Development keys made by the Baton playground. Never use them for real funds.',
    creator: { address: privateKeyToAccount(keys.creator).address, privateKey: keys.creator },
    agents: Object.entries(keys.agents).map(([address, privateKey]) => ({ address, privateKey })),
  }
  return URL.createObjectURL(
    new Blob([JSON.stringify(file, null, 2)], { type: 'application/json' }),
  )
}
