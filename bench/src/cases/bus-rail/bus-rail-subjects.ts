import { createMessageBus, createWebSocketRail } from '@baton/comm'
import { formatNumber } from '../../report/format-number'
import type { Subjects } from '../types'
import { railMessageCounts } from './bus-rail-case'

// Sent before waiting for the spoke to have them all: the rail's acknowledgements and the
// sockets' buffers stay bounded.
const BATCH = 500

/**
 * Messages/s from a hub bus to a subscriber on a spoke bus, each its own conversation, over
 * the WebSocket rail between two buses of this process: the envelope is serialized, crosses
 * a socket, is parsed, deduplicated by the rail and by the bus, counted by the spoke's guard
 * and delivered.
 */
async function overRail(count: number): Promise<number> {
  const hub = createWebSocketRail({ peerId: 'bench-hub', listen: { port: 0, host: '127.0.0.1' } })
  const hubBus = createMessageBus({ transport: hub })
  await hubBus.ready()
  const spoke = createWebSocketRail({
    peerId: 'bench-spoke',
    connect: [`ws://127.0.0.1:${hub.address()?.port}`],
  })
  const spokeBus = createMessageBus({ transport: spoke })
  await spokeBus.ready()
  let delivered = 0
  let waiting: { count: number; resolve: () => void } | undefined
  spokeBus.subscribe('worker', () => {
    delivered += 1
    if (waiting && delivered >= waiting.count) waiting.resolve()
  })
  const deliveredUpTo = (target: number) =>
    delivered >= target
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          waiting = { count: target, resolve }
        })
  try {
    // The spoke has said hello once one message went through.
    await hubBus.send({ from: { agentId: 'ops' }, to: { agentId: 'worker' }, content: 'hello' })
    await deliveredUpTo(1)
    delivered = 0
    const started = performance.now()
    let sent = 0
    while (sent < count) {
      const batch = Math.min(BATCH, count - sent)
      for (let index = 0; index < batch; index += 1) {
        await hubBus.send({
          from: { agentId: 'ops' },
          to: { agentId: 'worker' },
          content: `task ${sent + index}`,
        })
      }
      sent += batch
      await deliveredUpTo(sent)
    }
    const seconds = (performance.now() - started) / 1000
    if (delivered !== count) throw new Error(`${delivered} of ${count} messages were delivered`)
    return count / seconds
  } finally {
    await spokeBus.close()
    await hubBus.close()
  }
}

export const busRailSubjects: Subjects = {
  async baton(size) {
    const [long, short] = railMessageCounts(size)
    // The short run's best of three, as the bus row's: its first runs still warm the JIT up.
    const shortRate = Math.max(await overRail(short), await overRail(short), await overRail(short))
    const longRate = await overRail(long)
    const costGrowth = shortRate / longRate
    return {
      value: longRate,
      text: `${formatNumber(longRate)} (${formatNumber(costGrowth)})`,
      details: { longRate, shortRate, costGrowth, long, short },
    }
  },
}
