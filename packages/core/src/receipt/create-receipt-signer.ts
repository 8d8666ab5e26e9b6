import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { ValidationError } from '../errors/baton-error'
import type { ReceiptSigner } from './sign-run-receipt'

/**
 * A receipt signer from a runtime's private key (32 bytes, hex); a malformed key is refused
 * without echoing it.
 *
 * @example
 * const signer = createReceiptSigner(process.env.BATON_RUNTIME_KEY)
 * signer.address // the runtime address verifiers trust
 */
export function createReceiptSigner(privateKey: string): ReceiptSigner {
  if (!/^0x[0-9a-fA-F]{64}$/.test(privateKey)) {
    throw new ValidationError('runtime key', [
      { path: '', message: 'must be a 32-byte private key in hex (0x followed by 64 digits)' },
    ])
  }
  return privateKeyToAccount(privateKey as `0x${string}`)
}

/**
 * A new random runtime key (hex), for development or a first start.
 *
 * @example
 * await writeFile(keyFile, generateReceiptKey(), { mode: 0o600 })
 */
export function generateReceiptKey(): `0x${string}` {
  return generatePrivateKey()
}
