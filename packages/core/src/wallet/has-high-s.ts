import { type Hex, parseSignature } from 'viem'

// Half the order of secp256k1: an `s` above it is the mirror of a valid low-s signature.
const halfOrder = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n

/**
 * True when an ECDSA signature (65-byte hex, `r ‖ s ‖ v`) has a high `s` (above n/2).
 * `(r, s, v)` and `(r, n − s, v ^ 1)` recover the same signer, so accepting both lets
 * anyone make a second valid spelling of a signature they saw; wallets sign with low `s`
 * only (EIP-2), and verifiers refuse the other. An unreadable signature gives false (the
 * verifier's own parse refuses it).
 *
 * @example
 * if (hasHighS(signature)) throw new SignatureInvalidError('a high-s signature')
 */
export function hasHighS(signature: Hex): boolean {
  try {
    return BigInt(parseSignature(signature).s) > halfOrder
  } catch {
    return false
  }
}

/**
 * The high-s twin of a signature (same signer, other bytes): for tests of verifiers.
 *
 * @example
 * const twin = toHighS(await account.signMessage({ message: 'hi' }))
 */
export function toHighS(signature: Hex): Hex {
  const { r, s, yParity } = parseSignature(signature)
  const order = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
  const mirrored = (order - BigInt(s)).toString(16).padStart(64, '0')
  const parity = yParity === 0 ? '1c' : '1b'
  return `${r}${mirrored}${parity}` as Hex
}
