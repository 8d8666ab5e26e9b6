/**
 * Waits for the work in `executing` to end (work added to it meanwhile too), at most
 * `timeoutMs`; past the bound, calls `stop` (which aborts what is left) and waits for the work
 * to end stopped. The one drain of a stopping server: its runs and its A2A tasks.
 * Resolves `true` when everything ended within the bound.
 *
 * @example
 * await drainWithin(executing, 10_000, () => controller.abort(new ShutdownStop()))
 */
export async function drainWithin(
  executing: ReadonlySet<Promise<unknown>>,
  timeoutMs: number,
  stop: () => void,
): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(resolve, timeoutMs, 'late')
  })
  const outcome = await Promise.race([allEnded(executing), late])
  clearTimeout(timer)
  if (outcome !== 'late') return true
  stop()
  await allEnded(executing)
  return false
}

/** Resolves once `executing` is empty: each piece of work removes itself as it ends. */
async function allEnded(executing: ReadonlySet<Promise<unknown>>): Promise<void> {
  while (executing.size > 0) await Promise.allSettled([...executing])
}
