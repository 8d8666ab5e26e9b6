import {
  hasHighS,
  maxRegistrationLifetimeSeconds,
  type RegistrationAction,
  registrationContentHash,
  registrationTypedData,
} from '@baton/core'
import { recoverTypedDataAddress } from 'viem'
import { HttpError } from '../http/http-errors'

/** Clock skew tolerated between a client and the server, in seconds. */
const skewSeconds = 30

export type SignedChange = {
  action: RegistrationAction
  wallet: `0x${string}`
  creator: `0x${string}`
  content: unknown
  nonce: `0x${string}`
  deadline: number
}

/**
 * Checks the deadline of a signed registry change and returns who signed each signature.
 * Throws 401 `SIGNATURE_EXPIRED` / `SIGNATURE_INVALID`; the caller compares the signers.
 *
 * @example
 * const [creator] = await recoverSigners(change, [body.creatorSignature], Date.now())
 */
export async function recoverSigners(
  change: SignedChange,
  signatures: readonly `0x${string}`[],
  nowMs: number,
): Promise<`0x${string}`[]> {
  const now = Math.floor(nowMs / 1000)
  if (change.deadline < now) {
    throw new HttpError(401, 'SIGNATURE_EXPIRED', `The signature expired at ${change.deadline}.`, {
      deadline: change.deadline,
      now,
    })
  }
  if (change.deadline > now + maxRegistrationLifetimeSeconds + skewSeconds) {
    throw new HttpError(
      401,
      'SIGNATURE_INVALID',
      `The deadline is more than ${maxRegistrationLifetimeSeconds} seconds ahead.`,
      { deadline: change.deadline, now },
    )
  }
  const typedData = registrationTypedData({
    action: change.action,
    wallet: change.wallet,
    creator: change.creator,
    contentHash: registrationContentHash(change.content),
    nonce: change.nonce,
    deadline: BigInt(change.deadline),
  })
  return Promise.all(
    signatures.map(async (signature) => {
      // Its low-s twin recovers the same signer: one signing, one accepted spelling (EIP-2).
      if (hasHighS(signature)) {
        throw new HttpError(401, 'SIGNATURE_INVALID', 'A signature has a high-s value (EIP-2).')
      }
      try {
        return await recoverTypedDataAddress({ ...typedData, signature })
      } catch {
        throw new HttpError(401, 'SIGNATURE_INVALID', 'A signature could not be read.')
      }
    }),
  )
}

/** Throws 403 unless `signer` is `expected`. */
export function assertSigner(signer: string, expected: string, role: string): void {
  if (signer !== expected) {
    throw new HttpError(403, 'FORBIDDEN', `The ${role} signature is not by ${expected}.`, {
      role,
      expected,
      signer,
    })
  }
}
