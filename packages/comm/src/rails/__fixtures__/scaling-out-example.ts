// The Redis example of docs/message-bus-rails.md, as it is written there: it must deliver its
// message and then exit by itself once the bus and the guard are closed.
import { createMessageBus, createRedisLoopGuard, createRedisRail } from '../../index'

const url = process.argv[2] ?? 'redis://127.0.0.1:6379'
const prefix = `example-${process.pid}`
const loopGuard = createRedisLoopGuard({ url, prefix, maxHops: 4 })
const bus = createMessageBus({
  transport: createRedisRail({ url, prefix, blockMs: 200 }),
  loopGuard,
})

const delivered = new Promise<string>((resolve) => {
  bus.subscribe('analyst', (message) => resolve(message.content))
})
await bus.send({ from: { agentId: 'ops' }, to: { agentId: 'analyst' }, content: 'review' })
console.log(await delivered)

await bus.close()
await loopGuard.close()
