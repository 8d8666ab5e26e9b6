/**
 * A run's OpenTelemetry trace id, linked to the tracing UI when the server has a trace-URL
 * template (`BATON_TRACE_URL_TEMPLATE`); nothing when the server records no traces.
 *
 * @example
 * <RunTraceLink traceId={run.traceId} traceUrl={run.traceUrl} />
 */
export function RunTraceLink({
  traceId,
  traceUrl,
}: {
  traceId?: string | null | undefined
  traceUrl?: string | null | undefined
}) {
  if (!traceId) return null
  return (
    <p className="muted" data-trace-id={traceId} style={{ margin: 0 }}>
      Trace{' '}
      {traceUrl ? (
        <a href={traceUrl} target="_blank" rel="noreferrer">
          <code>{traceId}</code>
        </a>
      ) : (
        <code>{traceId}</code>
      )}
    </p>
  )
}
