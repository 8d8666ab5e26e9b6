// Node's socket errors: the server is not there, or the connection to it broke.
const socketFailures: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
  EPIPE: 'the connection broke',
  ENOTFOUND: 'its host name is not found',
  EHOSTUNREACH: 'its host cannot be reached',
  ENETUNREACH: 'its network cannot be reached',
  EAI_AGAIN: 'its host name could not be looked up',
}

/**
 * What a Node.js socket error says, in words that do not name where it tried: the socket's own
 * message does (`connect ECONNREFUSED 10.0.3.7:5432`), and whoever is told why a call failed is
 * not always who may know where its server is. The code is looked for on the error, along its
 * causes and in an `AggregateError`'s errors (one per address tried); undefined for an error
 * that is not a socket's.
 *
 * @example
 * socketFailureOf(new TypeError('fetch failed', { cause: refused })) // 'the connection was refused'
 */
export function socketFailureOf(error: unknown): string | undefined {
  const seen = new Set<unknown>()
  const pending = [error]
  while (pending.length > 0) {
    const each = pending.shift()
    if (typeof each !== 'object' || each === null || seen.has(each)) continue
    seen.add(each)
    const { code, cause, errors } = each as { code?: unknown; cause?: unknown; errors?: unknown }
    if (typeof code === 'string' && Object.hasOwn(socketFailures, code)) {
      return socketFailures[code]
    }
    pending.push(cause)
    if (Array.isArray(errors)) pending.push(...errors)
  }
  return undefined
}
