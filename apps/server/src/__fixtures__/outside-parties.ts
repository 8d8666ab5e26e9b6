/**
 * The message that makes `party`, an outside party nobody hosts, a party of `correlationId`
 * without running anyone: a broadcast (a label; a hosted agent runs only on a direct message)
 * to the seeded analyst, at hop 0. Tests whose outside parties write to each other (a loop the
 * guard must hold) send it first, since a message to a name that is neither a registered agent
 * nor a party of its conversation is refused (404 UNKNOWN_AGENT).
 *
 * @example
 * await post('/api/v1/messages', joinAsParty('desk-a', correlationId))
 * await post('/api/v1/messages', { from: { agentId: 'desk-b' }, to: { agentId: 'desk-a' }, content: 'over to you', correlationId, hop: 1 })
 */
export function joinAsParty(party: string, correlationId: string) {
  return {
    from: { agentId: party },
    to: { agentId: 'analyst' },
    type: 'broadcast' as const,
    content: `${party} joins the conversation`,
    correlationId,
    hop: 0,
  }
}
