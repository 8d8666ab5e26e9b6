import { getAddress, isAddress } from 'viem'
import { MalformedWalletError } from './malformed-wallet-error'

/** An EIP-55 checksummed address. */
export type Wallet = `0x${string}`

/**
 * Parses a wallet address and returns its EIP-55 checksummed form. All-lowercase and
 * all-uppercase hex are accepted; a mixed-case address must carry a correct checksum.
 *
 * @example
 * parseWallet('0x52908400098527886e0f7030069857d2e4169ee7') // '0x52908400098527886E0F7030069857D2E4169EE7'
 */
export function parseWallet(input: unknown): Wallet {
  if (typeof input !== 'string') throw new MalformedWalletError(input, 'expected a string')
  const value = input.trim()
  if (!/^0x/i.test(value)) throw new MalformedWalletError(input, 'expected a 0x prefix')
  const hex = value.slice(2)
  if (!/^[0-9a-fA-F]*$/.test(hex))
    throw new MalformedWalletError(input, 'contains non-hex characters')
  if (hex.length !== 40) {
    throw new MalformedWalletError(input, `expected 40 hex digits, got ${hex.length}`)
  }
  // Single-case hex carries no checksum (viem's strict check would refuse all-uppercase).
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) {
    return getAddress(`0x${hex.toLowerCase()}`)
  }
  const mixed = `0x${hex}` as const
  if (!isAddress(mixed, { strict: true })) {
    throw new MalformedWalletError(input, 'mixed-case checksum does not match (EIP-55)')
  }
  return getAddress(mixed)
}

/** True when `input` would parse as a wallet. */
export function isWallet(input: unknown): input is Wallet {
  try {
    parseWallet(input)
    return true
  } catch {
    return false
  }
}
