import type { Recipient } from '../envelope/envelope'

// Frozen recipients, shared by the envelopes addressed to one agent (a few agents get most
// messages); cleared when it holds many, so odd ids cannot grow it.
const recipients = new Map<string, Recipient>()

/**
 * The frozen `{ agentId }` an envelope to `agentId` carries, shared by all of them.
 *
 * @example
 * recipient('analyst') === recipient('analyst') // true
 */
export function recipient(agentId: string): Recipient {
  let found = recipients.get(agentId)
  if (!found) {
    if (recipients.size >= 1024) recipients.clear()
    found = Object.freeze({ agentId })
    recipients.set(agentId, found)
  }
  return found
}
