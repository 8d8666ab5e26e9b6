import { parseWith, ValidationError } from '@baton/core'
import type { LocalAccount } from 'viem'
import { Envelope } from '../envelope/envelope'
import { canonicalizeEnvelope } from './canonicalize-envelope'

/**
 * Signs an envelope with the sender's wallet (EIP-191 personal message over its canonical
 * form) and returns a copy carrying the signature.
 *
 * @example
 * const account = privateKeyToAccount(process.env.AGENT_KEY as `0x${string}`)
 * const signed = await signEnvelope(createEnvelope({ from: { agentId: 'ops' }, to: { agentId: 'analyst' }, content: 'hi' }), account)
 */
export async function signEnvelope(envelope: Envelope, account: LocalAccount): Promise<Envelope> {
  // Signing what is not a valid envelope would hand out a signature no bus accepts.
  const checked = parseWith(Envelope, envelope, 'envelope to sign')
  if (typeof account?.signMessage !== 'function') {
    throw new ValidationError(`signer of envelope "${checked.id}"`, [
      { path: 'account', message: 'expected a viem LocalAccount (e.g. privateKeyToAccount(key))' },
    ])
  }
  const signature = await account.signMessage({ message: canonicalizeEnvelope(checked) })
  return { ...checked, signature }
}
