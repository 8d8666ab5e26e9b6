import { describe, expect, it } from 'vitest'
import { issuesFor } from './__fixtures__/issues'
import { Wallet } from './wallet'

describe('Wallet', () => {
  it('outputs the EIP-55 form of any-case hex', () => {
    expect(Wallet.parse('0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359')).toBe(
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    )
  })

  it('refuses a malformed wallet with the reason', () => {
    expect(issuesFor(Wallet, '0x123')).toEqual([
      { path: '', message: 'Malformed wallet "0x123": expected 40 hex digits, got 3.' },
    ])
  })

  it('names the field when the wallet sits in an object', () => {
    const Holder = Wallet.array()
    expect(issuesFor(Holder, ['0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359', 'nope'])[0]?.path).toBe(
      '[1]',
    )
  })

  it('refuses something that is not a string', () => {
    expect(issuesFor(Wallet, 42)[0]?.message).toMatch(/expected string/)
  })
})
