import {
  hasHighS,
  maxRegistrationLifetimeSeconds,
  type RegistrationAction,
  type RegistryId,
  registrationContentHash,
  registrationTypedData,
} from '@baton/core'
import { recoverTypedDataAddress } from 'viem'
import { HttpError } from '../http/http-errors'

/** Clock skew tolerated between a client and the server, in seconds. */
const skewSeconds = 30

export type SignedChange = {
  /** The registry the body says it was signed for; it must be this server's. */
  registry: RegistryId
  action: RegistrationAction
  wallet: `0x${string}`
  creator: `0x${string}`
  content: unknown
  nonce: `0x${string}`
  deadline: number
}

/**
 * Checks the registry and the deadline of a signed registry change and returns who signed
 * each signature, recovered in this registry's domain. Throws 401
 * `SIGNATURE_WRONG_REGISTRY` (signed for another registry), `SIGNATURE_EXPIRED` or
 * `SIGNATURE_INVALID`; the caller compares the signers.
 *
 * @example
 * const [creator] = await recoverSigners(change, [body.creatorSignature], { registry, nowMs: Date.now() })
 */
export async function recoverSigners(
  change: SignedChange,
  signatures: readonly `0x${string}`[],
  options: { registry: RegistryId; nowMs: number },
): Promise<`0x${string}`[]> {
  if (change.registry.toLowerCase() !== options.registry.toLowerCase()) {
    throw new HttpError(
      401,
      'SIGNATURE_WRONG_REGISTRY',
      `The change was signed for registry ${change.registry}, not for this one (${options.registry}).`,
      { registry: change.registry, expected: options.registry },
    )
  }
  const now = Math.floor(options.nowMs / 1000)
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
  const typedData = registrationTypedData(
    {
      action: change.action,
      wallet: change.wallet,
      creator: change.creator,
      contentHash: registrationContentHash(change.content),
      nonce: change.nonce,
      deadline: BigInt(change.deadline),
    },
    options.registry,
  )
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
