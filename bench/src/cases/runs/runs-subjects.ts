import { loadTest } from '../../measure'
import { formatNumber } from '../../report/format-number'
import { SEEDED_AGENT } from '../../servers/start-baton-server'
import { loadFigure } from '../http-load/load-figure'
import { loadSeconds, warmUpSeconds } from '../http-load/load-seconds'
import type { Subjects } from '../types'

const plan = {
  name: 'bench-one-step',
  steps: [{ op: 'delegate', saveAs: 'answer', agentWallet: SEEDED_AGENT.wallet, prompt: 'Hi' }],
}
const body = JSON.stringify({ plan })

/** Starts one-step runs as fast as the server accepts them; counts what they cost once done. */
export const runsSubjects: Subjects = {
  async baton(size) {
    const seconds = loadSeconds(size)
    const result = await loadTest({
      server: 'baton',
      path: 'runs',
      seconds,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      warmUpSeconds: warmUpSeconds(size),
    })
    const settled = result.stopped?.settled as { runs: number; settleMs: number } | undefined
    const figure = loadFigure(result, 'run (its start, its one step and its end)')
    // Every run accepted during the load, finished by the end of the load plus the settling.
    const finishedPerSecond = settled ? settled.runs / (seconds + settled.settleMs / 1000) : 0
    return {
      ...figure,
      text: `${figure.text ?? formatNumber(figure.value)}; ${formatNumber(finishedPerSecond)} finished/s`,
      details: { ...figure.details, finishedPerSecond },
    }
  },
}
