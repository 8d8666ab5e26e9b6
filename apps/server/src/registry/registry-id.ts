import type { RegistryId } from '@baton/core'
import { keccak256, toHex } from 'viem'

/**
 * This server's registry id, the salt of the EIP-712 domain every registration, change and
 * revocation it accepts is signed in: `BATON_REGISTRY_ID` when set (several servers that
 * share one database share it), otherwise the keccak-256 of `Baton Registry:<runtime
 * address>`, so two servers with different runtime keys never accept each other's
 * signatures.
 *
 * @example
 * registryIdOf({ registryId: undefined, runtimeAddress: runtime.address }) // '0x…' (32 bytes)
 */
export function registryIdOf(options: {
  registryId: RegistryId | undefined
  runtimeAddress: string
}): RegistryId {
  return (
    options.registryId ?? keccak256(toHex(`Baton Registry:${options.runtimeAddress.toLowerCase()}`))
  )
}
