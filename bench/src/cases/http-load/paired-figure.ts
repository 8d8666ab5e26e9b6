import type { PairedLoad } from '../../measure'
import { formatNumber } from '../../report/format-number'
import type { Figure, Size } from '../types'
import { loadFigure } from './load-figure'
import { warmUpSeconds } from './load-seconds'

/**
 * The rounds of a paired load: five of 2 s (10 s a server, as a single load), one in the smoke
 * test; each server warmed up first as a server loaded alone is.
 */
export const pairedRounds = (
  size: Size,
): { rounds: number; seconds: number; warmUpSeconds: number } => ({
  ...(size === 'full' ? { rounds: 5, seconds: 2 } : { rounds: 1, seconds: 1 }),
  warmUpSeconds: warmUpSeconds(size),
})

/**
 * The subject's figure of a paired load, with its share of the reference's requests/s in the
 * same rounds (`details.pairedRatio`, the median of the rounds', which a ratio target reads).
 *
 * @example
 * return pairedFigure(await pairedLoadTest({ ... }), "hello-world's")
 */
export function pairedFigure(paired: PairedLoad, referenceName: string, per = 'request'): Figure {
  const figure = loadFigure(paired.subject, per)
  const percent = (ratio: number) => `${formatNumber(ratio * 100)}%`
  const rounds = paired.ratios.length
  const how =
    rounds > 1
      ? `the median of ${rounds} rounds in turn, ${percent(Math.min(...paired.ratios))}–${percent(Math.max(...paired.ratios))}`
      : 'in the same round'
  const cold =
    paired.coldRatio === undefined ? '' : `; cold, in the warm-ups: ${percent(paired.coldRatio)}`
  return {
    ...figure,
    text: `${figure.text ?? formatNumber(figure.value)}; ${percent(paired.ratio)} of ${referenceName} beside it (${formatNumber(paired.referenceRequestsPerSecond)} requests/s; ${how}${cold})`,
    details: {
      ...figure.details,
      pairedRatio: paired.ratio,
      ...(paired.coldRatio === undefined ? {} : { coldPairedRatio: paired.coldRatio }),
      pairedRounds: paired.ratios.map((ratio) => ratio.toFixed(3)).join(' '),
      referenceRequestsPerSecond: paired.referenceRequestsPerSecond,
    },
  }
}

/** Baton's requests/s as a share of the reference's in the same rounds (NaN without them). */
export function shareOfReference(baton: Figure): number {
  const paired = baton.details?.pairedRatio
  return typeof paired === 'number' ? paired : Number.NaN
}

/** How a paired row loads, for its label. */
export function pairedLoadText(size: Size): string {
  const { rounds, seconds, warmUpSeconds } = pairedRounds(size)
  return `autocannon, 10 connections, ${rounds} round${rounds > 1 ? 's' : ''} of ${seconds} s in turn with the reference, each server warmed up first by ${warmUpSeconds} s of the same load`
}
