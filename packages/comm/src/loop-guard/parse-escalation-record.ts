import { Escalation } from './escalation'

/**
 * An escalation as a Redis hash holds it. An escalation record that does not parse (written by
 * an older or broken writer) is skipped as unknown (`undefined`), so it never breaks the
 * listing of the others.
 *
 * @example
 * parseEscalationRecord(await client.hgetall(`baton:escalation:${escalationId}`))
 */
export function parseEscalationRecord(fields: Record<string, string>): Escalation | undefined {
  if (!fields.id) return undefined
  let path: unknown
  let lastMessage: unknown
  try {
    path = JSON.parse(fields.path ?? '[]')
    lastMessage = JSON.parse(fields.lastMessage ?? 'null')
  } catch {
    return undefined
  }
  const parsed = Escalation.safeParse({
    id: fields.id,
    correlationId: fields.correlationId,
    hops: Number(fields.hops),
    path,
    lastMessage,
    status: fields.status,
    createdAt: fields.createdAt,
    ...(fields.resolvedAt ? { resolvedAt: fields.resolvedAt } : {}),
    ...(fields.reason !== undefined ? { reason: fields.reason } : {}),
    ...(fields.extraHops !== undefined ? { extraHops: Number(fields.extraHops) } : {}),
  })
  return parsed.success ? parsed.data : undefined
}
