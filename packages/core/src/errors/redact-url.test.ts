import { describe, expect, it } from 'vitest'
import { redactUrl } from './redact-url'

describe('redactUrl', () => {
  it('strips user info', () => {
    expect(redactUrl('https://admin:hunter2@registry.example/agent/0xabc')).toBe(
      'https://registry.example/agent/0xabc',
    )
    expect(redactUrl(new URL('http://token@127.0.0.1:8080/'))).toBe('http://127.0.0.1:8080/')
  })

  it('masks secret-looking query parameters and keeps the rest', () => {
    expect(
      redactUrl('https://registry.example/a?api_key=k1&access_token=t1&X-Signature=s1&page=2'),
    ).toBe('https://registry.example/a?api_key=***&access_token=***&X-Signature=***&page=2')
  })

  it('never echoes a string that is not a URL, nor credentials given without a scheme', () => {
    expect(redactUrl('not a url')).toBe('[invalid url]')
    expect(redactUrl('admin:hunter2@registry.example')).toBe('[invalid url]')
    expect(redactUrl('file:///var/agents.json')).toBe('file:///var/agents.json')
  })
})
