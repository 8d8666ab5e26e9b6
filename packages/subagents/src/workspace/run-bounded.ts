import { WorkspaceToolTimeoutError } from './workspace-errors'

/**
 * Runs one workspace tool call within `timeoutMs` and the caller's `signal` (its budget: a
 * cancel or its seconds running out stop the call at once). A `TimeoutError` the work throws
 * (a Playwright wait held to the same limit) is the call's timeout too.
 *
 * @example
 * await runBounded({ tool: 'open_page', timeoutMs: 15_000, signal }, () => page.goto(url))
 */
export function runBounded<T>(
  options: { tool: string; timeoutMs: number; signal?: AbortSignal | undefined },
  work: () => Promise<T>,
): Promise<T> {
  const { tool, timeoutMs, signal } = options
  if (signal?.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const finish = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
    }
    const onAbort = () => {
      finish()
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      finish()
      reject(new WorkspaceToolTimeoutError({ tool, timeoutMs }))
    }, timeoutMs)
    signal?.addEventListener('abort', onAbort, { once: true })
    work().then(
      (value) => {
        finish()
        resolve(value)
      },
      (error: unknown) => {
        finish()
        // The tool's own waits (Playwright's, given the same limit) may end a moment before
        // this timer: that is this call's timeout too, and says so the same typed way.
        reject(isTimeout(error) ? new WorkspaceToolTimeoutError({ tool, timeoutMs }) : error)
      },
    )
  })
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError'
}
