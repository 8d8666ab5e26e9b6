import type { Envelope } from '../envelope/envelope'
import { assertEnvelopeSignature } from '../signatures/assert-envelope-signature'
import {
  DEFAULT_SIGNATURE_MAX_AGE_MS,
  type SignatureEntry,
  SignatureFreshness,
} from '../signatures/signature-freshness'
import type { MessageBusOptions } from './message-bus'

/** Throws unless the envelope's signature holds and it is fresh and new where it entered. */
export type VerifyEnvelope = (envelope: Envelope, entry: SignatureEntry) => Promise<void>

/**
 * The signature check of a bus that requires signatures (`undefined` for one that does not).
 * The signature must hold before the envelope counts as seen, so forged junk cannot use up the
 * id of a genuine envelope.
 *
 * @example
 * const verify = createEnvelopeVerifier({ requireSignatures: true, resolveWallet }, Date.now)
 * await verify?.(envelope, 'rail')
 */
export function createEnvelopeVerifier(
  options: MessageBusOptions,
  now: () => number,
): VerifyEnvelope | undefined {
  if (!options.requireSignatures) return undefined
  const freshness = new SignatureFreshness(
    options.signatureMaxAgeMs ?? DEFAULT_SIGNATURE_MAX_AGE_MS,
    now,
  )
  return async (envelope, entry) => {
    const { resolveWallet } = options
    await assertEnvelopeSignature(envelope, resolveWallet ?? (() => undefined))
    freshness.accept(envelope, entry)
  }
}
