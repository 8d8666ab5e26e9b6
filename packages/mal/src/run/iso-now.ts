let lastMs = Number.NaN
let lastIso = ''

/**
 * `new Date().toISOString()`, made once per millisecond: a run emits several events per
 * millisecond (a step start and finish each), and formatting the date was a tenth of an
 * event's cost.
 *
 * @example
 * isoNow() // '2026-12-02T13:45:00.123Z'
 */
export function isoNow(): string {
  const now = Date.now()
  if (now !== lastMs) {
    lastMs = now
    lastIso = new Date(now).toISOString()
  }
  return lastIso
}
