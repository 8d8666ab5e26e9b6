// Pushes 1,000,000 messages through a bus with the default retention (and a store following
// it) and prints the heap before and after, and what is still kept: the figures must stay
// bounded however long a server runs.
import { createCommunicationStore, createMessageBus, DEFAULT_RETENTION } from '../src/index'

const total = Number(process.env.BENCH_MESSAGES ?? 1_000_000)
const perConversation = 4

function heapMb(): number {
  globalThis.gc?.()
  return Math.round((process.memoryUsage().heapUsed / 1024 / 1024) * 10) / 10
}

if (!globalThis.gc) console.warn('run with --expose-gc for settled heap figures')

const bus = createMessageBus()
const store = createCommunicationStore(bus)
let delivered = 0
for (const agentId of ['planner', 'coder', 'reviewer', 'tester']) {
  bus.subscribe(agentId, () => {
    delivered += 1
  })
}

const before = heapMb()
const started = performance.now()
let peak = before
// Settled heap at each quarter of the run: flat once retention is full.
const checkpoints: Record<string, number> = {}
let nextCheckpoint = total / 4
let sent = 0
while (sent < total) {
  let message = await bus.send({
    from: { agentId: 'ops' },
    to: { agentId: 'planner' },
    content: `task ${sent}`,
  })
  sent += 1
  for (const next of ['coder', 'reviewer', 'tester']) {
    if (sent >= total || sent % perConversation === 0) break
    message = await bus.forward(message, next)
    sent += 1
  }
  if (sent % 10_000 < perConversation) {
    const used = process.memoryUsage().heapUsed / 1024 / 1024
    peak = Math.max(peak, used)
  }
  if (sent >= nextCheckpoint) {
    checkpoints[String(sent)] = heapMb()
    nextCheckpoint += total / 4
  }
}
const seconds = (performance.now() - started) / 1000
const after = heapMb()

const stored = bus.correlations().reduce((sum, id) => sum + bus.history(id).length, 0)
console.log(
  JSON.stringify(
    {
      messages: sent,
      delivered,
      seconds: Math.round(seconds * 10) / 10,
      messagesPerSecond: Math.round(sent / seconds),
      retention: DEFAULT_RETENTION,
      heapBeforeMb: before,
      heapAfterMb: after,
      heapSettledAtMb: checkpoints,
      heapPeakBeforeGcMb: Math.round(peak * 10) / 10,
      storedMessages: stored,
      storedCorrelations: bus.correlations().length,
      storeCorrelations: store.getState().correlations.size,
    },
    null,
    2,
  ),
)
if (stored > DEFAULT_RETENTION.maxMessages) {
  console.error(`retention failed: ${stored} messages stored`)
  process.exit(1)
}
await bus.close()
