/** One model call, as a metrics listener sees it. */
export type ModelCallRecord = {
  provider: string
  model: string
  inputTokens: number
  outputTokens: number
  costUsd: number
  durationMs: number
  /** Set when the call failed: the Baton error code or the error's class name. */
  errorType?: string
}

/** One tool call, as a metrics listener sees it. */
export type ToolCallRecord = {
  tool: string
  outcome: 'ok' | 'error'
  durationMs: number
}

export type TelemetryListener = {
  modelCall?: (record: ModelCallRecord) => void
  toolCall?: (record: ToolCallRecord) => void
}

type Listeners = Set<TelemetryListener>

// On globalThis, so two copies of the package (a bundle and a dependency) report to one place.
const key = Symbol.for('baton.telemetry.listeners')
const shared = globalThis as Record<symbol, Listeners | undefined>
const listeners: Listeners = shared[key] ?? new Set()
shared[key] = listeners

/**
 * Subscribes to every model and tool call of this process (the server feeds its Prometheus
 * counters from it). Returns the unsubscribe function. With no listener nothing is measured.
 *
 * @example
 * const stop = onTelemetry({ modelCall: (call) => tokens.inc({ model: call.model }, call.inputTokens) })
 */
export function onTelemetry(listener: TelemetryListener): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** Whether anyone listens: callers skip measuring when no one does. */
export function hasTelemetryListeners(): boolean {
  return listeners.size > 0
}

/** Hands a record to every listener; a listener's failure never reaches the call it observes. */
export function emitTelemetry<K extends keyof TelemetryListener>(
  kind: K,
  record: Parameters<NonNullable<TelemetryListener[K]>>[0],
): void {
  for (const listener of listeners) {
    try {
      ;(listener[kind] as ((value: typeof record) => void) | undefined)?.(record)
    } catch {
      // Metrics are an observer: they must not fail the work they count.
    }
  }
}
