// Sends and forwards messages through a bus with the default in-memory loop guard and the
// default retention, at 1e4 and at 1e6 messages, and prints messages per second and how much
// the cost of one message grows between the two (the ratio should stay near 1: retention and
// the guard evict in batches, so nothing gets slower as a server runs). Then the cost of one
// forward, and what a store following the bus adds to it, in one conversation of 1e3 and of
// 1e5 messages (flat: the store's append is O(1)). No test asserts these figures.
//
// Costs are CPU time of this process (user + system), not wall time, so a machine busy with
// other work changes them less; wall-clock rates are printed too.
import { createCommunicationStore, createMessageBus, type Envelope } from '../src/index'

const perConversation = 4
const agents = ['planner', 'coder', 'reviewer', 'tester'] as const

function cpuNs(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) * 1000
}

async function sendAndForward(total: number) {
  const bus = createMessageBus()
  let delivered = 0
  for (const agentId of agents) {
    bus.subscribe(agentId, () => {
      delivered += 1
    })
  }
  let sent = 0
  const wallStarted = performance.now()
  const cpuStarted = cpuNs()
  while (sent < total) {
    let message: Envelope = await bus.send({
      from: { agentId: 'ops' },
      to: { agentId: 'planner' },
      content: 'task',
    })
    sent += 1
    for (let index = 1; index < perConversation && sent < total; index += 1) {
      message = await bus.forward(message, agents[index] as string)
      sent += 1
    }
  }
  const cpu = cpuNs() - cpuStarted
  const wallSeconds = (performance.now() - wallStarted) / 1000
  await bus.close()
  if (delivered !== total) throw new Error(`delivered ${delivered} of ${total}`)
  return {
    messages: total,
    cpuNsPerMessage: Math.round(cpu / total),
    messagesPerCpuSecond: Math.round(total / (cpu / 1e9)),
    messagesPerWallSecond: Math.round(total / wallSeconds),
  }
}

// One conversation of `length` forwards, with or without a store following the bus: the
// difference is what the store's append costs.
async function conversation(length: number, withStore: boolean): Promise<number> {
  const bus = createMessageBus({
    loopGuard: { maxHops: length + 1 },
    retention: { maxMessages: length + 1 },
  })
  const store = withStore ? createCommunicationStore(bus) : undefined
  let message = await bus.send({ from: { agentId: 'ops' }, to: { agentId: 'a' }, content: 'x' })
  const started = cpuNs()
  for (let index = 0; index < length; index += 1) {
    message = await bus.forward(message, message.from.agentId)
  }
  const perMessage = Math.round((cpuNs() - started) / length)
  if (store && store.getState().correlations.get(message.correlationId)?.version !== length + 1) {
    throw new Error('the store missed messages')
  }
  await bus.close()
  return perMessage
}

const small = Number(process.env.BENCH_SMALL ?? 10_000)
const large = Number(process.env.BENCH_LARGE ?? 1_000_000)
await sendAndForward(small) // warm-up, so the JIT has compiled the bus before the measured runs
const first = await sendAndForward(small)
const second = await sendAndForward(large)
const forward: Record<string, { forwardNs: number; withStoreNs: number }> = {}
// The best of three runs each: the first runs of a case pay for the JIT, not for the bus.
async function best(run: () => Promise<number>): Promise<number> {
  let fastest = Number.POSITIVE_INFINITY
  for (let attempt = 0; attempt < 3; attempt += 1) fastest = Math.min(fastest, await run())
  return fastest
}
for (const length of [1_000, 100_000]) {
  forward[`conversation of ${length}`] = {
    forwardNs: await best(() => conversation(length, false)),
    withStoreNs: await best(() => conversation(length, true)),
  }
}
console.log(
  JSON.stringify(
    {
      case: 'send + forward through the memory loop guard (default retention)',
      runs: [first, second],
      costGrowth: Math.round((second.cpuNsPerMessage / first.cpuNsPerMessage) * 100) / 100,
      forward,
    },
    null,
    2,
  ),
)
