import { useCallback, useEffect, useState } from 'react'

/** A query parameter of the URL's hash: `run` in `#/runs?run=ID`. */
export function hashParam(name: string): string | undefined {
  return new URLSearchParams(window.location.hash.split('?')[1]).get(name) || undefined
}

/**
 * A query parameter of the URL's hash, followed whenever the hash changes (a link on the
 * same view, back and forward, an address typed in), and written back when the page chooses
 * one, without a history entry, so a reload or a shared address shows the same thing.
 *
 * @example
 * const [runId, chooseRun] = useHashParam('run')
 * chooseRun(id) // the address becomes #/runs?run=ID
 */
export function useHashParam(name: string): [string | undefined, (value: string) => void] {
  const [value, setValue] = useState(() => hashParam(name))
  useEffect(() => {
    const follow = () => setValue(hashParam(name))
    // A change made between the first render and this listener is not missed either.
    follow()
    window.addEventListener('hashchange', follow)
    return () => window.removeEventListener('hashchange', follow)
  }, [name])
  const choose = useCallback(
    (next: string) => {
      const [route = '', query] = window.location.hash.split('?')
      const params = new URLSearchParams(query)
      params.set(name, next)
      window.history.replaceState(null, '', `${route || '#/'}?${params}`)
      setValue(next)
    },
    [name],
  )
  return [value, choose]
}
