import { EventEmitter } from 'node:events'
import { createMessageBus, type Envelope } from '@baton/comm'
import { formatNumber } from '../../report/format-number'
import type { Figure, Subjects } from '../types'
import { messageCounts } from './bus-case'

const AGENTS = ['planner', 'coder', 'reviewer', 'tester'] as const

/** Rates of the long and the short run, and how much a message's cost grew between them. */
function figureOf(long: number, short: number, rates: [number, number]): Figure {
  const [longRate, shortRate] = rates
  const costGrowth = shortRate / longRate
  return {
    value: longRate,
    text: `${formatNumber(longRate)} (${formatNumber(costGrowth)})`,
    details: { longRate, shortRate, costGrowth, long, short },
  }
}

/** `count` messages as conversations of four: a send to the planner, forwarded down the line. */
async function throughBus(count: number): Promise<number> {
  const bus = createMessageBus()
  let delivered = 0
  for (const agentId of AGENTS) {
    bus.subscribe(agentId, () => {
      delivered += 1
    })
  }
  const started = performance.now()
  let sent = 0
  while (sent < count) {
    let message: Envelope = await bus.send({
      from: { agentId: 'ops' },
      to: { agentId: AGENTS[0] },
      content: `task ${sent}`,
    })
    sent += 1
    for (const next of AGENTS.slice(1)) {
      if (sent >= count) break
      message = await bus.forward(message, next)
      sent += 1
    }
  }
  await bus.settled()
  const seconds = (performance.now() - started) / 1000
  await bus.close()
  if (delivered !== count) throw new Error(`${delivered} of ${count} messages were delivered`)
  return count / seconds
}

/** Messages delivered to per-agent subscribers, in order, as fast as each can. */
export const busSubjects: Subjects = {
  async bare(size) {
    const [long, short] = messageCounts(size)
    const run = (count: number) => {
      const emitter = new EventEmitter()
      let delivered = 0
      for (const agentId of AGENTS) emitter.on(agentId, () => (delivered += 1))
      const started = performance.now()
      for (let index = 0; index < count; index += 1) {
        emitter.emit(AGENTS[index % AGENTS.length]!, {
          content: 'task',
          hop: index % AGENTS.length,
        })
      }
      const seconds = (performance.now() - started) / 1000
      if (delivered !== count) throw new Error(`${delivered} of ${count} delivered`)
      return count / seconds
    }
    const shortRate = Math.max(run(short), run(short), run(short))
    return figureOf(long, short, [run(long), shortRate])
  },

  async baton(size) {
    const [long, short] = messageCounts(size)
    // The short run's best of three: its first runs still warm the JIT up, which would make
    // the long run look cheaper per message than it is.
    const shortRate = Math.max(
      await throughBus(short),
      await throughBus(short),
      await throughBus(short),
    )
    const longRate = await throughBus(long)
    return figureOf(long, short, [longRate, shortRate])
  },
}
