// One bus of the Redis rail test, run as its own Node process: it hosts one agent, reports
// each delivery on stdout as a JSON line, and, given a message `stall`, blocks its whole
// process for `stallMs` (a long pause, a frozen machine) before it goes on.
import { createMessageBus, createRedisRail } from '../../index'

const [url, prefix, agentId, claimIdleMs, stallMs] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
]
const say = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`)

const bus = createMessageBus({
  transport: createRedisRail({ url, prefix, blockMs: 50, claimIdleMs: Number(claimIdleMs) }),
})
bus.subscribe(agentId, (message) => {
  say({ event: 'delivered', content: message.content })
  if (message.content !== 'stall') return
  const until = Date.now() + Number(stallMs)
  while (Date.now() < until) {
    // Stalled: nothing of this process runs.
  }
  say({ event: 'stalled' })
})
await bus.ready()
say({ event: 'ready', agentId })
process.stdin.on('data', async () => {
  await bus.close()
  process.exit(0)
})
