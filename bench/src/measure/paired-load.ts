import {
  type LoadRound,
  type LoadTestOptions,
  type LoadTestResult,
  startLoadServer,
} from './load-test'

export type PairedLoadOptions = {
  /** The server measured (Baton's). */
  subject: Omit<LoadTestOptions, 'seconds'>
  /** The one it is compared with. */
  reference: Omit<LoadTestOptions, 'seconds'>
  rounds: number
  /** Each round's load on each server. */
  seconds: number
  /** Seconds of unmeasured load on each server first (see `LoadTestOptions.warmUpSeconds`). */
  warmUpSeconds?: number
}

export type PairedLoad = {
  /** The subject over all its rounds (requests/s: the mean of its rounds'). */
  subject: LoadTestResult
  /** The reference's requests/s, the mean of its rounds'. */
  referenceRequestsPerSecond: number
  /** The subject's requests/s ÷ the reference's, round by round. */
  ratios: number[]
  /** The median of `ratios`. */
  ratio: number
  /** The subject's requests/s ÷ the reference's in their warm-ups, the cold ratio. */
  coldRatio?: number
}

/**
 * Both servers started at once, then loaded in turn, round after round (the reference first
 * in one round, the subject first in the next): a ratio of two servers measured minutes apart
 * takes in whatever the machine did between them (on a shared two-core machine, fastify's
 * hello-world reads 23 000 requests/s in one run and 40 000 in the next), a ratio within one
 * round only what changed in a few seconds; the median of the rounds leaves out the odd one.
 *
 * @example
 * const { ratio } = await pairedLoadTest({
 *   subject: { server: 'baton', path: 'agent' },
 *   reference: { server: 'fastify-hello', path: 'hello' },
 *   rounds: 5,
 *   seconds: 2,
 * }) // 0.62: Baton answers 62% of hello-world's requests/s
 */
export async function pairedLoadTest(options: PairedLoadOptions): Promise<PairedLoad> {
  const warmUp = options.warmUpSeconds ? { warmUpSeconds: options.warmUpSeconds } : {}
  const reference = await startLoadServer({ ...options.reference, ...warmUp })
  const subject = await startLoadServer({ ...options.subject, ...warmUp }).catch(
    async (error: unknown) => {
      await reference.stop()
      throw error
    },
  )
  const subjectRounds: LoadRound[] = []
  const ratios: number[] = []
  let referenceTotal = 0
  try {
    for (let round = 0; round < options.rounds; round += 1) {
      let ours: LoadRound
      let theirs: LoadRound
      if (round % 2 === 0) {
        theirs = await reference.load(options.seconds)
        ours = await subject.load(options.seconds)
      } else {
        ours = await subject.load(options.seconds)
        theirs = await reference.load(options.seconds)
      }
      subjectRounds.push(ours)
      referenceTotal += theirs.requestsPerSecond
      ratios.push(ours.requestsPerSecond / theirs.requestsPerSecond)
    }
  } catch (error) {
    await Promise.all([subject.stop(), reference.stop()])
    throw error
  }
  const [counted] = await Promise.all([subject.stop(), reference.stop()])
  const mean = (pick: (round: LoadRound) => number) =>
    subjectRounds.reduce((sum, round) => sum + pick(round), 0) / subjectRounds.length
  return {
    subject: {
      ...counted,
      ...(subject.cold ? { coldRequestsPerSecond: subject.cold.requestsPerSecond } : {}),
      requestsPerSecond: mean((round) => round.requestsPerSecond),
      latencyMs: mean((round) => round.latencyMs),
      // The worst round's: a tail is not averaged away.
      p99Ms: Math.max(...subjectRounds.map((round) => round.p99Ms)),
      total: subjectRounds.reduce((sum, round) => sum + round.answers, 0),
    },
    referenceRequestsPerSecond: referenceTotal / options.rounds,
    ratios,
    ratio: median(ratios),
    ...(subject.cold && reference.cold
      ? { coldRatio: subject.cold.requestsPerSecond / reference.cold.requestsPerSecond }
      : {}),
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
