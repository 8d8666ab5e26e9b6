const unread = Symbol('unread')

/**
 * A reading of something that may change while the process runs but costs too much to take
 * on every call (an environment variable: ~0.2–1 µs a read), taken at most once per turn of
 * the event loop: the first call of a turn reads, the other calls of that turn get the same
 * value, and the next turn reads again. A process may so change a variable late; it holds from
 * the next turn on.
 *
 * @example
 * const logLevel = perTurn(() => process.env.LOG_LEVEL ?? 'info')
 * logLevel() // read now; the same value until this turn ends
 */
export function perTurn<T>(read: () => T): () => T {
  let value: T | typeof unread = unread
  const forget = () => {
    value = unread
  }
  return () => {
    if (value !== unread) return value
    const fresh = read()
    value = fresh
    if (typeof setImmediate === 'function') setImmediate(forget).unref?.()
    else setTimeout(forget, 0)
    return fresh
  }
}

/** `process.env`, or undefined where there is none (a browser, a worker without it). */
export function environment(): Record<string, string | undefined> | undefined {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
}
