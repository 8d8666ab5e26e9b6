import { BatonError } from '@baton/core'

export type SignatureProblem =
  | 'missing'
  | 'malformed'
  | 'high-s'
  | 'mismatch'
  | 'unknown-sender'
  | 'replayed'
  | 'stale'

export type SignatureErrorCode = 'SIGNATURE_INVALID' | 'SIGNATURE_REPLAYED' | 'SIGNATURE_STALE'

const explanations: Record<SignatureProblem, string> = {
  missing: 'it is not signed',
  malformed: 'its signature cannot be read',
  'high-s': 'its signature has a high-s value (EIP-2); wallets sign with the low-s one',
  mismatch:
    "its signature does not match the sender's wallet (the envelope was changed after signing, or another key signed it)",
  'unknown-sender': 'no wallet is known for its sender',
  replayed: 'it was already accepted once (a signed envelope is accepted only once)',
  stale: 'its createdAt is outside the freshness window of signed envelopes',
}

const codes: Record<SignatureProblem, SignatureErrorCode> = {
  missing: 'SIGNATURE_INVALID',
  malformed: 'SIGNATURE_INVALID',
  'high-s': 'SIGNATURE_INVALID',
  mismatch: 'SIGNATURE_INVALID',
  'unknown-sender': 'SIGNATURE_INVALID',
  replayed: 'SIGNATURE_REPLAYED',
  stale: 'SIGNATURE_STALE',
}

/**
 * An envelope refused because signatures are required and its signature does not hold
 * (`SIGNATURE_INVALID`), or a genuine signed envelope arriving again (`SIGNATURE_REPLAYED`) or
 * dated outside the freshness window (`SIGNATURE_STALE`).
 */
export class SignatureError extends BatonError {
  override name = 'SignatureError'
  override readonly code: SignatureErrorCode
  readonly problem: SignatureProblem
  readonly envelopeId: string

  constructor(options: {
    problem: SignatureProblem
    envelopeId: string
    agentId: string
    expectedWallet?: string
    /** For `stale`: the envelope's createdAt and the window it had to fall in. */
    createdAt?: string
    maxAgeMs?: number
  }) {
    const code = codes[options.problem]
    const window =
      options.maxAgeMs === undefined
        ? ''
        : ` (createdAt ${options.createdAt}, window ±${options.maxAgeMs} ms)`
    super(
      code,
      `Envelope "${options.envelopeId}" from agent "${options.agentId}" was refused: ${explanations[options.problem]}${window}.`,
      {
        details: {
          problem: options.problem,
          envelopeId: options.envelopeId,
          agentId: options.agentId,
          ...(options.expectedWallet ? { expectedWallet: options.expectedWallet } : {}),
          ...(options.createdAt ? { createdAt: options.createdAt } : {}),
          ...(options.maxAgeMs === undefined ? {} : { maxAgeMs: options.maxAgeMs }),
        },
      },
    )
    this.code = code
    this.problem = options.problem
    this.envelopeId = options.envelopeId
  }
}
