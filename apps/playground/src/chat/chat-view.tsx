import { parseMentions, useA2ADelegation, useMentionableAgents } from '@baton/surface'
import { useState } from 'react'
import { useDraftStore } from '../ui/draft-store'
import { type ChatEntry, useChatStore } from './chat-store'
import { ConversationReplies } from './conversation-replies'
import { MentionInput } from './mention-input'
import { MessageText } from './message-text'
import { SwarmRunSummary } from './swarm-run-summary'

function Outcome({ entry }: { entry: Extract<ChatEntry, { kind: 'outcome' }> }) {
  const { result, targetName } = entry
  if (!result.success) {
    return (
      <div className="bubble failure" role="alert">
        Nothing was delegated to {targetName}: {result.message}
      </div>
    )
  }
  const headline =
    result.route === 'swarm'
      ? `Swarm run started: ${targetName} (run ${result.runId}).`
      : result.route === 'message'
        ? result.held
          ? `Message to ${targetName} held by the loop guard.`
          : `Message sent to ${targetName} (conversation ${result.correlationId}).`
        : `${targetName} does not delegate: you run the task with it yourself (in a MAL plan, on the Runs view).`
  return (
    <div className="stack">
      <div className="bubble system" data-route={result.route}>
        {headline}
      </div>
      {result.route === 'swarm' && result.runId ? <SwarmRunSummary runId={result.runId} /> : null}
      {result.route === 'message' && result.correlationId ? (
        <ConversationReplies correlationId={result.correlationId} />
      ) : null}
    </div>
  )
}

/** A chat where an @mention delegates: to a swarm, an agent that delegates, or back to you. */
export function ChatView() {
  const agents = useMentionableAgents()
  const { delegate } = useA2ADelegation()
  const { entries, add } = useChatStore()
  const { draft, setDraft } = useDraftStore()
  const [sending, setSending] = useState(false)

  const send = async () => {
    const text = draft.trim()
    if (!text || sending) return
    const { targets, task } = parseMentions(text, agents)
    add({ kind: 'me', text })
    setDraft('')
    if (targets.length === 0) {
      add({ kind: 'note', text: 'Mention an agent or swarm with @ to delegate the task to it.' })
      return
    }
    setSending(true)
    try {
      for (const target of targets) {
        const result = await delegate('user', target.id, task || text)
        add({ kind: 'outcome', targetName: target.name, result })
      }
    } finally {
      setSending(false)
    }
  }

  return (
    <section className="stack" aria-labelledby="chat-title">
      <h1 id="chat-title">Chat</h1>
      <p className="muted">
        Type <code>@</code> and pick an agent. An agent that can delegate gets the task as a message
        on the server's bus and hands parts of it to others, each with a budget; a swarm starts a
        run; any other agent is yours to run.
      </p>
      <div className="panel chat-log" role="log" aria-label="Conversation">
        {entries.length === 0 ? (
          <p className="muted">
            Try <code>@Orchestrator plan the release of version 2</code>.
          </p>
        ) : null}
        {entries.map((entry) =>
          entry.kind === 'me' ? (
            <div key={entry.id} className="bubble me">
              <MessageText text={entry.text} />
            </div>
          ) : entry.kind === 'note' ? (
            <div key={entry.id} className="bubble system">
              {entry.text}
            </div>
          ) : (
            <Outcome key={entry.id} entry={entry} />
          ),
        )}
      </div>
      <MentionInput
        value={draft}
        onChange={setDraft}
        onSubmit={send}
        agents={agents}
        disabled={sending}
      />
      <div className="row">
        <button type="button" onClick={send} disabled={sending || !draft.trim()}>
          {sending ? 'Sending…' : 'Send'}
        </button>
      </div>
    </section>
  )
}
