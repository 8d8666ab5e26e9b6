import { collectDefaultMetrics, Registry } from 'prom-client'

let shared: Registry | undefined

/**
 * The process's own metrics (CPU, memory, event-loop lag, GC), collected once per process
 * however many apps it builds (tests build many), on the first scrape.
 *
 * @example
 * await Registry.merge([appRegistry, processRegistry()]).metrics()
 */
export function processRegistry(): Registry {
  if (!shared) {
    shared = new Registry()
    collectDefaultMetrics({ register: shared })
  }
  return shared
}
