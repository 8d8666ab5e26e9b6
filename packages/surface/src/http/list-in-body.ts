import { ValidationError } from '@baton/core'

/**
 * The list a body holds: the body itself when it is an array, or its `key` field
 * (`{ agents: [...] }`); `undefined` when it holds neither.
 *
 * @example
 * listInBody({ agents: [agent] }, 'agents') // [agent]
 */
export function listInBody(body: unknown, key: string): unknown[] | undefined {
  if (Array.isArray(body)) return body
  const field = (body as Record<string, unknown> | null | undefined)?.[key]
  return Array.isArray(field) ? field : undefined
}

/**
 * Like `listInBody`, but a body that holds no list is a `ValidationError` naming what was
 * expected.
 *
 * @example
 * requireListInBody(await loadAgents(), 'agents')
 */
export function requireListInBody(body: unknown, key: string): unknown[] {
  const list = listInBody(body, key)
  if (list) return list
  throw new ValidationError(`${key.replace(/s$/, '')} list`, [
    { path: '', message: `expected a list of ${key} or { ${key}: [...] }` },
  ])
}
