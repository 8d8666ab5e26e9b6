import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BatonError } from '../errors/baton-error'
import { MalformedWalletError } from './malformed-wallet-error'
import { isWallet, parseWallet } from './parse-wallet'

// EIP-55 test vectors: one with mixed-case letters, one all-uppercase, one all-lowercase.
const mixed = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
const upper = '0x52908400098527886E0F7030069857D2E4169EE7'
const lower = '0xde709f2102306220921060314715629080e2fb77'

function refusal(input: unknown): MalformedWalletError {
  try {
    parseWallet(input)
  } catch (error) {
    if (error instanceof MalformedWalletError) return error
    throw error
  }
  throw new Error(`expected ${String(input)} to be refused`)
}

describe('parseWallet', () => {
  it('returns the EIP-55 form of all-lowercase, all-uppercase and checksummed hex', () => {
    for (const wallet of [mixed, upper, lower]) {
      const hex = wallet.slice(2)
      expect(parseWallet(`0x${hex.toLowerCase()}`)).toBe(wallet)
      expect(parseWallet(`0x${hex.toUpperCase()}`)).toBe(wallet)
      expect(parseWallet(wallet)).toBe(wallet)
    }
  })

  it('ignores surrounding whitespace', () => {
    expect(parseWallet(`  ${mixed.toLowerCase()}\n`)).toBe(mixed)
  })

  it('refuses mixed case with a wrong checksum', () => {
    const flipped = `0x5aaeb6053F3E94C9b9A09f33669435E7Ef1BeAed`
    const error = refusal(flipped)
    expect(error.message).toBe(
      `Malformed wallet "${flipped}": mixed-case checksum does not match (EIP-55).`,
    )
    expect(error).toMatchObject({ code: 'MALFORMED_WALLET', wallet: flipped })
    expect(error.details).toEqual({
      wallet: flipped,
      reason: 'mixed-case checksum does not match (EIP-55)',
    })
    expect(BatonError.isInstance(error)).toBe(true)
  })

  it.each([
    ['39 hex digits', `${mixed.slice(0, -1)}`, 'expected 40 hex digits, got 39'],
    ['41 hex digits', `${mixed}0`, 'expected 40 hex digits, got 41'],
    ['no digits', '0x', 'expected 40 hex digits, got 0'],
    ['a non-hex digit', `${mixed.slice(0, -1)}g`, 'contains non-hex characters'],
    ['no 0x prefix', mixed.slice(2), 'expected a 0x prefix'],
    ['an ENS name', 'vitalik.eth', 'expected a 0x prefix'],
    ['an empty string', '', 'expected a 0x prefix'],
  ])('refuses %s', (_label, input, reason) => {
    expect(refusal(input).details.reason).toBe(reason)
  })

  it('refuses what is not a string', () => {
    for (const input of [undefined, null, 42, { address: mixed }]) {
      expect(refusal(input).details.reason).toBe('expected a string')
    }
  })

  it('keeps the message short when the input is huge', () => {
    const error = refusal(`0x${'a'.repeat(100_000)}`)
    expect(error.message.length).toBeLessThan(200)
    expect(error.message).toContain('expected 40 hex digits, got 100000')
  })
})

describe('parseWallet (property)', () => {
  const address = fc
    .uint8Array({ minLength: 20, maxLength: 20 })
    .map((bytes) => `0x${Buffer.from(bytes).toString('hex')}`)

  it('maps every case of one address to one checksummed form', () => {
    fc.assert(
      fc.property(address, (lower) => {
        const checksummed = parseWallet(lower)
        expect(checksummed.toLowerCase()).toBe(lower)
        expect(parseWallet(`0x${lower.slice(2).toUpperCase()}`)).toBe(checksummed)
        expect(parseWallet(checksummed)).toBe(checksummed)
      }),
    )
  })

  it('refuses any mixed case other than the checksum', () => {
    fc.assert(
      fc.property(address, fc.nat(), (lower, pick) => {
        const checksummed = parseWallet(lower)
        const letters = [...checksummed.slice(2)].flatMap((char, index) =>
          /[a-f]/i.test(char) ? [index] : [],
        )
        fc.pre(letters.length >= 2)
        // Flip the case of one letter: still mixed case, no longer the checksum.
        const at = 2 + letters[pick % letters.length]!
        const char = checksummed[at]!
        const flipped = char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase()
        const wrong = `${checksummed.slice(0, at)}${flipped}${checksummed.slice(at + 1)}`
        const single =
          wrong.slice(2) === wrong.slice(2).toLowerCase() ||
          wrong.slice(2) === wrong.slice(2).toUpperCase()
        fc.pre(!single)
        expect(() => parseWallet(wrong)).toThrow(MalformedWalletError)
      }),
    )
  })
})

describe('isWallet', () => {
  it('tells wallets from everything else', () => {
    expect(isWallet(mixed.toLowerCase())).toBe(true)
    expect(isWallet('0x5aaeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toBe(false)
    expect(isWallet(undefined)).toBe(false)
  })
})
