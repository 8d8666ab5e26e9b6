import { keccak256, toHex } from 'viem'
import { canonicalJson } from './canonical-json'

/** What a signed registry change does. */
export type RegistrationAction = 'register' | 'update' | 'revoke'

/** The EIP-712 domain of Baton registry changes (no chain: the proof is off-chain). */
export const registrationDomain = { name: 'Baton Registry', version: '1' } as const

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
 * The full typed data (domain, types, primary type, message) that is signed and verified.
 *
 * @example
 * await account.signTypedData(registrationTypedData(message))
 */
export function registrationTypedData(message: RegistrationMessage) {
  return {
    domain: registrationDomain,
    types: registrationTypes,
    primaryType: 'AgentRegistration' as const,
    message,
  }
}
