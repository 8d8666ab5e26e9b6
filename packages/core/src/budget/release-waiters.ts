/** Those waiting on one budget for a reservation to be given back. */
export type ReleaseWaiters = Set<() => void>

/**
 * Waits for the next release anywhere on a chain: the waiter is registered on every budget of
 * the chain (`waiters`, one set per budget), since a release anywhere below a common ancestor
 * wakes that ancestor, and the first wake-up unregisters it everywhere.
 *
 * @example
 * const released = waitForRelease([childWaiters, rootWaiters])
 * wakeReleaseWaiters(rootWaiters) // released resolves
 */
export function waitForRelease(waiters: readonly ReleaseWaiters[]): Promise<void> {
  return new Promise((resolve) => {
    const wake = () => {
      for (const set of waiters) set.delete(wake)
      resolve()
    }
    for (const set of waiters) set.add(wake)
  })
}

/**
 * Wakes everyone waiting on one budget.
 *
 * @example
 * wakeReleaseWaiters(node.releaseWaiters)
 */
export function wakeReleaseWaiters(waiters: ReleaseWaiters | undefined): void {
  if (!waiters || waiters.size === 0) return
  for (const wake of [...waiters]) wake()
}
