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

/**
 * A signal of one call's own that aborts when `outer` does, with its reason, for a library
 * that leaves its abort listener on the signal it is given (the MCP SDK's `request` does):
 * `dispose` takes this one listener off `outer`, so a run's or a budget's signal that outlives
 * thousands of calls keeps none of them.
 *
 * @example
 * const own = callSignal(runSignal)
 * try { await client.callTool(params, undefined, { signal: own.signal }) } finally { own.dispose() }
 */
export function callSignal(outer: AbortSignal): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController()
  if (outer.aborted) {
    controller.abort(outer.reason)
    return { signal: controller.signal, dispose: NOTHING }
  }
  const onAbort = () => controller.abort(outer.reason)
  outer.addEventListener('abort', onAbort, { once: true })
  return { signal: controller.signal, dispose: () => outer.removeEventListener('abort', onAbort) }
}
