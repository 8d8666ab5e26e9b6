import { BatonError } from '@baton/core'

export type SignatureProblem = 'missing' | 'malformed' | 'mismatch' | 'unknown-sender'

const explanations: Record<SignatureProblem, string> = {
  missing: 'it is not signed',
  malformed: 'its signature cannot be read',
  mismatch:
    "its signature does not match the sender's wallet (the envelope was changed after signing, or another key signed it)",
  'unknown-sender': 'no wallet is known for its sender',
}

/** An envelope refused because signatures are required and its signature does not hold. */
export class SignatureError extends BatonError {
  override name = 'SignatureError'
  readonly problem: SignatureProblem
  readonly envelopeId: string
  constructor(options: {
    problem: SignatureProblem
    envelopeId: string
    agentId: string
    expectedWallet?: string
  }) {
    super(
      'SIGNATURE_INVALID',
      `Envelope "${options.envelopeId}" from agent "${options.agentId}" was refused: ${explanations[options.problem]}.`,
      {
        details: {
          problem: options.problem,
          envelopeId: options.envelopeId,
          agentId: options.agentId,
          ...(options.expectedWallet ? { expectedWallet: options.expectedWallet } : {}),
        },
      },
    )
    this.problem = options.problem
    this.envelopeId = options.envelopeId
  }
}
