import type { StoredRun } from '../db/runs-repository'
import type { BatonServices } from '../services'

/** Statuses at which an MCP call answers: final, or waiting for someone. */
const settled = new Set(['done', 'stopped', 'failed', 'cancelled', 'paused', 'interrupted'])

/**
 * Waits until run `id` is final or needs an answer (woken by its events, checked at least
 * every second), reporting each new event count to `onProgress`; `signal` stops the wait.
 *
 * @example
 * const run = await waitForRun(services, id, { signal })
 */
export async function waitForRun(
  services: Pick<BatonServices, 'repositories' | 'runs'>,
  id: string,
  options: { signal?: AbortSignal; onProgress?: (run: StoredRun) => Promise<void> | void } = {},
): Promise<StoredRun> {
  const { signal } = options
  let wake: (() => void) | undefined
  const off = services.runs.notifier.listen(id, () => wake?.())
  try {
    for (;;) {
      signal?.throwIfAborted()
      const run = await services.repositories.runs.find(id)
      if (!run) throw new Error(`run ${id} is gone`)
      if (settled.has(run.status)) return run
      await options.onProgress?.(run)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, 1000)
        function done() {
          clearTimeout(timer)
          signal?.removeEventListener('abort', done)
          wake = undefined
          resolve()
        }
        wake = done
        signal?.addEventListener('abort', done, { once: true })
      })
    }
  } finally {
    off()
  }
}
