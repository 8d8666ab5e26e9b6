import { describe, expect, it } from 'vitest'
import { bearerTokenOf, sameSecret } from './bearer-token'

describe('bearerTokenOf', () => {
  it('reads the credential whatever the case of the scheme', () => {
    expect(bearerTokenOf('Bearer abc')).toBe('abc')
    expect(bearerTokenOf('bearer abc')).toBe('abc')
    expect(bearerTokenOf('BEARER  abc ')).toBe('abc')
  })

  it('gives nothing for another scheme, an empty credential or two of them', () => {
    expect(bearerTokenOf('Basic abc')).toBeUndefined()
    expect(bearerTokenOf('Bearer ')).toBeUndefined()
    expect(bearerTokenOf('Bearer a b')).toBeUndefined()
    expect(bearerTokenOf(undefined)).toBeUndefined()
  })
})

describe('sameSecret', () => {
  it('is true only for the same secret, whatever the lengths', () => {
    expect(sameSecret('0123456789abcdef', '0123456789abcdef')).toBe(true)
    expect(sameSecret('0123456789abcdeX', '0123456789abcdef')).toBe(false)
    expect(sameSecret('0', '0123456789abcdef')).toBe(false)
    expect(sameSecret('0123456789abcdef0123', '0123456789abcdef')).toBe(false)
  })
})
