// One peer of the WebSocket rail test, run as its own Node process. It speaks JSON lines on
// stdout and takes commands on stdin, so the test can drive two of them.
import { createInterface } from 'node:readline'
import { createMessageBus, createWebSocketRail } from '../../index'

const [role, target, countText] = process.argv.slice(2)
const say = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`)

if (role === 'listen') {
  const rail = createWebSocketRail({ peerId: 'receiver-peer', listen: { port: 0 } })
  const bus = createMessageBus({ transport: rail, retention: { maxMessages: 50_000 } })
  const deliveries = new Map<string, number>()
  bus.subscribe('receiver', (message) => {
    deliveries.set(message.content, (deliveries.get(message.content) ?? 0) + 1)
  })
  await bus.ready()
  say({ event: 'listening', port: rail.address()?.port })
  createInterface({ input: process.stdin }).on('line', async (line) => {
    if (line === 'report') {
      const counts = [...deliveries.values()]
      say({
        event: 'report',
        unique: deliveries.size,
        duplicates: counts.reduce((sum, count) => sum + count, 0) - deliveries.size,
        stats: rail.stats(),
      })
    }
    if (line === 'exit') {
      await bus.close()
      process.exit(0)
    }
  })
} else {
  const rail = createWebSocketRail({
    peerId: 'sender-peer',
    connect: [String(target)],
    reconnect: { minDelayMs: 20, maxDelayMs: 200 },
  })
  const bus = createMessageBus({ transport: rail, retention: { maxMessages: 50_000 } })
  await bus.ready()
  const count = Number(countText)
  for (let index = 0; index < count; index += 1) {
    await bus.send({
      from: { agentId: 'sender' },
      to: { agentId: 'receiver' },
      content: String(index),
    })
    // Let the socket drain now and then, so the drop lands mid-stream.
    if (index % 250 === 0) await new Promise((resolve) => setImmediate(resolve))
  }
  say({ event: 'sent', count })
  await rail.flush({ timeoutMs: 60_000 })
  say({ event: 'flushed', stats: rail.stats() })
  await bus.close()
  process.exit(0)
}
