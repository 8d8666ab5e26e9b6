import type { Escalation } from '@baton/comm'
import { waitFor } from '@baton/testing/processes'
import { callJson } from './call-json'

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

/**
 * Two outside parties, `loop-a` and `loop-b`, pass `correlationId` back and forth on the
 * server at `url` until its loop guard holds the conversation; resolves with the refusal's
 * error (`LOOP_GUARD_ESCALATED`), or throws when 20 messages went through.
 *
 * @example
 * await loopUntilHeld(server.url, 'restart-loop') // { code: 'LOOP_GUARD_ESCALATED', ... }
 */
export async function loopUntilHeld(
  url: string,
  correlationId: string,
): Promise<{ code: string; message: string }> {
  const post = (body: unknown) => callJson(`${url}/api/v1/messages`, body)
  const joined = await post(joinAsParty('loop-a', correlationId))
  if (joined.status !== 202)
    throw new Error(`joining ${correlationId}: ${JSON.stringify(joined.body)}`)
  for (let index = 0; index < 20; index++) {
    const [from, to] = index % 2 === 0 ? ['loop-b', 'loop-a'] : ['loop-a', 'loop-b']
    const sent = await post({
      from: { agentId: from },
      to: { agentId: to },
      content: `pass ${index}`,
      correlationId,
    })
    if (sent.status === 409 && sent.body.error) return sent.body.error
    if (sent.status !== 202)
      throw new Error(`pass ${index}: ${sent.status} ${JSON.stringify(sent.body)}`)
  }
  throw new Error(`the loop guard did not hold ${correlationId} within 20 messages`)
}

/**
 * The open escalation of `correlationId` on the server at `url`, once it is stored (the bus
 * stores it after the refusal is answered): waited for up to `timeoutMs`.
 *
 * @example
 * await loopUntilHeld(server.url, 'restart-loop')
 * const open = await storedEscalation(server.url, 'restart-loop') // { id, lastMessage, ... }
 */
export function storedEscalation(
  url: string,
  correlationId: string,
  options: { timeoutMs?: number } = {},
): Promise<Escalation> {
  return waitFor(
    async () => {
      const { body } = await callJson(`${url}/api/v1/escalations?status=open`)
      return (body.escalations as Escalation[]).find((each) => each.correlationId === correlationId)
    },
    { what: `the escalation of ${correlationId} to be stored`, ...options },
  )
}
