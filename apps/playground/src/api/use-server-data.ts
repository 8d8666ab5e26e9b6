import { useCallback, useEffect, useRef, useState } from 'react'
import { useStore } from 'zustand'
import { apiKey } from './api-key'

export type ServerData<Value> = {
  data: Value | undefined
  error: string | undefined
  loading: boolean
  reload: () => void
}

/**
 * Reads something from the server and keeps it fresh: again every `intervalMs` (when given)
 * on `reload()`, and when the page is given another API key. A failed read keeps the last good value and says why in `error`.
 *
 * @example
 * const runs = useServerData(serverApi.listRuns, [], { intervalMs: 2000 })
 */
export function useServerData<Value>(
  load: () => Promise<Value>,
  dependencies: readonly unknown[],
  options: { intervalMs?: number } = {},
): ServerData<Value> {
  const [data, setData] = useState<Value>()
  const [error, setError] = useState<string>()
  const [loading, setLoading] = useState(true)
  const [tick, setTick] = useState(0)
  const loadRef = useRef(load)
  loadRef.current = load
  const reload = useCallback(() => setTick((value) => value + 1), [])
  // A key given (or changed) reads everything again with it.
  const key = useStore(apiKey, (state) => state.key)

  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller names what the read depends on
  useEffect(() => {
    let live = true
    const read = () =>
      loadRef.current().then(
        (value) => {
          if (!live) return
          setData(value)
          setError(undefined)
          setLoading(false)
        },
        (failure: unknown) => {
          if (!live) return
          setError(failure instanceof Error ? failure.message : String(failure))
          setLoading(false)
        },
      )
    void read()
    const timer = options.intervalMs ? setInterval(read, options.intervalMs) : undefined
    return () => {
      live = false
      if (timer) clearInterval(timer)
    }
  }, [...dependencies, tick, key, options.intervalMs])

  return { data, error, loading, reload }
}
