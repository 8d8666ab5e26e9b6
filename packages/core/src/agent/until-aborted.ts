/** Resolves with `promise`, or rejects with the reason of the first of `signals` to abort. */
export function untilAborted(
  promise: Promise<void>,
  signals: (AbortSignal | undefined)[],
): Promise<void> {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined)
  const signal = AbortSignal.any(present)
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    })
  })
}
