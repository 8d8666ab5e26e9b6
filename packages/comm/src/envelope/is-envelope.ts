/**
 * True when `input` looks like a complete envelope rather than a send input (it carries the
 * fields only the bus fills in), so `send` passes it on untouched and keeps its signature.
 *
 * @example
 * isCompleteEnvelope(await signEnvelope(envelope, account)) // true
 */
export function isCompleteEnvelope(input: unknown): boolean {
  if (typeof input !== 'object' || input === null) return false
  const candidate = input as Record<string, unknown>
  return (
    'id' in candidate &&
    'createdAt' in candidate &&
    'correlationId' in candidate &&
    'hop' in candidate
  )
}
