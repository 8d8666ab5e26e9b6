/**
 * Polls `check` until it returns a value that is not undefined (generous timeout: liveness
 * on a busy machine, never a performance assertion).
 *
 * @example
 * const run = await waitFor(async () => ((await read()).status === 'done' ? run : undefined))
 */
export async function waitFor<T>(
  check: () => Promise<T | undefined> | T | undefined,
  { timeoutMs = 30_000, intervalMs = 50, what = 'the condition' } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}
