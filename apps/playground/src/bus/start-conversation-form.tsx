import type { Agent } from '@baton/core'
import { useState } from 'react'
import { serverApi } from '../api/client'
import { stores } from '../api/stores'
import { describeError } from '../ui/describe-error'

/** Starts a conversation on the bus: a message from the person at this page to an agent. */
export function StartConversationForm({ agents }: { agents: readonly Agent[] }) {
  const hosted = agents.filter((agent) => !agent.id.startsWith('swarm_'))
  const [to, setTo] = useState<string>()
  const [content, setContent] = useState('')
  const [status, setStatus] = useState<{ ok: boolean; text: string }>()
  const recipient = to ?? hosted[0]?.id
  return (
    <form
      className="panel row"
      aria-label="Start a conversation"
      onSubmit={(event) => {
        event.preventDefault()
        if (!recipient || !content.trim()) return
        setStatus(undefined)
        serverApi.sendMessage({ to: recipient, content }).then(
          (envelope) => {
            setContent('')
            setStatus({
              ok: true,
              text: `Sent to ${recipient}: conversation ${envelope.correlationId.slice(0, 14)}`,
            })
            void stores.comm.getState().loadConversation(envelope.correlationId)
          },
          (failure: unknown) =>
            setStatus({ ok: false, text: `Not sent: ${describeError(failure)}` }),
        )
      }}
    >
      <label htmlFor="bus-to" style={{ margin: 0 }}>
        To
      </label>
      <select
        id="bus-to"
        value={recipient ?? ''}
        onChange={(event) => setTo(event.target.value)}
        style={{ width: 'auto' }}
      >
        {hosted.map((agent) => (
          <option key={agent.id} value={agent.id}>
            {agent.name}
          </option>
        ))}
      </select>
      <label htmlFor="bus-content" className="sr-only">
        Message
      </label>
      <input
        id="bus-content"
        value={content}
        placeholder="What should it do?"
        onChange={(event) => setContent(event.target.value)}
        style={{ flex: 1, width: 'auto', minWidth: 180 }}
      />
      <button type="submit" disabled={!recipient || !content.trim()}>
        Send
      </button>
      {status ? (
        <p
          className={status.ok ? 'muted' : 'error-text'}
          role={status.ok ? 'status' : 'alert'}
          style={{ flexBasis: '100%', margin: 0 }}
        >
          {status.text}
        </p>
      ) : null}
    </form>
  )
}
