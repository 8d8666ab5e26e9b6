// One peer of the WebSocket rail test, run as its own Node process. It speaks JSON lines on
// stdout and takes commands on stdin (`send <count>`, `report`, `exit`), so the test can
// drive two of them sending to each other at once.
import { createInterface } from 'node:readline'
import { createMessageBus, createWebSocketRail } from '../../index'

const [role, target] = process.argv.slice(2)
const say = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`)

const listening = role === 'listen'
const self = listening ? 'receiver' : 'sender'
const other = listening ? 'sender' : 'receiver'
const rail = listening
  ? createWebSocketRail({ peerId: 'receiver-peer', listen: { port: 0 } })
  : createWebSocketRail({
      peerId: 'sender-peer',
      connect: [String(target)],
      reconnect: { minDelayMs: 20, maxDelayMs: 200 },
    })
const bus = createMessageBus({ transport: rail, retention: { maxMessages: 50_000 } })
const deliveries = new Map<string, number>()
bus.subscribe(self, (message) => {
  deliveries.set(message.content, (deliveries.get(message.content) ?? 0) + 1)
})
await bus.ready()
say(listening ? { event: 'listening', port: rail.address()?.port } : { event: 'ready' })

async function send(count: number): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    await bus.send({ from: { agentId: self }, to: { agentId: other }, content: String(index) })
    // Let the socket drain now and then, so the drop lands mid-stream.
    if (index % 250 === 0) await new Promise((resolve) => setImmediate(resolve))
  }
  await rail.flush({ timeoutMs: 60_000 })
  say({ event: 'flushed', stats: rail.stats() })
}

createInterface({ input: process.stdin }).on('line', async (line) => {
  const [command, argument] = line.split(' ')
  if (command === 'send') await send(Number(argument))
  if (command === 'report') {
    const counts = [...deliveries.values()]
    say({
      event: 'report',
      unique: deliveries.size,
      duplicates: counts.reduce((sum, count) => sum + count, 0) - deliveries.size,
      stats: rail.stats(),
    })
  }
  if (command === 'exit') {
    await bus.close()
    process.exit(0)
  }
})
