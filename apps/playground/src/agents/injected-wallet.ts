import { createWalletClient, custom, type EIP1193Provider, type LocalAccount } from 'viem'
import { toAccount } from 'viem/accounts'

declare global {
  interface Window {
    ethereum?: EIP1193Provider
  }
}

/** True when the page has an EIP-1193 wallet (a browser extension). */
export function hasInjectedWallet(): boolean {
  return typeof window !== 'undefined' && Boolean(window.ethereum)
}

/**
 * The injected wallet's first account, as an account `signAgentRegistration` can sign with
 * (typed data goes to the wallet, which asks the person).
 *
 * @example
 * const creator = await injectedCreator()
 */
export async function injectedCreator(): Promise<LocalAccount> {
  const provider = window.ethereum
  if (!provider) throw new Error('No browser wallet (EIP-1193) is installed.')
  const client = createWalletClient({ transport: custom(provider) })
  const [address] = await client.requestAddresses()
  if (!address) throw new Error('The browser wallet gave no account.')
  const unsupported = () => Promise.reject(new Error('Only typed-data signatures are used.'))
  return toAccount({
    address,
    signMessage: unsupported,
    signTransaction: unsupported,
    signTypedData: (typedData) => client.signTypedData({ account: address, ...typedData } as never),
  })
}
