import { describe, expect, it } from 'vitest'
import { createOriginPolicy, isLoopbackHost } from './origin-policy'

describe('createOriginPolicy', () => {
  it('admits only the listed origins, wildcard hosts and http(s) pages', () => {
    const policy = createOriginPolicy({
      allowedOrigins: ['https://docs.example.com', 'https://*.example.org'],
    })
    expect(policy.refusal('https://docs.example.com/a?b')).toBeUndefined()
    expect(policy.refusal('https://api.example.org/')).toBeUndefined()
    expect(policy.refusal('http://docs.example.com/')).toMatch(/not among the allowed origins/)
    expect(policy.refusal('https://docs.example.com:8443/')).toMatch(/not among/)
    expect(policy.refusal('https://example.org/')).toMatch(/not among/)
    expect(policy.refusal('https://evil.com/?docs.example.com')).toMatch(/not among/)
    for (const url of [
      'file:///etc/passwd',
      'chrome://settings',
      'data:text/html,x',
      'javascript:1',
    ]) {
      expect(policy.refusal(url), url).toMatch(/only http and https/)
    }
    expect(policy.refusal('not a url')).toBe('it is not a URL')
  })

  it('refuses loopback unless it is allowed, even under "*"', () => {
    const closed = createOriginPolicy({ allowedOrigins: ['*'] })
    for (const url of [
      'http://127.0.0.1:8080/',
      'http://127.1.2.3/',
      'http://localhost/',
      'http://app.localhost/',
      'http://[::1]/',
      'http://0.0.0.0/',
      'http://[::ffff:127.0.0.1]/',
    ]) {
      expect(closed.refusal(url), url).toMatch(/loopback/)
    }
    expect(closed.refusal('https://example.com/')).toBeUndefined()
    expect(closed.addressAllowed('127.0.0.1')).toBe(false)
    expect(closed.addressAllowed('::ffff:7f00:1')).toBe(false)
    expect(closed.addressAllowed('93.184.216.34')).toBe(true)
    const open = createOriginPolicy({
      allowedOrigins: ['http://127.0.0.1:8080'],
      allowLoopback: true,
    })
    expect(open.refusal('http://127.0.0.1:8080/x')).toBeUndefined()
    expect(open.refusal('http://127.0.0.1:8081/x')).toMatch(/not among/)
    expect(open.addressAllowed('127.0.0.1')).toBe(true)
  })

  it('rejects an entry that is not an origin, naming it', () => {
    expect(() => createOriginPolicy({ allowedOrigins: ['https://example.com/docs'] })).toThrow(
      /allowedOrigins\.0: "https:\/\/example.com\/docs" is not an origin/,
    )
    expect(() => createOriginPolicy({ allowedOrigins: ['ftp://example.com'] })).toThrow(
      /must be an http or https origin/,
    )
    expect(() => createOriginPolicy({ allowedOrigins: ['http://localhost:3000'] })).toThrow(
      /set allowLoopback: true/,
    )
  })
})

describe('isLoopbackHost', () => {
  it('knows this machine by its names and addresses', () => {
    expect(isLoopbackHost('127.0.0.2')).toBe(true)
    expect(isLoopbackHost('LOCALHOST.')).toBe(true)
    expect(isLoopbackHost('[::1]')).toBe(true)
    expect(isLoopbackHost('128.0.0.1')).toBe(false)
    expect(isLoopbackHost('localhost.example.com')).toBe(false)
  })
})
