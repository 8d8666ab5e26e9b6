import { keccak256, toHex } from 'viem'
import { ValidationError } from '../errors/baton-error'
import { canonicalJson } from './canonical-json'

/** What a signed registry change does. */
export type RegistrationAction = 'register' | 'update' | 'revoke'

/**
 * A registry's identity: 32 bytes of hex, the EIP-712 domain's `salt`, so that a change
 * signed for one registry is no proof for another. A Baton server publishes its own at
 * `GET /api/v1/runtime` (`registry`).
 */
export type RegistryId = `0x${string}`

const registryIdPattern = /^0x[0-9a-fA-F]{64}$/

/**
 * The EIP-712 domain of changes to one registry (no chain: the proof is off-chain; the
 * registry's id is the salt). A malformed id is a `ValidationError` on `registry`.
 *
 * @example
 * registrationDomain('0x' + 'ab'.repeat(32)) // { name: 'Baton Registry', version: '2', salt: '0xabab…' }
 */
export function registrationDomain(registry: RegistryId) {
  if (typeof registry !== 'string' || !registryIdPattern.test(registry)) {
    throw new ValidationError('registration', [
      { path: 'registry', message: 'must be the registry id: 32 bytes of 0x-prefixed hex' },
    ])
  }
  return { name: 'Baton Registry', version: '2', salt: registry } as const
}

/**
 * The EIP-712 types of a registry change: the signer vouches for the content hash of the
 * agent (or of the change) for one wallet, once (`nonce`), until `deadline` (unix seconds).
 */
export const registrationTypes = {
  AgentRegistration: [
    { name: 'action', type: 'string' },
    { name: 'wallet', type: 'address' },
    { name: 'creator', type: 'address' },
    { name: 'contentHash', type: 'bytes32' },
    { name: 'nonce', type: 'bytes32' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const

/** The longest a signature may stay valid: five minutes past the time it is checked. */
export const maxRegistrationLifetimeSeconds = 300

export type RegistrationMessage = {
  action: RegistrationAction
  wallet: `0x${string}`
  creator: `0x${string}`
  contentHash: `0x${string}`
  nonce: `0x${string}`
  deadline: bigint
}

/**
 * The keccak-256 of the canonical JSON of `content` (keys sorted), as signed.
 *
 * @example
 * registrationContentHash({ id: 'analyst', name: 'Analyst' }) // '0x…' (32 bytes)
 */
export function registrationContentHash(content: unknown): `0x${string}` {
  return keccak256(toHex(canonicalJson(content)))
}

/**
 * The full typed data (domain of `registry`, types, primary type, message) that is signed
 * and verified.
 *
 * @example
 * await account.signTypedData(registrationTypedData(message, registry))
 */
export function registrationTypedData(message: RegistrationMessage, registry: RegistryId) {
  return {
    domain: registrationDomain(registry),
    types: registrationTypes,
    primaryType: 'AgentRegistration' as const,
    message,
  }
}
