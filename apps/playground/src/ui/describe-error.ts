/**
 * A thrown value as one sentence for a person: the server's own message (and the issues it
 * listed) when it gave them.
 *
 * @example
 * setError(describeError(error))
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const details = (error as { details?: { issues?: unknown } }).details
  const issues = Array.isArray(details?.issues)
    ? details.issues
        .map((issue: { path?: string; message?: string }) =>
          issue.path ? `${issue.path}: ${issue.message}` : issue.message,
        )
        .join('; ')
    : ''
  return issues && !error.message.includes(issues) ? `${error.message} (${issues})` : error.message
}
