import { useStore } from 'zustand'
import { stores } from '../api/stores'

/** Says plainly when the server is not answering, and that the page keeps trying. */
export function ConnectionBanner() {
  const connection = useStore(stores.comm, (state) => state.connection)
  const agentsError = useStore(stores.agents, (state) => state.error)
  if (connection.state === 'retrying') {
    return (
      <div className="banner error" role="alert">
        <strong>The Baton server is not answering.</strong> {connection.reason}. Retrying in{' '}
        {Math.ceil(connection.retryInMs / 1000)} s (attempt {connection.attempt}); the page comes
        back by itself.
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
