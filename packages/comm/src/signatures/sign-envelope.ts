import type { LocalAccount } from 'viem'
import type { Envelope } from '../envelope/envelope'
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
  const signature = await account.signMessage({ message: canonicalizeEnvelope(envelope) })
  return { ...envelope, signature }
}
