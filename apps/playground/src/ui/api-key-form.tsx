import { useState } from 'react'
import { useStore } from 'zustand'
import { apiKey } from '../api/api-key'
import { refreshDirectory } from '../api/stores'

/**
 * Asks for the server's API key when it answered 401: kept for this tab's session and sent on
 * every request and stream from then on. A key the server refuses is said to be wrong.
 */
export function ApiKeyForm() {
  const state = useStore(apiKey, (current) => current.state)
  const [value, setValue] = useState('')
  if (state !== 'needed' && state !== 'refused') return null
  return (
    <form
      className="banner info stack"
      aria-label="API key"
      data-api-key={state}
      onSubmit={(event) => {
        event.preventDefault()
        apiKey.getState().setKey(value)
        setValue('')
        void refreshDirectory().catch(() => undefined)
      }}
    >
      {state === 'refused' ? (
        <p className="error-text" role="alert" style={{ margin: 0 }}>
          <strong>Wrong key.</strong> The server refused the key this page sent (401). Enter another
          one.
        </p>
      ) : (
        <p style={{ margin: 0 }} role="status">
          <strong>This server needs an API key.</strong> It answered 401: give the page a key (an
          API key, or the server's <code>BATON_API_TOKEN</code>). It is kept for this tab only
          (session storage) and sent with every request.
        </p>
      )}
      <div className="row">
        <label htmlFor="api-key" style={{ margin: 0 }}>
          API key
        </label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          value={value}
          onChange={(event) => setValue(event.target.value)}
          style={{ flex: 1, width: 'auto' }}
        />
        <button type="submit" disabled={!value.trim()}>
          Use this key
        </button>
      </div>
    </form>
  )
}
