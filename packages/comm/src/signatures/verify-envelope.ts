import { parseWallet } from '@baton/core'
import { verifyMessage } from 'viem'
import type { Envelope } from '../envelope/envelope'
import { canonicalizeEnvelope } from './canonicalize-envelope'

/**
 * True when `envelope` carries a signature by `expectedWallet` over exactly its current
 * content. Unsigned, tampered, unreadable or otherwise-signed envelopes give false.
 *
 * @example
 * if (!(await verifyEnvelope(envelope, '0x52908400098527886E0F7030069857D2E4169EE7'))) refuse(envelope)
 */
export async function verifyEnvelope(envelope: Envelope, expectedWallet: string): Promise<boolean> {
  if (!envelope.signature) return false
  try {
    return await verifyMessage({
      address: parseWallet(expectedWallet),
      message: canonicalizeEnvelope(envelope),
      signature: envelope.signature as `0x${string}`,
    })
  } catch {
    return false
  }
}
