import { Envelope, Escalation } from '@baton/comm'

/** The object itself, or the one field of a wrapper (`{ message: … }`) the server put it in. */
function unwrap(body: unknown, key: string): unknown {
  if (body && typeof body === 'object' && key in body) return (body as Record<string, unknown>)[key]
  return body
}

/**
 * Reads an envelope from a server answer or stream event (`envelope`, `{ message }` or
 * `{ envelope }`); undefined when it is not one.
 *
 * @example
 * const envelope = envelopeIn(await response.json())
 */
export function envelopeIn(body: unknown): Envelope | undefined {
  for (const candidate of [body, unwrap(body, 'message'), unwrap(body, 'envelope')]) {
    const parsed = Envelope.safeParse(candidate)
    if (parsed.success) return parsed.data
  }
  return undefined
}

/**
 * Reads an escalation from a server answer or stream event (`escalation` or `{ escalation }`).
 *
 * @example
 * const escalation = escalationIn(await response.json())
 */
export function escalationIn(body: unknown): Escalation | undefined {
  for (const candidate of [body, unwrap(body, 'escalation')]) {
    const parsed = Escalation.safeParse(candidate)
    if (parsed.success) return parsed.data
  }
  return undefined
}

/**
 * Reads a list of escalations (`[…]` or `{ escalations: […] }`), skipping any that do not parse.
 *
 * @example
 * const open = escalationListIn(await response.json())
 */
export function escalationListIn(body: unknown): Escalation[] {
  const list = unwrap(body, 'escalations')
  if (!Array.isArray(list)) return []
  return list.flatMap((item) => {
    const escalation = escalationIn(item)
    return escalation ? [escalation] : []
  })
}
