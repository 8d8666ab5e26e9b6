import { register } from 'node:module'

type Switch = (off: boolean) => void
const key = Symbol.for('baton.bench.telemetry-switches')

/**
 * Installs the telemetry switch: Baton's instrumentation modules loaded after this call can be
 * turned off entirely (`setTelemetryOff(true)`: every wrapper a pass-through, no call into
 * @opentelemetry/api) and on again. Must run before `@baton/core` is first imported.
 *
 * @example
 * await import('./telemetry-switch') // then import @baton/mal
 */
register(new URL('./telemetry-switch-hooks.ts', import.meta.url))

/** How many instrumented modules the switch holds (0: the hooks came too late). */
export function switchedModules(): number {
  return ((globalThis as Record<symbol, Switch[] | undefined>)[key] ?? []).length
}

/**
 * Points every instrumented function at its pass-through (`true`) or at Baton's own (`false`).
 *
 * @example
 * setTelemetryOff(true); await run(); setTelemetryOff(false)
 */
export function setTelemetryOff(off: boolean): void {
  for (const flip of (globalThis as Record<symbol, Switch[] | undefined>)[key] ?? []) flip(off)
}
