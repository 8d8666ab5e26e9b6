import { useStore } from 'zustand'
import { apiKey } from '../api/api-key'
import { stores } from '../api/stores'
import { ApiKeyForm } from './api-key-form'

/**
 * Says plainly when the server is not answering, and that the page keeps trying; or, when it
 * answered 401, asks for its API key.
 */
export function ConnectionBanner() {
  const connection = useStore(stores.comm, (state) => state.connection)
  const agentsError = useStore(stores.agents, (state) => state.error)
  const keyState = useStore(apiKey, (state) => state.state)
  // A 401 is the server answering: it wants a key, not time.
  if (keyState === 'needed' || keyState === 'refused') return <ApiKeyForm />
  if (connection.state === 'retrying') {
    return (
      <div className="banner error" role="alert">
        <strong>The Baton server is not answering.</strong> The page keeps trying (next try in{' '}
        {Math.ceil(connection.retryInMs / 1000)} s, attempt {connection.attempt}) and comes back by
        itself when the server does; nothing you did is lost.
        <div className="banner-detail">{connection.reason}</div>
      </div>
    )
  }
  if (agentsError) {
    return (
      <div className="banner error" role="alert">
        <strong>Could not read the agents.</strong> {agentsError.message}
      </div>
    )
  }
  return null
}
