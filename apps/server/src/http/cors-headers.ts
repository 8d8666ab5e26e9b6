/**
 * What a page on an allowed origin may read beyond the few headers CORS lets through: the
 * request's id, when to retry (429, 503), what a 405 allows, a 401's challenge, the rate
 * limit's count, whether a request was a replay, a file's name, an ETag.
 */
export const EXPOSED_HEADERS: readonly string[] = [
  'x-request-id',
  'retry-after',
  'allow',
  'www-authenticate',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'idempotent-replayed',
  'content-disposition',
  'etag',
]

/**
 * The CORS headers of an answer to a request from `origin` when `corsOrigins` are allowed
 * (BATON_CORS_ORIGINS, `*` for any), as `@fastify/cors` gives them: for the answers its hook
 * never sees (the router's own refusals). None for a request with no or another origin.
 *
 * @example
 * corsHeadersFor(['https://app.example'], 'https://app.example')
 * // { 'access-control-allow-origin': 'https://app.example', vary: 'Origin', 'access-control-expose-headers': 'x-request-id, …' }
 */
export function corsHeadersFor(
  corsOrigins: readonly string[],
  origin: string | undefined,
): Record<string, string> | undefined {
  if (origin === undefined || corsOrigins.length === 0) return undefined
  const exposed = EXPOSED_HEADERS.join(', ')
  if (corsOrigins.includes('*')) {
    return { 'access-control-allow-origin': '*', 'access-control-expose-headers': exposed }
  }
  if (!corsOrigins.includes(origin)) return undefined
  return {
    'access-control-allow-origin': origin,
    vary: 'Origin',
    'access-control-expose-headers': exposed,
  }
}
