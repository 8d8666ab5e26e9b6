import { hasHighS, parseWallet, parseWith } from '@baton/core'
import { verifyMessage } from 'viem'
import { Envelope } from '../envelope/envelope'
import { canonicalizeEnvelope } from './canonicalize-envelope'

/**
 * True when `envelope` carries a signature by `expectedWallet` over exactly its current
 * content. Unsigned, tampered, unreadable or otherwise-signed envelopes give false; a
 * malformed `expectedWallet` throws `MalformedWalletError`, a non-envelope `ValidationError`.
 *
 * @example
 * if (!(await verifyEnvelope(envelope, '0x52908400098527886E0F7030069857D2E4169EE7'))) refuse(envelope)
 */
export async function verifyEnvelope(envelope: Envelope, expectedWallet: string): Promise<boolean> {
  // A malformed wallet or a value that is not an envelope is the caller's mistake, not a
  // signature that fails: both throw (MalformedWalletError, ValidationError) instead of false.
  const address = parseWallet(expectedWallet)
  const checked = parseWith(Envelope, envelope, 'envelope to verify')
  if (!checked.signature) return false
  // The high-s twin of a signature recovers the same signer; wallets never make one (EIP-2).
  if (hasHighS(checked.signature as `0x${string}`)) return false
  try {
    return await verifyMessage({
      address,
      message: canonicalizeEnvelope(checked),
      signature: checked.signature as `0x${string}`,
    })
  } catch {
    return false
  }
}
