import type { LoadTestResult } from '../../measure'
import { formatNumber } from '../../report/format-number'
import type { Figure } from '../types'

/**
 * A load test's figure: requests/s, with the server's database queries and transactions per
 * answer beside it when it counted them (Baton's servers).
 *
 * @example
 * return loadFigure(await loadTest({ server: 'baton', path: 'a2a', seconds: 10 }))
 */
export function loadFigure(result: LoadTestResult, per = 'request'): Figure {
  const counted = result.queriesPerRequest !== undefined
  const cpu =
    result.cpuMsPerRequest !== undefined
      ? `, ${formatNumber(result.cpuMsPerRequest)} ms of server CPU`
      : ''
  // What the server answered in its warm-up, cold.
  const cold =
    result.coldRequestsPerSecond !== undefined
      ? `; ${formatNumber(result.coldRequestsPerSecond)} while warming up`
      : ''
  return {
    value: result.requestsPerSecond,
    ...(counted
      ? {
          text: `${formatNumber(result.requestsPerSecond)} (${formatNumber(result.queriesPerRequest!)} queries, ${formatNumber(result.transactionsPerRequest!)} transactions${cpu} per ${per}; p99 ${formatNumber(result.p99Ms)} ms${cold})`,
        }
      : {}),
    details: {
      latencyMs: result.latencyMs,
      p99Ms: result.p99Ms,
      total: result.total,
      ...(counted
        ? {
            queriesPerRequest: result.queriesPerRequest!,
            transactionsPerRequest: result.transactionsPerRequest!,
          }
        : {}),
      ...(result.cpuMsPerRequest !== undefined ? { cpuMsPerRequest: result.cpuMsPerRequest } : {}),
      ...(result.model ? { model: result.model } : {}),
      ...(result.coldRequestsPerSecond !== undefined
        ? { coldRequestsPerSecond: result.coldRequestsPerSecond }
        : {}),
      ...(result.stopped?.settled ? { settled: JSON.stringify(result.stopped.settled) } : {}),
    },
  }
}
