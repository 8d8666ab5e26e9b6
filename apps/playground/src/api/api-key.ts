import { createStore } from 'zustand/vanilla'

/**
 * Where the page stands with the server's credentials: `none` (no key, none asked for),
 * `needed` (a request was refused 401 without a key), `refused` (a 401 with the key given:
 * the wrong key), `accepted` (a request with the key went through).
 */
export type ApiKeyState = {
  key: string | undefined
  state: 'none' | 'needed' | 'refused' | 'accepted'
  /** Keeps `key` for this tab's session and sends it from now on; empty forgets it. */
  setKey(key: string): void
}

const storageName = 'baton.apiKey'

function storedKey(): string | undefined {
  try {
    return globalThis.sessionStorage?.getItem(storageName) || undefined
  } catch {
    return undefined // Storage refused (a privacy mode): the key lives in the page only.
  }
}

/**
 * The API key (or `BATON_API_TOKEN`) the page sends, kept in `sessionStorage`: it survives a
 * reload of the tab and goes when the tab closes. Never put in a URL.
 *
 * @example
 * apiKey.getState().setKey('bk_…')
 */
export const apiKey = createStore<ApiKeyState>()((set) => ({
  key: storedKey(),
  state: 'none',
  setKey(key) {
    const trimmed = key.trim()
    try {
      if (trimmed) globalThis.sessionStorage?.setItem(storageName, trimmed)
      else globalThis.sessionStorage?.removeItem(storageName)
    } catch {
      // Kept in the page only.
    }
    set({ key: trimmed || undefined, state: 'none' })
  },
}))

/**
 * `fetch` with the key as `Authorization: Bearer …` on every request to the server (JSON and
 * event streams alike: the streams are read with fetch, not `EventSource`, so they carry it),
 * noting in `apiKey` whether the server asked for a key or refused the one given.
 *
 * @example
 * const endpoint = { baseUrl: location.origin, fetch: authorizedFetch }
 */
export const authorizedFetch: typeof fetch = async (input, init) => {
  const { key } = apiKey.getState()
  const headers = new Headers(init?.headers)
  if (key && !headers.has('authorization')) headers.set('authorization', `Bearer ${key}`)
  const response = await fetch(input, { ...init, headers })
  const current = apiKey.getState()
  // An answer to a request made with an older key says nothing of the current one.
  if (current.key !== key) return response
  if (response.status === 401) {
    const state = key ? 'refused' : 'needed'
    if (current.state !== state) apiKey.setState({ state })
  } else if (key && response.ok && current.state !== 'accepted') {
    apiKey.setState({ state: 'accepted' })
  }
  return response
}
