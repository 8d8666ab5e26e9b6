// Nothing to undo when no listener was added; one function for every such run.
const NOTHING = () => {}

/**
 * One signal that aborts when either given signal does, with the reason of the first, without
 * `AbortSignal.any` (which registers weak references and a finalizer on every call). `dispose`
 * unlinks it once the run is over, so a long-lived caller signal keeps no listener per run.
 *
 * @example
 * const { signal, dispose } = linkedSignal(budget.signal, options.signal)
 * try { await work(signal) } finally { dispose() }
 */
export function linkedSignal(
  first: AbortSignal,
  second: AbortSignal | undefined,
): { signal: AbortSignal; dispose: () => void } {
  if (!second || second === first || first.aborted) return { signal: first, dispose: NOTHING }
  if (second.aborted) return { signal: second, dispose: NOTHING }
  const controller = new AbortController()
  const onFirst = () => controller.abort(first.reason)
  const onSecond = () => controller.abort(second.reason)
  first.addEventListener('abort', onFirst, { once: true })
  second.addEventListener('abort', onSecond, { once: true })
  return {
    signal: controller.signal,
    dispose: () => {
      first.removeEventListener('abort', onFirst)
      second.removeEventListener('abort', onSecond)
    },
  }
}
