import type { Envelope, Escalation, MessageBus } from '@baton/comm'
import type { FastifyBaseLogger } from 'fastify'

/**
 * The escalations to give a loop guard of one process at its start, from those stored: an
 * escalation stored `allowed` whose held message was never sent is given as still `open`, so
 * that `actOnStoredDecisions` can allow it (and deliver the message). The escalation routes
 * store a decision before the guard acts on it: a process killed in between leaves exactly
 * that, and restored as `allowed` the chain would go on without its held message, which nobody
 * could deliver any more (a second allow is `409`).
 *
 * @example
 * const escalations = await escalationsToRestore(stored, (id) => messages.find(id), { since })
 */
export async function escalationsToRestore(
  stored: Escalation[],
  find: (id: string) => Promise<{ envelope: Envelope; sent: boolean } | undefined>,
  options: { since: Date },
): Promise<Escalation[]> {
  const restored: Escalation[] = []
  for (const escalation of stored) {
    restored.push(
      isRecentAllow(escalation, options.since) && !(await find(escalation.lastMessage.id))?.sent
        ? openAgain(escalation)
        : escalation,
    )
  }
  return restored
}

/**
 * Acts on what was decided and stored but not done: each escalation stored `allowed` or
 * `stopped` since `since` that the bus's loop guard still holds `open` is allowed (its held
 * message delivered) or stopped now, as the person decided. Among many processes every one
 * does this at its start; a decision another has just acted on is passed over (the guard says
 * it is resolved). A guard that cannot be asked (Redis away) is logged and left: the next
 * start tries again.
 *
 * @example
 * await actOnStoredDecisions(bus, await messages.escalations(), { since, logger })
 */
export async function actOnStoredDecisions(
  bus: MessageBus,
  stored: Escalation[],
  options: { since: Date; logger: FastifyBaseLogger },
): Promise<void> {
  for (const decided of stored) {
    if (decided.status === 'open' || !resolvedSince(decided, options.since)) continue
    try {
      if ((await bus.escalation(decided.id))?.status !== 'open') continue
      if (decided.status === 'allowed') await bus.allow(decided.id, decided.extraHops ?? 1)
      else await bus.stop(decided.id, decided.reason ?? 'stopped by a person')
      options.logger.info(
        { escalation: decided.id, status: decided.status },
        'a decision stored before the last stop, acted on',
      )
    } catch (error) {
      // Another process starting now acted on it first (or its guard forgot it meanwhile).
      const code = (error as { code?: unknown }).code
      if (code === 'ESCALATION_ALREADY_RESOLVED' || code === 'ESCALATION_NOT_FOUND') continue
      options.logger.warn(
        { err: error, escalation: decided.id },
        'acting on a stored decision failed',
      )
    }
  }
}

function isRecentAllow(escalation: Escalation, since: Date): boolean {
  return escalation.status === 'allowed' && resolvedSince(escalation, since)
}

function resolvedSince(escalation: Escalation, since: Date): boolean {
  return Date.parse(escalation.resolvedAt ?? escalation.createdAt) >= since.getTime()
}

function openAgain(escalation: Escalation): Escalation {
  const { resolvedAt: _resolvedAt, extraHops: _extraHops, reason: _reason, ...open } = escalation
  return { ...open, status: 'open' }
}
