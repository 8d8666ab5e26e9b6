import { runBounded } from './run-bounded'

/**
 * The call wrapper a workspace's tools share: refused while the workspace is lent
 * (`assertUsable`), its session opened under the launch timeout (a browser or a display may
 * have to start first), then only the tool's own work held to the tool timeout; the caller's
 * signal (its budget) stops either at once.
 *
 * @example
 * const bounded = sessionBounded({ session: open, assertUsable, timeoutMs: 15_000, openTimeoutMs: 30_000 })
 * await bounded('screenshot', signal, (session) => session.capture())
 */
export function sessionBounded<S>(options: {
  session: () => Promise<S>
  assertUsable: (action: string) => void
  timeoutMs: number
  openTimeoutMs: number
}): <T>(
  name: string,
  signal: AbortSignal | undefined,
  work: (session: S) => Promise<T>,
) => Promise<T> {
  return async (name, signal, work) => {
    options.assertUsable(`use ${name}`)
    const session = await runBounded(
      { tool: name, timeoutMs: options.openTimeoutMs, signal },
      options.session,
    )
    return runBounded({ tool: name, timeoutMs: options.timeoutMs, signal }, () => work(session))
  }
}
