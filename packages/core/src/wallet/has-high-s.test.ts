import { recoverMessageAddress } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { hasHighS, toHighS } from './has-high-s'

describe('hasHighS', () => {
  it('tells the high-s twin of a signature from the signature a wallet makes', async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    const signature = await account.signMessage({ message: 'hello' })
    const twin = toHighS(signature)
    expect(twin).not.toBe(signature)
    // The twin recovers the same signer: that is why verifiers must refuse it.
    expect(await recoverMessageAddress({ message: 'hello', signature: twin })).toBe(account.address)
    expect(hasHighS(signature)).toBe(false)
    expect(hasHighS(twin)).toBe(true)
  })

  it('leaves an unreadable signature to the verifier', () => {
    expect(hasHighS('0x1234')).toBe(false)
  })
})
