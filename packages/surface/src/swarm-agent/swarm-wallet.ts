import { parseWallet, type Wallet } from '@baton/core'

// FNV-1a, 32 bits; five differently seeded rounds give the 40 hex digits of an address.
function fnv1a(text: string, seed: number): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash
}

/**
 * A deterministic placeholder address for a swarm. Swarms sign nothing and hold no key; the
 * address only keeps each swarm's spend apart from every other swarm's when it is listed as
 * an agent. It is not derived from any key, so nobody can sign for it.
 *
 * @example
 * swarmWallet('research') // '0x…' (always the same for 'research')
 */
export function swarmWallet(swarmId: string): Wallet {
  let hex = ''
  for (let round = 0; round < 5; round++) {
    hex += fnv1a(`baton-swarm:${swarmId}`, round).toString(16).padStart(8, '0')
  }
  return parseWallet(`0x${hex}`)
}
