import type { Agent } from '@baton/core'
import { useDraftStore } from '../ui/draft-store'
import { RevokeAgentButton } from './revoke-agent-button'

/**
 * A swarm's own example: what its strategy does, with its members, so two swarms never offer
 * the same prompt.
 */
function swarmExample(agent: Agent): string {
  const members = ((agent.config.members as { agentId: string }[] | undefined) ?? [])
    .map((member) => member.agentId)
    .join(', ')
  switch (String(agent.config.strategy)) {
    case 'democratic':
      return `vote (${members}) on which release plan to ship`
    case 'hierarchical':
      return `split the release of version 2 between ${members}`
    case 'specialist':
      return `give each part of the incident review to whichever of ${members} suits it`
    case 'round-robin':
      return `take turns (${members}) improving the release notes`
    default:
      return `work together (${members}) on the release plan`
  }
}

// The offline model's [[tool:…]] directives go into the chat with the prompt; the button
// says in words that they are there.
function withoutDirectives(example: string): string {
  const text = example
    .replace(/\[\[[^\]]*\]\]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
  const tools = [...example.matchAll(/\[\[tool:([\w-]+)/g)].map((match) => match[1])
  return tools.length > 0 ? `${text} (the offline model calls ${tools.join(', ')})` : text
}

/** One agent (or swarm) as a card; its examples are prompts that open the chat. */
export function AgentCardView({ agent }: { agent: Agent }) {
  const setDraft = useDraftStore((state) => state.setDraft)
  const card = agent.agentCard
  const swarm = agent.id.startsWith('swarm_')
  const tryPrompt = (prompt: string) => {
    setDraft(`@${agent.name} ${prompt}`)
    window.location.hash = '#/chat'
  }
  // The server grants these to every agent whose card says canDelegate (GET /api/v1/tools).
  const granted = card.canDelegate && !swarm ? ['ask_peer', 'start_subagent'] : []
  const tools = [...new Set([...agent.tools, ...granted])]
  const examples = card.examples.length > 0 ? card.examples : swarm ? [swarmExample(agent)] : []
  return (
    <article className="panel card" aria-label={agent.name} data-agent-id={agent.id}>
      <h3>{agent.name}</h3>
      <div className="row">
        <span className="pill">
          {swarm ? `swarm · ${String(agent.config.strategy)}` : agent.type}
        </span>
        <span
          className={`pill ${card.trustTier === 'high' ? 'ok' : card.trustTier === 'medium' ? 'warn' : ''}`}
        >
          trust: {card.trustTier}
        </span>
        {card.canDelegate ? (
          <span className="pill ok">can delegate</span>
        ) : (
          <span className="pill">does not delegate</span>
        )}
      </div>
      {card.tagline && card.tagline !== agent.name ? (
        <p>
          <strong>{card.tagline}</strong>
        </p>
      ) : null}
      <p className="muted">{card.capabilityDescription || agent.description}</p>
      <p>
        Model <code>{agent.model}</code>
        {tools.length > 0 ? (
          <>
            {' '}
            · tools{' '}
            {tools.map((tool) => (
              <code key={tool} style={{ marginRight: 4 }}>
                {tool}
              </code>
            ))}
          </>
        ) : null}
      </p>
      {!swarm ? (
        <p className="muted" style={{ fontSize: '0.8rem', wordBreak: 'break-all' }}>
          {agent.wallet}
        </p>
      ) : null}
      {!swarm ? <RevokeAgentButton agent={agent} /> : null}
      {examples.length > 0 ? (
        <div className="examples">
          {examples.map((example) => (
            <button
              key={example}
              type="button"
              className="example"
              onClick={() => tryPrompt(example)}
            >
              Try: {withoutDirectives(example)}
            </button>
          ))}
        </div>
      ) : null}
    </article>
  )
}
