import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/**
 * The credential of an `Authorization: Bearer <credential>` header (the scheme matched
 * case-insensitively, as RFC 9110 says), or undefined.
 *
 * @example
 * bearerTokenOf('bearer abc') // 'abc'
 */
export function bearerTokenOf(header: string | undefined): string | undefined {
  const match = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '')
  return match?.[1]
}

// Per process: the digests compared below are of no use outside it.
const comparisonKey = randomBytes(32)

/**
 * Compares two secrets in time independent of where they differ and of their lengths: both
 * are reduced to HMACs of one length first, so a wrong guess tells nothing of the length.
 *
 * @example
 * if (!sameSecret(given, settings.apiToken)) throw unauthorized()
 */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHmac('sha256', comparisonKey).update(value).digest()
  return timingSafeEqual(digest(given), digest(expected))
}
