import { createHmac, timingSafeEqual } from 'node:crypto'
import type { RunState } from './run-state'

/** The key that seals run states: a string or bytes, known only to whoever runs and resumes. */
export type RunSecret = string | Uint8Array

/**
 * Signs a run state: `seal` becomes the HMAC-SHA256 (base64url) of the rest of the state in
 * canonical JSON (keys sorted), so the seal survives being stored and read back as JSON.
 *
 * @example
 * const sealed = sealState(result.state, process.env.MAL_STATE_SECRET!)
 */
export function sealState(state: RunState, secret: RunSecret): RunState {
  const { seal: _, ...rest } = state
  return { ...rest, seal: digest(rest, secret) }
}

/**
 * Whether a state carries the seal `secret` gives it (and so was not changed since).
 *
 * @example
 * if (!isSealedBy(state, secret)) throw new Error('the state was changed')
 */
export function isSealedBy(state: RunState, secret: RunSecret): boolean {
  if (typeof state.seal !== 'string') return false
  const { seal, ...rest } = state
  const expected = Buffer.from(digest(rest, secret))
  const given = Buffer.from(seal)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

function digest(value: unknown, secret: RunSecret): string {
  return createHmac('sha256', secret).update(canonicalJson(value)).digest('base64url')
}

// JSON with object keys sorted at every level: the same state always gives the same text.
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const entries = Object.keys(value)
    .sort()
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .map(
      (key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`,
    )
  return `{${entries.join(',')}}`
}
