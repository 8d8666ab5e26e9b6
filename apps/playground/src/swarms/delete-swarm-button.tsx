import type { AgentSwarm } from '@baton/core'
import { useState } from 'react'
import { serverApi } from '../api/client'
import { refreshDirectory } from '../api/stores'
import { describeError } from '../ui/describe-error'

/**
 * Deletes a swarm (`DELETE /api/v1/swarms/:id`) after asking once more; its runs stay. A
 * refusal (another principal's swarm, say) is shown in the server's words.
 */
export function DeleteSwarmButton({
  swarm,
  onDeleted,
}: {
  swarm: AgentSwarm
  onDeleted: (swarmId: string) => void
}) {
  const [confirming, setConfirming] = useState(false)
  const [error, setError] = useState<string>()
  const remove = async () => {
    setError(undefined)
    try {
      await serverApi.deleteSwarm(swarm.id)
      await refreshDirectory().catch(() => undefined)
      onDeleted(swarm.id)
    } catch (failure) {
      setError(`The swarm was not deleted: ${describeError(failure)}`)
    }
    setConfirming(false)
  }
  return (
    <>
      {confirming ? (
        <>
          <button type="button" className="danger" onClick={() => void remove()}>
            Delete {swarm.name}
          </button>
          <button type="button" className="ghost" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </>
      ) : (
        <button
          type="button"
          className="ghost"
          onClick={() => {
            setError(undefined)
            setConfirming(true)
          }}
        >
          Delete…
        </button>
      )}
      {error ? (
        <p className="error-text" role="alert" style={{ flexBasis: '100%', margin: 0 }}>
          {error}
        </p>
      ) : null}
    </>
  )
}
