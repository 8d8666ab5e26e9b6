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
  const expected = await resolveWallet(envelope.from.agentId)
  if (!expected) throw new SignatureError({ ...base, problem: 'unknown-sender' })
  if (!envelope.signature) {
    throw new SignatureError({ ...base, problem: 'missing', expectedWallet: expected })
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
