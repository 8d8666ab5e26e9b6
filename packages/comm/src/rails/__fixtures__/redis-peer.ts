// One bus of the Redis rail test, run as its own Node process: it hosts one agent that
// bounces every message back to its sender, and reports on stdout as JSON lines.
import {
  createMessageBus,
  createRedisLoopGuard,
  createRedisRail,
  LoopGuardError,
} from '../../index'

const [url, prefix, agentId, startWith] = process.argv.slice(2) as [string, string, string, string?]
const say = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`)

const bus = createMessageBus({
  transport: createRedisRail({
    url,
    prefix,
    blockMs: 200,
    onError: (error) => say({ event: 'error', message: String(error) }),
  }),
  loopGuard: createRedisLoopGuard({ url, prefix, maxHops: 4 }),
})
bus.subscribe(agentId, async (message) => {
  say({
    event: 'delivered',
    agentId,
    hop: message.hop,
    from: message.from.agentId,
    correlationId: message.correlationId,
  })
  try {
    await bus.forward(message, message.from.agentId)
  } catch (error) {
    say({
      event: 'refused',
      agentId,
      code: LoopGuardError.isInstance(error) ? error.code : String(error),
      escalationId: error instanceof LoopGuardError ? error.escalation?.id : undefined,
    })
  }
})
await bus.ready()
say({ event: 'ready', agentId })
if (startWith) {
  await bus.send({ from: { agentId }, to: { agentId: startWith }, content: 'review the incidents' })
}
process.stdin.on('data', async () => {
  await bus.close()
  process.exit(0)
})
