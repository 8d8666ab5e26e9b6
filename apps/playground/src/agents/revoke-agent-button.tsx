import { type Agent, signAgentChange } from '@baton/core'
import { useState } from 'react'
import { privateKeyToAccount } from 'viem/accounts'
import { serverApi } from '../api/client'
import { refreshDirectory } from '../api/stores'
import { describeError } from '../ui/describe-error'
import { loadDevelopmentKeys } from './development-keys'

/**
 * Revokes an agent this browser registered: the change is signed by its creator's development
 * key (the one that signed the registration) for this server's registry, and sent as
 * `DELETE /api/v1/agents/:wallet`. Shown only on cards whose creator is that key; asks once more
 * before it signs.
 */
export function RevokeAgentButton({ agent }: { agent: Agent }) {
  const [confirming, setConfirming] = useState(false)
  const [error, setError] = useState<string>()
  const keys = loadDevelopmentKeys()
  const creator = privateKeyToAccount(keys.creator)
  if (creator.address.toLowerCase() !== agent.creator.toLowerCase()) return null
  const revoke = async () => {
    setError(undefined)
    try {
      const { registry } = await serverApi.getRuntime()
      const body = await signAgentChange('revoke', agent, { creator, registry })
      await serverApi.revokeAgent(agent.wallet, body)
      await refreshDirectory()
    } catch (failure) {
      setError(`Not revoked: ${describeError(failure)}`)
      setConfirming(false)
    }
  }
  return (
    <div className="row">
      {confirming ? (
        <>
          <button type="button" className="danger" onClick={() => void revoke()}>
            Sign and revoke {agent.name}
          </button>
          <button type="button" className="ghost" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </>
      ) : (
        <button type="button" className="ghost" onClick={() => setConfirming(true)}>
          Revoke
        </button>
      )}
      {error ? (
        <p className="error-text" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  )
}
