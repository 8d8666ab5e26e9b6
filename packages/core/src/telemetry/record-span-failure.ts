import { type Span, SpanStatusCode } from '@opentelemetry/api'
import { BatonError } from '../errors/baton-error'

/**
 * Marks a span failed: its status is ERROR with the error's short message, `error.type` is the
 * Baton error code (`BUDGET_EXCEEDED`, ...) or, for anything else, the error's class name, and
 * the exception is recorded as an event.
 *
 * @example
 * try { await work() } catch (error) { recordSpanFailure(span, error); throw error }
 */
export function recordSpanFailure(span: Span, error: unknown): void {
  if (!span.isRecording()) return
  const baton = BatonError.isInstance(error)
  const message = baton
    ? error.shortMessage
    : error instanceof Error
      ? error.message
      : String(error)
  span.setAttribute('error.type', errorType(error))
  span.setStatus({ code: SpanStatusCode.ERROR, message })
  if (error instanceof Error) span.recordException(error)
}

/**
 * The `error.type` of a failure: a Baton error's stable code, else the error's class name.
 *
 * @example
 * errorType(new BudgetExceededError({ ... })) // 'BUDGET_EXCEEDED'
 */
export function errorType(error: unknown): string {
  if (BatonError.isInstance(error)) return error.code
  if (error instanceof Error) return error.name || 'Error'
  return '_OTHER'
}
