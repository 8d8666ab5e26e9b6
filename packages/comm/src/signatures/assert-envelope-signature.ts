import { hasHighS, MalformedWalletError, parseWallet } from '@baton/core'
import { recoverMessageAddress } from 'viem'
import type { Envelope } from '../envelope/envelope'
import { canonicalizeEnvelope } from './canonicalize-envelope'
import { SignatureError } from './signature-error'

/** Maps an agent id to the wallet that must have signed its envelopes (undefined: unknown). */
export type ResolveWallet = (agentId: string) => string | undefined | Promise<string | undefined>

/**
 * Throws a `SignatureError` saying what is wrong unless the envelope is signed by the wallet
 * `resolveWallet` gives for its sender.
 *
 * @example
 * await assertEnvelopeSignature(envelope, (agentId) => wallets.get(agentId))
 */
export async function assertEnvelopeSignature(
  envelope: Envelope,
  resolveWallet: ResolveWallet,
): Promise<void> {
  const base = { envelopeId: envelope.id, agentId: envelope.from.agentId }
  const resolved = await resolveWallet(envelope.from.agentId)
  if (!resolved) throw new SignatureError({ ...base, problem: 'unknown-sender' })
  const expected = walletOf(resolved, envelope.from.agentId)
  if (!envelope.signature) {
    throw new SignatureError({ ...base, problem: 'missing', expectedWallet: expected })
  }
  // The high-s twin of a signature recovers the same signer; wallets never make one (EIP-2).
  if (hasHighS(envelope.signature as `0x${string}`)) {
    throw new SignatureError({ ...base, problem: 'high-s', expectedWallet: expected })
  }
  let signer: string
  try {
    signer = await recoverMessageAddress({
      message: canonicalizeEnvelope(envelope),
      signature: envelope.signature as `0x${string}`,
    })
  } catch {
    throw new SignatureError({ ...base, problem: 'malformed', expectedWallet: expected })
  }
  if (signer.toLowerCase() !== expected.toLowerCase()) {
    throw new SignatureError({ ...base, problem: 'mismatch', expectedWallet: expected })
  }
}

// A malformed wallet from `resolveWallet` is a configuration mistake; say which agent it was for
// rather than report every envelope of that agent as a forgery.
function walletOf(resolved: string, agentId: string): string {
  try {
    return parseWallet(resolved)
  } catch (error) {
    const reason = MalformedWalletError.isInstance(error)
      ? String(error.details.reason)
      : 'unreadable'
    throw new MalformedWalletError(
      resolved,
      `${reason} (resolveWallet gave it for agent "${agentId}")`,
    )
  }
}
